package redisfleet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/ratelimit"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// Every key lives no longer than its purpose needs, as the package doc's key layout says
// (issue 35 item 2): while 3 replicas share a breaker group (whose fleet opens), a budget
// group and a rate group, each key's PTTL is within its bound at every look; once they have all stopped, every
// key is still bounded so, and none is left without a TTL. Before, each replica's seen: key
// and the state hash lived ten times the longer of the window and the open and trial
// timeouts (15 minutes with the defaults; 5 s here), the replicas' set two windows and the
// grants two grant lives and a window. A rate group's keys (issue 33) are bounded so too: its
// views a window after their reset, its demands StaleAfter.
func TestEveryKeyLivesAsLongAsItsPurpose(t *testing.T) {
	s := redistest.Start(t)
	c := fleetClient(t, s)
	store := New(c, "")
	const (
		interval      = 50 * time.Millisecond
		grantFor      = 3 * interval // fleet.Config.StaleAfter's default
		breakerWindow = 400 * time.Millisecond
		openTimeout   = 200 * time.Millisecond
		trialTimeout  = 100 * time.Millisecond
		budgetWindow  = time.Second
		rateWindow    = time.Second
	)
	fc := fleet.Config{Store: store, Name: "svc", Interval: interval}
	bcfg := fleet.BreakerConfig{Fleet: fc, Breaker: breaker.Config{ConsecutiveFailures: 1000, OpenTimeout: openTimeout,
		TrialTimeout: trialTimeout}, OpenRule: fleet.OpenRule{MinFleetCalls: 10, FleetWindow: breakerWindow}}
	ucfg := fleet.BudgetConfig{Fleet: fc, Budget: budget.RatioConfig{Window: budgetWindow}}
	rcfg := fleet.RateGateConfig{Fleet: fc}
	// bound is the documented TTL of key: its longest life after the exchange that wrote it.
	bound := func(key string) time.Duration {
		group, kind, ok := strings.Cut(key, "}:")
		kind, _, _ = strings.Cut(kind, ":")
		switch {
		case !ok:
		case group == "{svc:breaker" && (kind == "r" || kind == "seen" || kind == "c"):
			return breakerWindow
		case group == "{svc:breaker" && kind == "st":
			return openTimeout + trialTimeout + breakerWindow
		case group == "{svc:budget" && (kind == "r" || kind == "seen" || kind == "c"):
			return budgetWindow
		case group == "{svc:budget" && (kind == "g" || kind == "ge"):
			return grantFor
		case group == "{svc:rate" && kind == "q": // a window after the reset (here within a window)
			return 2 * rateWindow
		case group == "{svc:rate" && kind == "d":
			return grantFor // the parts' share-for: StaleAfter
		}
		t.Fatalf("key %q is not in the documented key layout", key)
		return 0
	}
	seen := map[string]bool{} // the kinds of key looked at
	check := func(when string) {
		t.Helper()
		ctx := context.Background()
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			ttl, err := c.PTTL(ctx, k).Result()
			if err == redis.Nil || ttl == -2*time.Nanosecond { // gone since KEYS
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if b := bound(k); ttl <= 0 || ttl > b {
				t.Errorf("%s: key %q has TTL %v, want within (0, %v]", when, k, ttl, b)
			}
			kind, _, _ := strings.Cut(k[strings.Index(k, "}:")+2:], ":")
			seen[k[:strings.Index(k, "}")]+" "+kind] = true
		}
	}

	var breakers []*fleet.BreakerGroup
	var budgets []*fleet.BudgetGroup
	var rates []*fleet.RateGateGroup
	for i := range 3 {
		bc, uc, rc := bcfg, ucfg, rcfg
		bc.Fleet.Replica, uc.Fleet.Replica, rc.Fleet.Replica = replicaName(i), replicaName(i), replicaName(i)
		r, err := fleet.NewRateGateGroup(rc)
		if err != nil {
			t.Fatal(err)
		}
		rates = append(rates, r)
		g, err := fleet.NewBreakerGroup(bc)
		if err != nil {
			t.Fatal(err)
		}
		u, err := fleet.NewBudgetGroup(uc)
		if err != nil {
			t.Fatal(err)
		}
		breakers, budgets = append(breakers, g), append(budgets, u)
	}
	closeAll := func() {
		for i := range breakers {
			breakers[i].Close()
			budgets[i].Close()
			rates[i].Close()
		}
	}
	defer closeAll()
	// 1 s of traffic: "down" fails until the fleet opens it, "up" succeeds; every request
	// is counted by the budgets, and some retried.
	opened := false
	for start := time.Now(); time.Since(start) < time.Second; {
		for i := range breakers {
			call(breakers[i].Breaker("https://down:443"), retry.ResultFailure)
			call(breakers[i].Breaker("https://up:443"), retry.ResultSuccess)
			b := budgets[i].Budget("https://up:443")
			b.Done(false, retry.ResultFailure)
			if b.AllowRetry() {
				b.Done(true, retry.ResultSuccess)
			}
			opened = opened || breakers[i].Get("https://down:443").State() != breaker.StateClosed
			gate, now := rates[i].Gate("https://up:443"), time.Now()
			reset := rateWindow - time.Duration(now.UnixNano())%rateWindow
			gate.Observe(now, []ratelimit.Reading{{Quota: "requests", Limit: 1000, Remaining: 900, Reset: reset, Window: rateWindow}})
			_, token := gate.Reserve(now, now)
			gate.Done(token, now, retry.ResultThrottled, 300*time.Millisecond) // a hold
		}
		check("while the replicas run")
		time.Sleep(interval)
	}
	if !opened {
		t.Fatal("the fleet never opened https://down:443: the test needs its state record")
	}
	closeAll()
	check("once every replica has stopped")
	for _, want := range []string{"{svc:breaker r", "{svc:breaker st", "{svc:breaker seen", "{svc:breaker c",
		"{svc:budget r", "{svc:budget seen", "{svc:budget c", "{svc:budget g", "{svc:budget ge", "{svc:rate q", "{svc:rate d"} {
		if !seen[want] {
			t.Errorf("no key of kind %q was looked at; looked at %v", want, seen)
		}
	}
}
