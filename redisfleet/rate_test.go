package redisfleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/ratelimit"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// describeRate writes the parts of a rate group key's answer both stores must agree on:
// the part, the hold and the quotas' resets within 10 ms (Redis counts milliseconds),
// whether the store has shared the key for long, the quotas by name.
func describeRate(x *fleet.Exchange) string {
	k := x.Keys[0]
	s := fmt.Sprintf("replicas %d part [%.4f, %.4f) hold %v shared %v:", x.Replicas, k.Part.From, k.Part.To,
		k.Hold.Round(10*time.Millisecond), k.Shared >= 50*time.Millisecond)
	quotas := slices.Clone(k.Quotas)
	slices.SortFunc(quotas, func(a, b fleet.Quota) int { return strings.Compare(a.Name, b.Name) })
	for _, q := range quotas {
		s += fmt.Sprintf(" %s %d/%v %d reset %v", q.Name, q.Limit, q.Window, q.Remaining, q.ResetIn.Round(10*time.Millisecond))
	}
	return s
}

// The rate script's rules are the in-memory store's (issue 33): views merged by
// fleet.MergeQuota (a lower remaining in the same window, the next window; not a window
// that has passed), the longest hold, the parts by each replica's demand, a final exchange
// ending a replica's demand, and a store that lost its data rebuilt by the next exchanges,
// its young parts said so (Shared).
func TestScriptFollowsMemoryStoreRateRules(t *testing.T) {
	tw := newTwin(t)
	rule := &fleet.RateRule{MinReplicas: 1, ShareFor: 2 * time.Second}
	quota := func(name string, remaining int64, reset time.Duration) fleet.Quota {
		return fleet.Quota{Name: name, Limit: 10, Window: time.Second, Remaining: remaining, ResetIn: reset}
	}
	ex := func(replica string, own int64, hold time.Duration, final bool, quotas ...fleet.Quota) fleet.Exchange {
		return fleet.Exchange{Group: "svc:rate", Replica: replica, Window: 2 * time.Second, Rate: rule, Final: final,
			Keys: []fleet.Key{{Name: "https://api:443", Own: own, Hold: hold, Quotas: quotas}}}
	}
	for _, s := range []struct {
		x     fleet.Exchange
		want  string
		sleep time.Duration // before the exchange
	}{
		{ex("a", 3, 0, false, quota("requests", 7, 800*time.Millisecond)),
			"replicas 1 part [0.0000, 1.0000) hold 0s shared false: requests 10/1s 7 reset 800ms", 0},
		{ex("b", 0, 0, false, quota("requests", 4, 790*time.Millisecond), fleet.Quota{Name: "tokens", Limit: 1000, Window: time.Minute, Remaining: -1}),
			"replicas 2 part [0.8000, 1.0000) hold 0s shared true: requests 10/1s 4 reset 790ms tokens 1000/1m0s -1 reset 0s", 100 * time.Millisecond},
		{ex("a", 3, 2*time.Second, false, quota("requests", 6, 700*time.Millisecond)),
			"replicas 2 part [0.0000, 0.8000) hold 2s shared true: requests 10/1s 4 reset 790ms tokens 1000/1m0s -1 reset 0s", 0},
		{ex("b", 0, 0, false, quota("requests", 9, 1700*time.Millisecond)), // the next window
			"replicas 2 part [0.8000, 1.0000) hold 2s shared true: requests 10/1s 9 reset 1.7s tokens 1000/1m0s -1 reset 0s", 0},
		{ex("c", 0, 0, false, quota("requests", 0, 100*time.Millisecond)), // a window that has passed
			"replicas 3 part [0.8333, 1.0000) hold 2s shared true: requests 10/1s 9 reset 1.7s tokens 1000/1m0s -1 reset 0s", 0},
		{ex("a", 3, 0, true), // a's final exchange: its demand ends (its part is one without demand)
			"replicas 2 part [0.0000, 0.3333) hold 2s shared true: requests 10/1s 9 reset 1.7s tokens 1000/1m0s -1 reset 0s", 0},
		{ex("b", 0, 0, false),
			"replicas 2 part [0.0000, 0.5000) hold 2s shared true: requests 10/1s 9 reset 1.7s tokens 1000/1m0s -1 reset 0s", 0},
	} {
		time.Sleep(s.sleep)
		tw.runRate(s.x, s.want)
	}
	tw.forget()
	tw.runRate(ex("b", 5, 0, false, quota("requests", 3, 500*time.Millisecond)),
		"replicas 1 part [0.0000, 1.0000) hold 0s shared false: requests 10/1s 3 reset 500ms")
}

// runRate makes x's exchange on both stores and checks that they answer want.
func (tw *twin) runRate(x fleet.Exchange, want string) {
	tw.t.Helper()
	var got [2]string
	for i, store := range tw.stores {
		y := x
		y.Keys = append([]fleet.Key(nil), x.Keys...)
		y.Keys[0].Quotas = slices.Clone(x.Keys[0].Quotas)
		if err := store.Exchange(context.Background(), &y); err != nil {
			tw.t.Fatal(err)
		}
		got[i] = describeRate(&y)
	}
	if got[0] != got[1] || got[1] != want {
		tw.t.Errorf("%s: Redis %s\nmemory %s\nwant   %s", x.Replica, got[0], got[1], want)
	}
}

// rateGroups returns a rate gate group on store for each replica named, closed at the
// test's end.
func rateGroups(t *testing.T, store fleet.Store, cfg fleet.RateGateConfig, replicas ...string) []*fleet.RateGateGroup {
	t.Helper()
	cfg.Fleet.Store, cfg.Fleet.Name = store, "api-key"
	gs := make([]*fleet.RateGateGroup, len(replicas))
	for i := range gs {
		c := cfg
		c.Fleet.Replica = replicas[i]
		g, err := fleet.NewRateGateGroup(c)
		if err != nil {
			t.Fatal(err)
		}
		gs[i] = g
		t.Cleanup(func() { g.Close() })
	}
	return gs
}

// knowsLimit reports whether g's gate of key knows of a limit: its reservation holds a
// token (a gate that knows of none admits with token 0). It gives the reservation back.
func knowsLimit(g *fleet.RateGateGroup, key string) bool {
	now := time.Now()
	_, token := g.Gate(key).Reserve(now, now)
	g.Gate(key).Cancel(token, now)
	return token != 0
}

// Issue 33, faults: with Redis killed, frozen (SIGSTOP) or flushed, every replica's gate
// goes on deciding at once with its last part, and once Redis answers again the fleet's view
// is back within two ticks: a replica that starts then learns the quota that the others
// read before the fault, and the parts tile the quota again.
func TestRateGateThroughRedisFaults(t *testing.T) {
	const key, interval = "https://api:443", 100 * time.Millisecond
	for _, fault := range []string{"killed", "frozen", "flushed"} {
		t.Run(fault, func(t *testing.T) {
			s := redistest.Start(t)
			store := New(fleetClient(t, s), "")
			cfg := fleet.RateGateConfig{Fleet: fleet.Config{Interval: interval}}
			gs := rateGroups(t, store, cfg, "a", "b", "c")
			now := time.Now()
			gs[0].Gate(key).Observe(now, []ratelimit.Reading{{Quota: "requests", Limit: 100, Remaining: 60, Reset: time.Minute, Window: time.Minute}})
			waitFor(t, "the quota at every replica", func() bool { return knowsLimit(gs[1], key) && knowsLimit(gs[2], key) })
			waitFor(t, "parts of a third", func() bool { return gs[2].Gate(key).Part().To-gs[2].Gate(key).Part().From < 0.34 })
			before := gs[1].Gate(key).Part()
			switch fault {
			case "killed":
				s.Signal(syscall.SIGKILL)
			case "frozen":
				s.Signal(syscall.SIGSTOP)
			case "flushed":
				s.Do("FLUSHALL")
			}
			time.Sleep(5 * interval)
			start := time.Now()
			for range 100 {
				knowsLimit(gs[1], key)
			}
			if p := gs[1].Gate(key).Part(); fault != "flushed" && p != before {
				t.Errorf("Redis %s: part %+v, want the last one %+v kept", fault, p, before)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("Redis %s: 100 reservations took %v", fault, d)
			}
			switch fault {
			case "killed":
				s.Restart()
			case "frozen":
				s.Signal(syscall.SIGCONT)
			}
			back := time.Now()
			late := rateGroups(t, store, cfg, "d")[0]
			for !knowsLimit(late, key) && time.Since(back) < 5*time.Second {
				time.Sleep(time.Millisecond)
			}
			if d := time.Since(back); d > 2*interval*6/5+50*time.Millisecond {
				t.Errorf("Redis %s, back: a replica starting then learnt the quota after %v, want within two ticks", fault, d)
			}
			waitFor(t, "parts of a quarter", func() bool {
				var sum float64
				for _, g := range append(gs, late) {
					p := g.Gate(key).Part()
					sum += p.To - p.From
				}
				return sum > 0.99 && sum < 1.01 && late.Gate(key).Part().To-late.Gate(key).Part().From < 0.26
			})
		})
	}
}
