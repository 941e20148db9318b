package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/breaker"
	"pgregory.net/rapid"
)

// A MemoryStore kept in JSON between its exchanges (MarshalJSON, then UnmarshalJSON into a
// new store, as processes sharing a file do: issue 33, the command line under a Redis
// outage) answers every exchange as the store kept in memory does: breaker, budget and rate
// groups, any replicas, operations and times.
func TestMemoryStoreJSONKeepsEveryAnswer(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		type step struct {
			x     Exchange
			sleep time.Duration
		}
		var steps []step
		for range rapid.IntRange(1, 30).Draw(rt, "exchanges") {
			x := Exchange{
				Replica:      rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "replica"),
				Window:       time.Duration(rapid.IntRange(1, 20).Draw(rt, "window")) * 500 * time.Millisecond,
				OpenTimeout:  time.Second,
				TrialTimeout: 2 * time.Second,
				Final:        rapid.IntRange(0, 9).Draw(rt, "final") == 0,
			}
			kind := rapid.IntRange(0, 2).Draw(rt, "kind")
			for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"k", "l"}), 1, 2, rapid.ID).Draw(rt, "keys") {
				calls := rapid.Int64Range(0, 100).Draw(rt, "calls")
				k := Key{Name: name, Counts: [2]int64{calls, rapid.Int64Range(0, calls).Draw(rt, "failures")}, Own: rapid.Int64Range(0, 50).Draw(rt, "own")}
				k.Unsent = k.Counts
				switch kind {
				case 0:
					x.Group = "svc:breaker"
					k.Op = Op(rapid.IntRange(0, int(OpTrialRelease)).Draw(rt, "op"))
					k.Trial = rapid.Int64Range(0, 3).Draw(rt, "trial")
					if rapid.Bool().Draw(rt, "known") {
						k.Known = KeyState{State: breaker.StateOpen, Changed: rapid.Int64Range(1, 5).Draw(rt, "changed"), OpenLeft: time.Second}
					}
				case 1:
					x.Group, x.Budget = "svc:budget", &BudgetRule{Ratio: 0.1, Floor: 10, MinReplicas: 1, GrantFor: time.Second}
					k.Draw = rapid.Float64Range(0, 5).Draw(rt, "draw")
				case 2:
					x.Group, x.Rate = "svc:rate", &RateRule{MinReplicas: 1, ShareFor: 2 * time.Second}
					if rapid.Bool().Draw(rt, "quota") {
						k.Quotas = []Quota{{Name: "requests", Limit: 20, Window: time.Second,
							Remaining: rapid.Int64Range(-1, 20).Draw(rt, "remaining"),
							ResetIn:   time.Duration(rapid.Int64Range(0, 1000).Draw(rt, "reset")) * time.Millisecond}}
					}
					k.Hold = time.Duration(rapid.Int64Range(0, 2).Draw(rt, "hold")) * 300 * time.Millisecond
				}
				x.Keys = append(x.Keys, k)
			}
			steps = append(steps, step{x, time.Duration(rapid.IntRange(0, 8).Draw(rt, "sleep")) * 250 * time.Millisecond})
		}
		var mismatch string
		synctest.Test(t, func(t *testing.T) {
			kept, filed := new(MemoryStore), new(MemoryStore)
			for i, s := range steps {
				want, got := clone(s.x), clone(s.x)
				if err := kept.Exchange(t.Context(), &want); err != nil {
					t.Fatal(err)
				}
				data, err := filed.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				filed = new(MemoryStore)
				if err := filed.UnmarshalJSON(data); err != nil {
					t.Fatalf("%v\n%s", err, data)
				}
				if err := filed.Exchange(t.Context(), &got); err != nil {
					t.Fatal(err)
				}
				if a, b := answer(&want), answer(&got); a != b {
					mismatch = fmt.Sprintf("exchange %d: kept in memory\n%s\nkept in JSON\n%s", i, a, b)
					return
				}
				time.Sleep(s.sleep)
			}
		})
		if mismatch != "" {
			rt.Fatal(mismatch)
		}
	})
}

// clone returns x with keys and quotas of its own.
func clone(x Exchange) Exchange {
	x.Keys = slices.Clone(x.Keys)
	for i := range x.Keys {
		x.Keys[i].Quotas = slices.Clone(x.Keys[i].Quotas)
	}
	return x
}

// answer prints an exchange's outputs, its quotas and opened keys in name order (a store
// lists them from a map).
func answer(x *Exchange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "replicas %d\n", x.Replicas)
	for _, k := range x.Keys {
		slices.SortFunc(k.Quotas, func(p, q Quota) int { return strings.Compare(p.Name, q.Name) })
		fmt.Fprintf(&b, "%s: total %v state %+v won %v grant %d part %+v shared %v hold %v quotas %+v\n",
			k.Name, k.Total, k.State, k.TrialWon, k.Grant, k.Part, k.Shared, k.Hold, k.Quotas)
	}
	slices.SortFunc(x.Opened, func(p, q Key) int { return strings.Compare(p.Name, q.Name) })
	for _, k := range x.Opened {
		fmt.Fprintf(&b, "opened %s %+v\n", k.Name, k.State)
	}
	return b.String()
}

// UnmarshalJSON refuses what MarshalJSON cannot have written, naming what is wrong, and
// leaves the store as it was; a form with nulls where maps or entries belong gives a store
// whose exchanges work.
func TestMemoryStoreUnmarshalJSON(t *testing.T) {
	m := new(MemoryStore)
	x := Exchange{Group: "svc:breaker", Replica: "a", Window: time.Second, OpenTimeout: time.Second,
		Keys: []Key{{Name: "k", Op: OpOpen}}}
	if err := m.Exchange(t.Context(), &x); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{``, "fleet: memory store data: unexpected end of JSON input"},
		{`{"format":1,"groups":[]}`, "fleet: memory store data: json: cannot unmarshal array into Go struct field memoryJSON.groups of type map[string]*fleet.memoryGroup"},
		{`{"groups":{}}`, "fleet: memory store data of format 0: want format 1"},
		{`{"format":2,"groups":{}}`, "fleet: memory store data of format 2: want format 1"},
	} {
		err := m.UnmarshalJSON([]byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("UnmarshalJSON(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	if x.Keys[0].Op = OpNone; m.Exchange(t.Context(), &x) != nil || x.Keys[0].State.State != breaker.StateOpen {
		t.Errorf("after refused forms, the key is %v, want it OPEN still", x.Keys[0].State.State)
	}
	nulls := `{"format":1,"groups":{"svc:breaker":{"Replicas":null,"Seen":{"a":null,"b":{"Counts":null}},"Keys":{"k":null,"l":{"Buckets":null,"Grants":null,"Rate":{"Quotas":null,"Demands":{}}}}},"gone":null}}`
	if err := m.UnmarshalJSON([]byte(nulls)); err != nil {
		t.Fatal(err)
	}
	for _, x := range []Exchange{
		{Group: "svc:breaker", Replica: "b", Window: time.Second, OpenTimeout: time.Second, Keys: []Key{{Name: "l", Counts: [2]int64{1, 1}, Unsent: [2]int64{1, 1}}}},
		{Group: "svc:breaker", Replica: "b", Window: time.Second, Budget: &BudgetRule{Ratio: 0.1, MinReplicas: 1, GrantFor: time.Second}, Keys: []Key{{Name: "l", Draw: 1}}},
		{Group: "svc:breaker", Replica: "b", Window: time.Second, Rate: &RateRule{MinReplicas: 1, ShareFor: time.Second}, Keys: []Key{{Name: "l", Own: 1,
			Quotas: []Quota{{Name: "requests", Limit: 5, Window: time.Second, Remaining: 1, ResetIn: time.Second}}}}},
	} {
		if err := m.Exchange(t.Context(), &x); err != nil {
			t.Fatal(err)
		}
	}
}

// Whatever a file holds, UnmarshalJSON returns an error or a store whose exchanges of
// every kind work, and whose form reads back.
func FuzzMemoryStoreUnmarshalJSON(f *testing.F) {
	m := new(MemoryStore)
	for _, x := range fuzzExchanges() {
		m.Exchange(context.Background(), &x)
	}
	form, _ := m.MarshalJSON()
	f.Add(form)
	f.Add([]byte(`{"format":1,"groups":{"svc:breaker":{"Keys":{"k":{"Rate":{"Quotas":{"requests":{"Limit":-1,"Window":-5}}}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := new(MemoryStore)
		if m.UnmarshalJSON(data) != nil {
			return
		}
		for _, x := range fuzzExchanges() {
			if err := m.Exchange(context.Background(), &x); err != nil {
				t.Fatal(err)
			}
		}
		form, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := new(MemoryStore).UnmarshalJSON(form); err != nil {
			t.Fatalf("%v\n%s", err, form)
		}
	})
}

// fuzzExchanges is an exchange of each kind, on the groups and keys the fuzz's seeds name.
func fuzzExchanges() []Exchange {
	keys := func() []Key {
		return []Key{{Name: "k", Counts: [2]int64{3, 1}, Unsent: [2]int64{3, 1}, Own: 2, Draw: 1, Op: OpOpen,
			Quotas: []Quota{{Name: "requests", Limit: 5, Window: time.Second, Remaining: 1, ResetIn: time.Second}}}}
	}
	return []Exchange{
		{Group: "svc:breaker", Replica: "a", Window: time.Second, OpenTimeout: time.Second, Keys: keys()},
		{Group: "svc:breaker", Replica: "a", Window: time.Second, Budget: &BudgetRule{Ratio: 0.1, MinReplicas: 1, GrantFor: time.Second}, Keys: keys()},
		{Group: "svc:breaker", Replica: "a", Window: time.Second, Rate: &RateRule{MinReplicas: 1, ShareFor: time.Second}, Keys: keys()},
	}
}
