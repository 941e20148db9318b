package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// fleetCases returns a successful call through a CLOSED local breaker and through a fleet
// breaker (its syncer running against an in-memory store), in the two-step form and through
// retry.Do. The fleet breaker's call must cost at most twice the local one's (issue 10).
func fleetCases(tb testing.TB) []doCase {
	local, err := breaker.New(breaker.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	shared, err := fleet.NewBreaker(fleet.BreakerConfig{Fleet: fleet.Config{Store: new(fleet.MemoryStore), Name: "bench"}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { shared.Close() })
	if err := shared.SyncNow(context.Background()); err != nil { // a fresh fleet view
		tb.Fatal(err)
	}
	ctx := context.Background()
	ok := func(context.Context) error { return nil }
	twoStep := func(cb retry.CircuitBreaker) func() error {
		return func() error {
			token, admitted, _ := cb.Allow()
			if !admitted {
				return errRefused
			}
			cb.Done(token, retry.ResultSuccess)
			return nil
		}
	}
	pLocal := &retry.Policy{Breaker: local, Timeout: retry.NoLimit}
	pFleet := &retry.Policy{Breaker: shared, Timeout: retry.NoLimit}
	return []doCase{
		{"retry-breaker-twostep", twoStep(local)},
		{"retry-fleet-breaker-twostep", twoStep(shared)},
		{"retry-do-breaker", func() error { return retry.Do(ctx, pLocal, ok) }},
		{"retry-do-fleet-breaker", func() error { return retry.Do(ctx, pFleet, ok) }},
	}
}

// BenchmarkFleetBreakerCall: one successful call, local breaker against fleet breaker.
func BenchmarkFleetBreakerCall(b *testing.B) { benchCases(b, fleetCases(b), false) }

// BenchmarkFleetBreakerCallParallel: the same with GOMAXPROCS goroutines sharing a breaker.
func BenchmarkFleetBreakerCallParallel(b *testing.B) { benchCases(b, fleetCases(b), true) }

// gobreakerStore is gobreaker v2's SharedDataStore on go-redis, as its v2/redis/store.go
// builds it: a redsync-style lock (SET NX PX 5 s, released by a compare-and-delete script)
// around GET and SET of the JSON state. Written here so the comparison needs no redsync.
type gobreakerStore struct {
	client *redis.Client
	tokens map[string]string // the lock's value per name, as redsync keeps its Mutex
}

var unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`)

func (s *gobreakerStore) Lock(name string) error {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	ok, err := s.client.SetNX(context.Background(), name, token, 5*time.Second).Result()
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("lock already taken")
	}
	s.tokens[name] = token
	return nil
}

func (s *gobreakerStore) Unlock(name string) error {
	n, err := unlockScript.Run(context.Background(), s.client, []string{name}, s.tokens[name]).Int()
	if err != nil || n != 1 {
		return errors.New("unlock failed")
	}
	delete(s.tokens, name)
	return nil
}

func (s *gobreakerStore) GetData(name string) ([]byte, error) {
	return s.client.Get(context.Background(), name).Bytes()
}

func (s *gobreakerStore) SetData(name string, data []byte) error {
	return s.client.Set(context.Background(), name, data, 0).Err()
}

// BenchmarkDistributedBreaker: successful calls, one at a time, through a breaker shared via
// the same redis-server: ours (local decisions, one script call per 500 ms tick) against
// gobreaker v2's DistributedCircuitBreaker (GET, lock, SET, unlock around every call).
// redis-cmds/op counts the commands Redis ran (INFO commandstats) per call.
func BenchmarkDistributedBreaker(b *testing.B) {
	s := redistest.Start(b)
	client, err := redisfleet.NewClient(s.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	ours, err := fleet.NewBreaker(fleet.BreakerConfig{Fleet: fleet.Config{Store: redisfleet.New(client, ""), Name: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	defer ours.Close()
	if err := ours.SyncNow(context.Background()); err != nil {
		b.Fatal(err)
	}
	gb, err := gobreaker.NewDistributedCircuitBreaker[struct{}](&gobreakerStore{client: client, tokens: map[string]string{}},
		gobreaker.Settings{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	cases := []doCase{
		{"retry-fleet", func() error {
			token, admitted, _ := ours.Allow()
			if !admitted {
				return errRefused
			}
			ours.Done(token, retry.ResultSuccess)
			return nil
		}},
		{"sony-gobreaker-v2-distributed", func() error {
			_, err := gb.Execute(func() (struct{}, error) { return struct{}{}, nil })
			return err
		}},
	}
	for _, c := range cases {
		b.Run("lib="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			s.ResetStats()
			for b.Loop() {
				if err := c.do(); err != nil {
					b.Fatal(err)
				}
			}
			var commands int64
			for _, n := range s.CommandCalls() {
				commands += n
			}
			b.ReportMetric(float64(commands)/float64(b.N), "redis-cmds/op")
		})
	}
}

// TestFleetBreakersWork is the quick smoke test: the local and fleet breakers admit a call.
func TestFleetBreakersWork(t *testing.T) {
	for _, c := range fleetCases(t) {
		if err := c.do(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
