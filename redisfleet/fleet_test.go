package redisfleet

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// groups returns n fleet breaker groups of replicas sharing store under cfg, closed at the
// end of the test.
func groups(t *testing.T, n int, store fleet.Store, cfg fleet.BreakerConfig) []*fleet.BreakerGroup {
	t.Helper()
	cfg.Fleet.Store = store
	if cfg.Fleet.Name == "" {
		cfg.Fleet.Name = "svc"
	}
	gs := make([]*fleet.BreakerGroup, n)
	for i := range gs {
		c := cfg
		c.Fleet.Replica = replicaName(i)
		g, err := fleet.NewBreakerGroup(c)
		if err != nil {
			t.Fatal(err)
		}
		gs[i] = g
		t.Cleanup(func() { g.Close() })
	}
	return gs
}

func call(b retry.CircuitBreaker, r retry.Result) bool {
	token, ok, _ := b.Allow()
	if ok {
		b.Done(token, r)
	}
	return ok
}

// Test 1 of issue 10: Redis commands grow with sync ticks, not with calls. 10 replicas make
// 100,000 calls in 5 s (default interval, 500 ms): each sends one script call per tick.
func TestCommandsGrowWithTicksNotCalls(t *testing.T) {
	s := redistest.Start(t)
	gs := groups(t, 10, New(fleetClient(t, s), ""), fleet.BreakerConfig{})
	s.ResetStats()
	const run, perReplica = 5 * time.Second, 10_000
	start := time.Now()
	var wg sync.WaitGroup
	for _, g := range gs {
		wg.Go(func() {
			b := g.Breaker("https://api.example:443")
			for i := range perReplica {
				call(b, retry.ResultSuccess)
				if i%100 == 99 { // spread the calls over the run: 100 calls every 50 ms
					time.Sleep(time.Until(start.Add(run * time.Duration(i+1) / perReplica)))
				}
			}
		})
	}
	wg.Wait()
	calls := s.CommandCalls()
	scripts := calls["evalsha"] + calls["eval"]
	// 5 s at ticks of 400 to 600 ms: 8 to 13 ticks per replica; 10 replicas.
	t.Logf("%d calls in %v: %d script calls (evalsha %d, eval %d); commandstats %v",
		10*perReplica, time.Since(start).Round(time.Millisecond), scripts, calls["evalsha"], calls["eval"], calls)
	// At least 5 ticks each even on a loaded machine, at most 13 (and a flush at Close).
	if scripts < 10*5 || scripts > 10*14 {
		t.Errorf("%d script calls for 10 replicas in 5 s, want one per tick (50 to 140)", scripts)
	}
	for name, n := range calls {
		switch name {
		case "evalsha", "eval", "info", "config|resetstat", "hello", "ping",
			"time", "zadd", "zremrangebyscore", "zrangebyscore", "zrem", "pexpire", "zcard",
			"hget", "hset", "hdel", "hincrby", "hmget", "hgetall", "del":
			// the script's own commands, counted per script call
		default:
			t.Errorf("unexpected command %s (%d calls)", name, n)
		}
	}
}

// Test 2 of issue 10: Redis killed mid-run: calls go on without waiting, local limits hold,
// records say stale; Redis restarted: the fleet view comes back by itself. Redis frozen
// (SIGSTOP): no call waits on it.
func TestRedisKilledThenFrozen(t *testing.T) {
	s := redistest.Start(t)
	// An exchange may take up to 1 s: a call that waited on Redis would take that long.
	cfg := fleet.BreakerConfig{Fleet: fleet.Config{Interval: 100 * time.Millisecond, Timeout: time.Second},
		Breaker: breaker.Config{ConsecutiveFailures: 3, OpenTimeout: time.Minute}}
	b := groups(t, 1, New(fleetClient(t, s), ""), cfg)[0].Get("")
	var slowest atomic.Int64 // the longest call, ns
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() { // calls all along: successes, which never trip the local breaker
		for !stop.Load() {
			t0 := time.Now()
			call(b, retry.ResultSuccess)
			if d := int64(time.Since(t0)); d > slowest.Load() {
				slowest.Store(d)
			}
			time.Sleep(time.Millisecond)
		}
	})
	defer func() { stop.Store(true); wg.Wait() }()
	waitFor(t, "a fresh view", func() bool { _, ok, stale := b.FleetStatus(time.Now()); return ok && !stale })

	s.Signal(syscall.SIGKILL)
	waitFor(t, "a stale view after SIGKILL", func() bool { _, _, stale := b.FleetStatus(time.Now()); return stale })
	var d retry.Decision
	p := &retry.Policy{MaxAttempts: 1, Breaker: b, OnDecision: func(_ context.Context, x retry.Decision) { d = x }}
	_ = retry.Do(context.Background(), p, func(context.Context) error { return nil })
	stale, hasStale := d.Attr("fleet_stale")
	age, hasAge := d.Attr("fleet_age_ms")
	if !hasStale || stale.Kind() != slog.KindBool || !stale.Bool() ||
		!hasAge || age.Kind() != slog.KindFloat64 || age.Float64() < 300 {
		record, _ := d.MarshalJSON()
		t.Errorf("record while Redis is dead: %s, want fleet_stale true and the last view's fleet_age_ms (at least 300)", record)
	}
	local := groups(t, 1, New(fleetClient(t, s), ""), cfg)[0].Get("") // a replica that never saw Redis
	for range 3 {
		call(local, retry.ResultFailure)
	}
	if call(local, retry.ResultSuccess) {
		t.Error("local breaker admitted a call after 3 failures with Redis dead: local limits must hold")
	}

	s.Restart() // same port
	waitFor(t, "the view back after the restart", func() bool { _, ok, stale := b.FleetStatus(time.Now()); return ok && !stale })

	s.Signal(syscall.SIGSTOP)
	waitFor(t, "a stale view with Redis frozen", func() bool { _, _, stale := b.FleetStatus(time.Now()); return stale })
	s.Signal(syscall.SIGCONT)
	waitFor(t, "the view back after SIGCONT", func() bool { _, ok, stale := b.FleetStatus(time.Now()); return ok && !stale })
	// A call that waited on Redis would take an exchange's timeout (1 s) or more.
	if d := time.Duration(slowest.Load()); d >= 500*time.Millisecond {
		t.Errorf("slowest call took %v: a call waited on Redis", d)
	}
	t.Logf("slowest call %v with Redis killed, restarted, frozen and resumed", time.Duration(slowest.Load()))
}

// waitFor polls cond every 10 ms for at most 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 5 s", what)
		}
	}
}

// Test 3 of issue 10: with 10 replicas, failures at one replica alone do not open the
// others; a fleet-wide outage opens every replica within two intervals. The fleet is
// healthy before replica 0 fails: the store holds 100 successes, told by every replica,
// before its first failure. From an empty window the rule could meet its 20 calls with
// replica 0's first batch of failures and a single other replica's batch of successes (a
// replica tells its counts once an interval, in no fixed order), so that the order of the
// first exchanges, not the failure rate, would decide.
func TestTenReplicasOutage(t *testing.T) {
	s := redistest.Start(t)
	const interval = 200 * time.Millisecond
	cfg := fleet.BreakerConfig{Fleet: fleet.Config{Interval: interval},
		// Local breakers that never trip here: an OPEN state is the fleet's.
		Breaker: breaker.Config{ConsecutiveFailures: 1000, OpenTimeout: time.Minute}, OpenRule: fleet.OpenRule{MinFleetCalls: 20, FleetWindow: 5 * time.Second}}
	gs := groups(t, 10, New(fleetClient(t, s), ""), cfg)
	const key = "https://api.example:443"
	for range 10 {
		for _, g := range gs {
			call(g.Breaker(key), retry.ResultSuccess)
		}
	}
	for _, g := range gs {
		if err := g.SyncNow(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for range 50 { // 1 s: replica 0 fails every call (at most 50 of 150 calls), the other nine succeed
		for i, g := range gs {
			r := retry.ResultSuccess
			if i == 0 {
				r = retry.ResultFailure
			}
			call(g.Breaker(key), r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, g := range gs[1:] {
		if st := g.Get(key).State(); st != breaker.StateClosed {
			t.Errorf("replica %d is %v after replica 0's failures alone, want CLOSED", i+1, st)
		}
	}
	// The outage: every replica fails 3 calls; the fleet's rule (20 calls, half failed) is
	// met once seven of them have told the store.
	other := "https://down.example:443"
	for _, g := range gs {
		for range 3 {
			call(g.Breaker(other), retry.ResultFailure)
		}
	}
	start := time.Now()
	var firstOpen time.Duration
	for {
		open := 0
		for _, g := range gs {
			if g.Get(other).State() == breaker.StateOpen {
				open++
			}
		}
		if open > 0 && firstOpen == 0 {
			firstOpen = time.Since(start)
		}
		if open == len(gs) {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("%d of 10 replicas see the fleet OPEN after 5 s", open)
		}
		time.Sleep(5 * time.Millisecond)
	}
	all := time.Since(start)
	t.Logf("fleet OPEN first seen after %v, by all 10 after %v (interval %v)", firstOpen, all, interval)
	// The rule is met at the ticks that carry the failures (within 1.2 intervals); every
	// replica learns at its next tick (1.2 more). Slack for a shared machine: 200 ms.
	if limit := 2*interval*12/10 + 200*time.Millisecond; all > limit {
		t.Errorf("all replicas OPEN after %v, want within two intervals (%v)", all, limit)
	}
}

// Test 4 of issue 10: exactly one half-open trial call across the fleet per open timeout.
func TestOneTrialPerOpenTimeout(t *testing.T) {
	s := redistest.Start(t)
	const openTimeout = time.Second
	cfg := fleet.BreakerConfig{Fleet: fleet.Config{Interval: 100 * time.Millisecond},
		Breaker: breaker.Config{ConsecutiveFailures: 3, OpenTimeout: openTimeout}, OpenRule: fleet.OpenRule{MinFleetCalls: 20, FleetWindow: 10 * time.Second}}
	gs := groups(t, 10, New(fleetClient(t, s), ""), cfg)
	var (
		mu     sync.Mutex
		trials []time.Duration
	)
	start := time.Now()
	var wg sync.WaitGroup
	for _, g := range gs {
		wg.Go(func() { // every replica calls every 5 ms for 3.6 s; the service is down
			b := g.Get("")
			for time.Since(start) < 3600*time.Millisecond {
				before := b.State()
				if call(b, retry.ResultFailure) && before == breaker.StateHalfOpen {
					mu.Lock()
					trials = append(trials, time.Since(start))
					mu.Unlock()
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	t.Logf("trial calls at %v (open timeout %v)", trials, openTimeout)
	// The fleet opens within a few ticks, then one trial a second: 2 or 3 in 3.6 s.
	if len(trials) < 2 || len(trials) > 3 {
		t.Fatalf("%d trial calls in 3.6 s: %v, want one per open timeout", len(trials), trials)
	}
	for i := 1; i < len(trials); i++ {
		if gap := trials[i] - trials[i-1]; gap < openTimeout*95/100 {
			t.Errorf("trials %d and %d only %v apart: two in one open timeout", i, i+1, gap)
		}
	}
}

// Test 5 of issue 10: the fleet's retries stay within ratio × requests + floor + slack, where
// ten local budgets would each allow their own floor and ratio. The fleet rule decides all
// along: every replica makes its first exchange before its first request (SyncNow, as a
// process does at start; a budget with no view yet is local), and a slow exchange on a
// loaded machine neither times out nor turns the view stale within the run (Timeout,
// StaleAfter: staleness has its own test, TestRedisKilledThenFrozen).
func TestFleetRetriesWithinRatio(t *testing.T) {
	s := redistest.Start(t)
	store := New(fleetClient(t, s), "")
	const ratio, floor, run = 0.1, 1.0, 3 * time.Second
	bs := make([]*fleet.Budget, 10)
	for i := range bs {
		b, err := fleet.NewBudget(fleet.BudgetConfig{
			Fleet: fleet.Config{Store: store, Name: "svc", Replica: replicaName(i), Interval: 100 * time.Millisecond,
				Timeout: time.Second, StaleAfter: 2 * run},
			Budget: budget.RatioConfig{Ratio: ratio, MinRetriesPerSecond: floor, Window: 2 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := b.SyncNow(context.Background()); err != nil {
			t.Fatal(err)
		}
		bs[i] = b
	}
	var requests, retries atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for _, b := range bs {
		wg.Go(func() { // 100 requests a second, every one failing and wanting a retry
			for time.Since(start) < run {
				b.Done(false, retry.ResultFailure)
				requests.Add(1)
				if b.AllowRetry() {
					b.Done(true, retry.ResultFailure)
					requests.Add(1)
					retries.Add(1)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	// The rule over the run: ratio × requests + floor × seconds; the slack is one interval's
	// worth of the fleet's allowance plus one retry per replica for rounding.
	limit := ratio*float64(requests.Load()) + floor*elapsed.Seconds()
	slack := limit*0.1/elapsed.Seconds() + 10
	t.Logf("%d retries for %d requests in %v: limit %.0f + slack %.0f", retries.Load(), requests.Load(), elapsed.Round(time.Millisecond), limit, slack)
	if float64(retries.Load()) > limit+slack {
		t.Errorf("%d retries, above %.0f + %.0f", retries.Load(), limit, slack)
	}
	if float64(retries.Load()) < limit/3 {
		t.Errorf("%d retries, the fleet did not use its budget (%.0f)", retries.Load(), limit)
	}
	for i, b := range bs {
		if st := b.Stats(); st.Stale {
			t.Errorf("replica %d: fleet view stale (%+v): its local budget decided", i, st)
		}
	}
}
