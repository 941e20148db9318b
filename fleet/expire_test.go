package fleet

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"
)

// MemoryStore forgets each part of a group when its time is up, as Redis forgets a key after
// its TTL (issue 35 item 2, the rule of Store): a replica's last report, the replicas and the
// counts one Window after the exchange that wrote them, grants GrantFor after, a breaker
// key's state OpenTimeout + TrialTimeout + Window after its last change; then the group
// itself. Each is still there at exactly its bound, gone a nanosecond later. Before, a
// replica's report and a state lived ten times the longer of the window and the open and
// trial timeouts.
func TestMemoryStoreForgetsEachPartAfterItsBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const window, open, trial, grantFor, budgetWindow = 2 * time.Second, time.Second, 3 * time.Second,
			1500 * time.Millisecond, 10 * time.Second
		m := new(MemoryStore)
		exchange := func(x Exchange) {
			t.Helper()
			if err := m.Exchange(t.Context(), &x); err != nil {
				t.Fatal(err)
			}
		}
		exchange(Exchange{Group: "svc:breaker", Replica: "a", Window: window, OpenTimeout: open, TrialTimeout: trial,
			Keys: []Key{{Name: "down", Counts: [2]int64{5, 5}, Unsent: [2]int64{5, 5}, Op: OpOpen}}})
		exchange(Exchange{Group: "svc:budget", Replica: "a", Window: budgetWindow,
			Budget: &BudgetRule{Ratio: 0.1, Floor: 10, MinReplicas: 1, GrantFor: grantFor},
			Keys:   []Key{{Name: "up", Counts: [2]int64{100, 0}, Unsent: [2]int64{100, 0}, Own: 100}}})
		start := time.Now()
		// parts lists what the store holds, one word a part.
		parts := func() []string {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.expire(time.Now())
			var p []string
			for name, g := range m.groups {
				if len(g.Replicas) > 0 {
					p = append(p, name+" replicas")
				}
				if len(g.Seen) > 0 {
					p = append(p, name+" seen")
				}
				for _, k := range g.Keys {
					if len(k.Buckets) > 0 {
						p = append(p, name+" counts")
					}
					if len(k.Grants) > 0 {
						p = append(p, name+" grants")
					}
					if !k.Record.Touched.IsZero() {
						p = append(p, name+" state")
					}
				}
			}
			return p
		}
		for _, c := range []struct {
			at    time.Duration
			parts []string
		}{
			{grantFor, []string{"svc:budget grants"}},
			{window, []string{"svc:breaker replicas", "svc:breaker seen", "svc:breaker counts"}},
			{open + trial + window, []string{"svc:breaker state"}},
			{budgetWindow, []string{"svc:budget replicas", "svc:budget seen", "svc:budget counts"}},
		} {
			time.Sleep(time.Until(start.Add(c.at)))
			held := parts()
			time.Sleep(time.Nanosecond)
			after := parts()
			for _, part := range c.parts {
				if !slices.Contains(held, part) {
					t.Errorf("at %v: %s gone (%v), want it kept until then", c.at, part, held)
				}
				if slices.Contains(after, part) {
					t.Errorf("at %v + 1ns: %s still held (%v)", c.at, part, after)
				}
			}
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if len(m.groups) != 0 {
			t.Errorf("%d groups left once every part's time is up", len(m.groups))
		}
	})
}

// However late an exchange is sent again (its reply lost), no window counts it twice: the
// record of a replica's last report lasts one Window, and by the time it is forgotten the
// first count has left the window (issue 35 item 2). A re-send within the window counts
// once; after it, the counts are in the window once, at the re-send.
func TestResentExchangeNeverCountedTwiceInAWindow(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		window := time.Duration(rapid.Int64Range(int64(MinFleetWindow), int64(10*time.Second)).Draw(rt, "window"))
		late := time.Duration(rapid.Int64Range(0, int64(3*window)).Draw(rt, "late"))
		counts := [2]int64{rapid.Int64Range(1, 1000).Draw(rt, "calls"), 0}
		counts[1] = rapid.Int64Range(0, counts[0]).Draw(rt, "failures")
		var got [2]int64
		synctest.Test(t, func(t *testing.T) {
			m := new(MemoryStore)
			x := Exchange{Group: "svc:breaker", Replica: "a", Window: window, OpenTimeout: time.Second,
				Keys: []Key{{Name: "k", Counts: counts, Unsent: counts}}}
			if err := m.Exchange(t.Context(), &x); err != nil {
				t.Fatal(err)
			}
			time.Sleep(late)
			if err := m.Exchange(t.Context(), &x); err != nil {
				t.Fatal(err)
			}
			got = x.Keys[0].Total
		})
		if got[0] > counts[0] || got[1] > counts[1] {
			rt.Fatalf("counts %v sent again %v later (window %v): the window holds %v", counts, late, window, got)
		}
		if late < window*9/10 && got != counts {
			rt.Fatalf("counts %v sent again %v later (window %v): the window holds %v, want them once", counts, late, window, got)
		}
	})
}
