package redisfleet

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// When Redis loses the fleet's state (FLUSHALL; a roll-back to a snapshot taken while the
// fleet was CLOSED), the fleet stays OPEN until its open timeout ends (issue 24 item 3): the
// replicas that know it OPEN keep refusing and publish it again, and no replica takes
// CLOSED from the emptied store. Five replicas, each calling a failing dependency every
// 5 ms, local breakers that do not trip (the fleet alone decides), open timeout 3 s, the
// data lost 1 s after the fleet opened: no call reaches the dependency before the open
// timeout's end. Before the fix, 112 to 114 calls did after a FLUSHALL, 94 to 102 after the
// roll-back.
func TestStoreLossKeepsTheFleetOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(s *redistest.Server)
	}{
		{"FLUSHALL", func(s *redistest.Server) { s.Do("FLUSHALL") }},
		{"roll-back", func(s *redistest.Server) { s.RollBack() }},
		{"SCRIPT FLUSH and FLUSHALL", func(s *redistest.Server) { s.Do("SCRIPT", "FLUSH"); s.Do("FLUSHALL") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := redistest.Start(t)
			store := New(fleetClient(t, s), "")
			const openTimeout = 3 * time.Second
			cfg := fleet.BreakerConfig{Fleet: fleet.Config{Interval: 100 * time.Millisecond},
				Breaker:  breaker.Config{ConsecutiveFailures: 1000, OpenTimeout: openTimeout},
				OpenRule: fleet.OpenRule{MinFleetCalls: 20}}
			gs := groups(t, 5, store, cfg)
			for _, g := range gs {
				if err := g.SyncNow(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			s.Save() // the fleet CLOSED: the snapshot a roll-back goes back to
			// Each admitted call's time, so that a test goroutine woken late on a loaded machine
			// counts only the calls admitted within the window, not after it.
			var mu sync.Mutex
			var admitted []time.Time
			var stop atomic.Bool
			var wg sync.WaitGroup
			for _, g := range gs {
				wg.Go(func() {
					b := g.Get("")
					for n := 0; !stop.Load() && n < 5000; n++ {
						if token, ok, _ := b.Allow(); ok {
							mu.Lock()
							admitted = append(admitted, time.Now())
							mu.Unlock()
							b.Done(token, retry.ResultFailure)
						}
						time.Sleep(5 * time.Millisecond)
					}
				})
			}
			defer func() { stop.Store(true); wg.Wait() }()
			waitFor(t, "every replica OPEN", func() bool {
				for _, g := range gs {
					if g.Get("").State() != breaker.StateOpen {
						return false
					}
				}
				return true
			})
			// When the store's clock opened it: replicas learn it up to two ticks later.
			opened := time.Now().Add(readState(t, store).OpenLeft - openTimeout)
			time.Sleep(time.Until(opened.Add(time.Second)))
			lost := time.Now()
			tc.lose(s)
			end := opened.Add(openTimeout - 200*time.Millisecond)
			time.Sleep(time.Until(end))
			state := readState(t, store)
			mu.Lock()
			reached := 0
			for _, at := range admitted {
				if !at.Before(lost) && at.Before(end) {
					reached++
				}
			}
			mu.Unlock()
			t.Logf("%s 1 s after the fleet opened: %d calls reached the failing dependency before the open timeout's end; Redis then holds %v",
				tc.name, reached, state.State)
			if n := reached; n != 0 {
				t.Errorf("%d calls reached the failing dependency while the fleet was OPEN, want 0", n)
			}
			if left := time.Until(opened.Add(openTimeout)); left > 50*time.Millisecond &&
				(state.State != breaker.StateOpen || state.OpenLeft > left+50*time.Millisecond) {
				t.Errorf("Redis holds %+v %v before the open timeout's end, want OPEN again, until then", state, left)
			}
		})
	}
}

// readState returns the fleet's state of "svc:breaker"'s key "" as a replica that knows
// nothing reads it.
func readState(t *testing.T, store fleet.Store) fleet.KeyState {
	t.Helper()
	x := &fleet.Exchange{Group: "svc:breaker", Replica: "reader", Window: fleet.DefaultFleetWindow, OpenTimeout: time.Second,
		Keys: []fleet.Key{{}}}
	if err := store.Exchange(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	return x.Keys[0].State
}
