package redisfleet

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// openFleet opens the group "svc:breaker"'s key "" for openTimeout, as another replica's
// rule would, and waits until every breaker sees it OPEN.
func openFleet(t *testing.T, store fleet.Store, openTimeout time.Duration, bs ...*fleet.Breaker) {
	t.Helper()
	x := &fleet.Exchange{Group: "svc:breaker", Replica: "opener", Window: fleet.DefaultFleetWindow, OpenTimeout: openTimeout,
		Keys: []fleet.Key{{Op: fleet.OpOpen}}}
	if err := store.Exchange(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every replica OPEN", func() bool {
		for _, b := range bs {
			if b.State() != breaker.StateOpen {
				return false
			}
		}
		return true
	})
}

// There is never more than one trial call in flight in the whole fleet, even when the trial
// call outlasts the open timeout (issue 24 item 2): with OpenTimeout 1 s, TrialTimeout 5 s
// and a dependency that hangs 2.5 s, three replicas calling every 10 ms make one trial call
// at a time. Before the fix, the election lasted the open timeout whatever the trial's, and
// the three replicas had three trial calls in flight at once (at +0.94, +1.98, +3.01 s).
func TestOneTrialInFlightFleetWide(t *testing.T) {
	s := redistest.Start(t)
	store := New(fleetClient(t, s), "")
	cfg := fleet.BreakerConfig{Fleet: fleet.Config{Interval: 100 * time.Millisecond},
		Breaker:  breaker.Config{ConsecutiveFailures: 1000, OpenTimeout: time.Second, TrialTimeout: 5 * time.Second},
		OpenRule: fleet.OpenRule{MinFleetCalls: 1 << 30}}
	gs := groups(t, 3, store, cfg)
	bs := []*fleet.Breaker{gs[0].Get(""), gs[1].Get(""), gs[2].Get("")}
	openFleet(t, store, time.Second, bs...)
	start := time.Now()
	var inFlight, most atomic.Int32
	var (
		mu     sync.Mutex
		trials []string
		starts []time.Duration
	)
	var callers, calls sync.WaitGroup
	for i, b := range bs {
		callers.Go(func() {
			for n := 0; n < 1000 && time.Since(start) < 5500*time.Millisecond; n++ {
				if token, ok, _ := b.Allow(); ok {
					now := inFlight.Add(1)
					for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
					}
					mu.Lock()
					trials = append(trials, fmt.Sprintf("r%d@+%.2fs", i, time.Since(start).Seconds()))
					starts = append(starts, time.Since(start))
					mu.Unlock()
					calls.Go(func() { // the dependency hangs 2.5 s, then fails
						time.Sleep(2500 * time.Millisecond)
						inFlight.Add(-1)
						b.Done(token, retry.ResultFailure)
					})
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	callers.Wait()
	calls.Wait()
	t.Logf("trial calls started %v; at most %d in flight at once", trials, most.Load())
	if most.Load() != 1 {
		t.Errorf("%d trial calls in flight at once, want 1", most.Load())
	}
	// The first at the open timeout's end, each next one once the last failed (2.5 s) and the
	// fleet's second OPEN ended: at about +1 s and +4.5 s.
	for i := 1; i < len(starts); i++ {
		if gap := starts[i] - starts[i-1]; gap < 3400*time.Millisecond {
			t.Errorf("trial calls %v: %v between two, want the hang and an open timeout (3.5 s)", trials, gap)
		}
	}
	if len(trials) == 0 {
		t.Error("no trial call in 5.5 s")
	}
}

// A trial result carries its election, and the store ignores a result of any other (issue 24
// item 2). Replica a's trial call hangs past TrialTimeout, so b is elected; a's late failure
// during b's trial does not reopen the fleet, and in a second round, a's late success 100 ms
// after b's failure does not close it. Before the fix, the first reopened the fleet and the
// second closed it, on every replica.
func TestLateTrialResultsIgnored(t *testing.T) {
	s := redistest.Start(t)
	store := New(fleetClient(t, s), "")
	const openTimeout, trialTimeout = 300 * time.Millisecond, 300 * time.Millisecond
	cfg := fleet.BreakerConfig{Fleet: fleet.Config{Interval: 50 * time.Millisecond},
		Breaker:  breaker.Config{ConsecutiveFailures: 1000, OpenTimeout: openTimeout, TrialTimeout: trialTimeout},
		OpenRule: fleet.OpenRule{MinFleetCalls: 1 << 30}}
	gs := groups(t, 3, store, cfg)
	a, b, watcher := gs[0].Get(""), gs[1].Get(""), gs[2].Get("")
	// trialOf calls through r every 5 ms until it is admitted (the fleet's trial call).
	trialOf := func(r *fleet.Breaker) uint64 {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if token, ok, _ := r.Allow(); ok {
				return token
			}
		}
		t.Fatal("no trial call admitted within 5 s")
		return 0
	}
	// fleetState returns the fleet's state as a replica that makes no call sees it, once r's
	// result has reached the store (r's SyncNow: its result goes first, or went already).
	fleetState := func(r *fleet.Breaker) breaker.State {
		t.Helper()
		for _, x := range []*fleet.Breaker{r, watcher} {
			if err := x.SyncNow(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return watcher.State()
	}
	for round, late := range []retry.Result{retry.ResultFailure, retry.ResultSuccess} {
		openFleet(t, store, openTimeout, a, b, watcher)
		ta := trialOf(a) // a's call hangs
		tb := trialOf(b) // elected once a's election ends, a's trial presumed lost
		var got []breaker.State
		if late == retry.ResultFailure {
			a.Done(ta, retry.ResultFailure) // during b's trial
			got = append(got, fleetState(a))
			b.Done(tb, retry.ResultFailure)
			got = append(got, fleetState(b))
		} else {
			b.Done(tb, retry.ResultFailure)
			if fleetState(b) != breaker.StateOpen {
				t.Fatal("b's failure did not reopen the fleet")
			}
			time.Sleep(100 * time.Millisecond)
			a.Done(ta, retry.ResultSuccess) // 100 ms after b's failure
			got = append(got, fleetState(a))
		}
		t.Logf("round %d: a's late %v: the fleet is then %v", round+1, late, got)
		want := []breaker.State{breaker.StateHalfOpen, breaker.StateOpen}
		if late == retry.ResultSuccess {
			want = []breaker.State{breaker.StateOpen}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("round %d: fleet %v after a's late %v, want %v", round+1, got, late, want)
		}
		time.Sleep(openTimeout) // the fleet HALF_OPEN again, elections free
		tc := trialOf(watcher)
		watcher.Done(tc, retry.ResultSuccess) // closes it for the next round
		waitFor(t, "the fleet CLOSED", func() bool { return a.State() == breaker.StateClosed && b.State() == breaker.StateClosed })
	}
}
