package retrygrpc_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Case 5: an exhausted retry budget stops retries (per connection target).
func TestBudgetStopsRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budgets, err := budget.NewGroup(budget.GroupConfig{TokenBucket: &budget.TokenBucketConfig{MaxTokens: 2}})
		if err != nil {
			t.Fatal(err)
		}
		s := newServer(answer{code: codes.Unavailable})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 5, 0), &rec, retrygrpc.WithBudgets(budgets))...)
		_, err = get(t.Context(), cc, methodGet)
		if !errors.Is(err, retry.ErrRetryBudgetExhausted) || status.Code(err) != codes.Unavailable || len(s.seen()) != 1 {
			t.Errorf("error %v after %d attempts, want retry_budget_exhausted with UNAVAILABLE after 1", err, len(s.seen()))
		}
		if budgets.Len() != 1 {
			t.Errorf("%d budgets, want 1, for the connection's target", budgets.Len())
		}
	})
}

// Case 5: an open circuit breaker stops retries, and refuses the next call without an
// attempt (UNAVAILABLE for gRPC code).
func TestOpenBreakerStopsRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		breakers, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 2, OpenTimeout: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		s := newServer(answer{code: codes.Unavailable})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 5, 0), &rec, retrygrpc.WithBreakers(breakers))...)
		_, err = get(t.Context(), cc, methodGet)
		if !errors.Is(err, retry.ErrCircuitOpen) || len(s.seen()) != 2 {
			t.Errorf("error %v after %d attempts, want circuit_open after 2", err, len(s.seen()))
		}
		_, err = get(t.Context(), cc, methodGet)
		if !errors.Is(err, retry.ErrCircuitOpen) || status.Code(err) != codes.Unavailable || len(s.seen()) != 2 {
			t.Errorf("next call: error %v (code %v) after %d attempts in all, want circuit_open, UNAVAILABLE, no new attempt",
				err, status.Code(err), len(s.seen()))
		}
		if state := breakers.Get(cc.Target()).State().String(); state != "OPEN" {
			t.Errorf("breaker of %s is %s, want OPEN", cc.Target(), state)
		}
		// Issue 23 item 5: the refusal, decided before any attempt, names the RPC.
		want := `{"attempt":0,"method":"/retrygrpc.test.Echo/Get","elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"circuit_open","outcome":"failure","no_attempt":true,"breaker":"OPEN"}`
		if got := rec.last(t); got != want {
			t.Errorf("record of the refused call\n got %s\nwant %s", got, want)
		}
	})
}

const retryingServiceConfig = `{"methodConfig": [{"name": [{"service": "retrygrpc.test.Echo"}],
  "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
    "retryableStatusCodes": ["UNAVAILABLE"]}}]}`

// Case 5: when the service config makes grpc-go retry too, the interceptor makes one attempt
// per call (grpc-go's 4 attempts, not 4 × 3), marks its records and warns once.
func TestNoDoubleRetriesWithServiceConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable})
		var rec records
		var log bytes.Buffer
		p := constant(t, 3, 0)
		p.OnDecision = rec.add
		defaultLogger := slog.Default() // the warning goes to slog's default logger
		slog.SetDefault(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn})))
		t.Cleanup(func() { slog.SetDefault(defaultLogger) })
		ic, err := retrygrpc.New(retrygrpc.WithPolicy(&p))
		if err != nil {
			t.Fatal(err)
		}
		cc := dialBufconn(t, s, grpc.WithDefaultServiceConfig(retryingServiceConfig),
			grpc.WithChainUnaryInterceptor(ic.Unary), grpc.WithChainStreamInterceptor(ic.Stream))
		for range 2 {
			if _, err := get(t.Context(), cc, methodGet); status.Code(err) != codes.Unavailable {
				t.Fatalf("error %v, want UNAVAILABLE", err)
			}
		}
		if n := len(s.seen()); n != 8 {
			t.Errorf("server saw %d attempts for 2 calls, want 8 (grpc-go's 4 each)", n)
		}
		if got, want := reasons(rec.all()), "attempts_exhausted/UNAVAILABLE attempts_exhausted/UNAVAILABLE"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}
		if !strings.Contains(rec.last(t), `"inner_retries":true`) {
			t.Errorf("record %s does not say inner_retries", rec.last(t))
		}
		if n := strings.Count(log.String(), "level=WARN"); n != 1 || !strings.Contains(log.String(), "grpc.WithDisableRetry()") {
			t.Errorf("log %q: want one warning naming grpc.WithDisableRetry()", log.String())
		}
	})
}

// With DialOptions (grpc.WithDisableRetry) the same service config leaves retrying to the
// policy alone.
func TestDialOptionsDisableGRPCRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable})
		var rec records
		cc := dialBufconn(t, s, append(interceptor(t, constant(t, 3, 0), &rec), grpc.WithDefaultServiceConfig(retryingServiceConfig))...)
		if _, err := get(t.Context(), cc, methodGet); !errors.Is(err, retry.ErrAttemptsExhausted) {
			t.Fatalf("error %v, want attempts_exhausted", err)
		}
		if n := len(s.seen()); n != 3 {
			t.Errorf("server saw %d attempts, want the policy's 3", n)
		}
		if strings.Contains(rec.last(t), "inner_retries") {
			t.Errorf("record %s says inner_retries", rec.last(t))
		}
	})
}

// One real TCP server on 127.0.0.1 (outside synctest, so with no waits): UNAVAILABLE,
// UNAVAILABLE, OK takes 3 attempts, numbered.
func TestTCPServer(t *testing.T) {
	s := newServer(answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{})
	var rec records
	cc := dialTCP(t, s, interceptor(t, constant(t, 3, 0), &rec)...)
	got, err := get(t.Context(), cc, methodGet)
	if err != nil || got != "echo x" {
		t.Fatalf("get = %q, %v; want echo x", got, err)
	}
	var numbers []string
	for _, a := range s.seen() {
		numbers = append(numbers, a.attempt...)
	}
	if strings.Join(numbers, ",") != "1,2,3" {
		t.Errorf("retry-attempt metadata %q, want 1,2,3", numbers)
	}
	if got, want := reasons(rec.all()), "retryable_error/UNAVAILABLE retryable_error/UNAVAILABLE success/OK"; got != want {
		t.Errorf("decisions %s, want %s", got, want)
	}
}

// One Interceptor serves concurrent calls (run with -race): every call gets its own loop,
// numbering and records.
func TestConcurrentCalls(t *testing.T) {
	s := newServer() // OK to every call
	var rec records
	cc := dialTCP(t, s, interceptor(t, constant(t, 3, 0), &rec, retrygrpc.WithAutoIdempotencyKey())...)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if _, err := get(t.Context(), cc, methodPost); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	keys := map[string]bool{}
	for _, a := range s.seen() {
		if len(a.attempt) != 1 || a.attempt[0] != "1" || len(a.key) != 1 || keys[a.key[0]] {
			t.Fatalf("attempt metadata %q, key %q: want 1 and a key of its own", a.attempt, a.key)
		}
		keys[a.key[0]] = true
	}
	if n := len(rec.all()); n != 80 || len(keys) != 80 {
		t.Errorf("%d decisions and %d keys, want 80 of each", n, len(keys))
	}
}
