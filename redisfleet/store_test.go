package redisfleet

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// twin runs every exchange on the Redis store and on fleet.MemoryStore, the reference, at
// the same moments, and fails the test where their answers differ: the script follows the
// same rules. Times left are compared within tolerance (Redis counts milliseconds), the
// stores' own ids (Changed, Trial) by whether they are set; an Op's Trial names an election
// each store made itself.
type twin struct {
	t      *testing.T
	server *redistest.Server
	stores [2]fleet.Store // Redis, memory
	memory *fleet.MemoryStore
	// the elections and states each store answered, by the name a step gave them
	trials map[string][2]int64
	known  map[string][2]fleet.KeyState
}

func newTwin(t *testing.T) *twin {
	s := redistest.Start(t)
	m := new(fleet.MemoryStore)
	return &twin{t: t, server: s, stores: [2]fleet.Store{New(fleetClient(t, s), ""), m}, memory: m,
		trials: map[string][2]int64{}, known: map[string][2]fleet.KeyState{}}
}

// step is one exchange of the twin test.
type step struct {
	x          fleet.Exchange
	trial      string // the election an Op refers to (Key.Trial), by name
	known      string // the state the replica knows (Key.Known), by name
	saveTrial  string // names the election this exchange wins
	saveState  string // names the state this exchange answers
	want       string // the first key's answer, as describe writes it
	wantOpened string // Opened: "NAME=STATE " each, "none" for none, "" for no check
}

// run makes the step's exchange on both stores and checks their answers.
func (tw *twin) run(s step) {
	tw.t.Helper()
	var got [2]string
	var opened [2]string
	for i, store := range tw.stores {
		x := s.x
		x.Keys = append([]fleet.Key(nil), s.x.Keys...)
		if len(x.Keys) > 0 {
			if s.trial != "" {
				x.Keys[0].Trial = tw.trials[s.trial][i]
			}
			if s.known != "" {
				x.Keys[0].Known = tw.known[s.known][i]
			}
		}
		if err := store.Exchange(context.Background(), &x); err != nil {
			tw.t.Fatal(err)
		}
		if len(x.Keys) > 0 {
			k := x.Keys[0]
			got[i] = describe(k)
			if s.saveTrial != "" {
				v := tw.trials[s.saveTrial]
				v[i] = k.State.Trial
				tw.trials[s.saveTrial] = v
			}
			if s.saveState != "" {
				v := tw.known[s.saveState]
				v[i] = k.State
				tw.known[s.saveState] = v
			}
			if s.trial != "" && k.State.Trial != 0 && k.State.Trial == tw.trials[s.trial][i] {
				got[i] += " (its election)"
			}
		}
		for _, o := range x.Opened {
			opened[i] += o.Name + "=" + o.State.State.String() + " "
		}
	}
	if got[0] != got[1] {
		tw.t.Errorf("%s: Redis %s, memory %s", s.x.Replica, got[0], got[1])
	}
	if s.want != "" && got[1] != s.want {
		tw.t.Errorf("%s: got %s, want %s", s.x.Replica, got[1], s.want)
	}
	if s.wantOpened == "none" {
		s.wantOpened = ""
	} else if s.wantOpened == "" {
		return
	}
	if opened[0] != s.wantOpened || opened[1] != s.wantOpened {
		tw.t.Errorf("%s: opened Redis %q, memory %q, want %q", s.x.Replica, opened[0], opened[1], s.wantOpened)
	}
}

// describe writes the parts of a key's answer both stores must agree on.
func describe(k fleet.Key) string {
	s := fmt.Sprintf("total %v %v", k.Total, k.State.State)
	if k.State.Changed != 0 {
		s += " changed"
	}
	if k.State.OpenLeft > 0 {
		s += fmt.Sprintf(" open %v", k.State.OpenLeft.Round(100*time.Millisecond))
	}
	if k.State.Trial != 0 {
		s += fmt.Sprintf(" election %v", k.State.TrialLeft.Round(100*time.Millisecond))
	}
	if k.TrialWon {
		s += " won"
	}
	if k.Grant != 0 {
		s += fmt.Sprintf(" grant %d", k.Grant)
	}
	return s
}

// forget drops both stores' data (FLUSHALL; MemoryStore.Forget).
func (tw *twin) forget() {
	tw.server.Do("FLUSHALL")
	tw.memory.Forget()
}

// The script's breaker rules are the in-memory store's: counts add up over the window and a
// re-sent exchange counts once; OpOpen opens once; one OpTrial wins, and the election holds
// the open and trial timeouts; a result of another election is ignored; the trial's result
// closes (forgetting the counts) or reopens; a release lets the next replica win; a store
// that lost its data takes what a replica knows, election included.
func TestScriptFollowsMemoryStoreBreakerRules(t *testing.T) {
	tw := newTwin(t)
	const name = "https://a:443"
	ex := func(replica string, k fleet.Key) fleet.Exchange {
		k.Name = name
		return fleet.Exchange{Group: "svc:breaker", Replica: replica, Window: 10 * time.Second,
			OpenTimeout: 300 * time.Millisecond, TrialTimeout: 200 * time.Millisecond, Keys: []fleet.Key{k}}
	}
	counts := func(c [2]int64, unsent [2]int64, op fleet.Op) fleet.Key {
		return fleet.Key{Counts: c, Unsent: unsent, Op: op}
	}
	tw.run(step{x: ex("a", counts([2]int64{10, 4}, [2]int64{10, 4}, fleet.OpNone)), want: "total [10 4] CLOSED"})
	// a's reply was lost: it sends the same counts again, with 2 more calls.
	tw.run(step{x: ex("a", counts([2]int64{12, 4}, [2]int64{12, 4}, fleet.OpNone)), want: "total [12 4] CLOSED"})
	tw.run(step{x: ex("b", counts([2]int64{5, 5}, [2]int64{5, 5}, fleet.OpOpen)), want: "total [17 9] OPEN changed open 300ms"})
	tw.run(step{x: fleet.Exchange{Group: "svc:breaker", Replica: "c", Window: 10 * time.Second, OpenTimeout: 300 * time.Millisecond,
		TrialTimeout: 200 * time.Millisecond}, wantOpened: name + "=OPEN "})
	// A restarted b (Counts went down) counts its unsent counts: a new baseline.
	tw.run(step{x: ex("b", counts([2]int64{1, 1}, [2]int64{1, 1}, fleet.OpOpen)), want: "total [18 10] OPEN changed open 300ms"})
	tw.run(step{x: ex("a", fleet.Key{Op: fleet.OpTrial}), want: "total [18 10] OPEN changed open 300ms"})
	time.Sleep(350 * time.Millisecond)
	tw.run(step{x: ex("a", fleet.Key{Op: fleet.OpTrial}), saveTrial: "a", want: "total [18 10] HALF_OPEN changed election 500ms won"})
	tw.run(step{x: ex("b", fleet.Key{Op: fleet.OpTrial}), trial: "a", want: "total [18 10] HALF_OPEN changed election 500ms (its election)"})
	time.Sleep(550 * time.Millisecond) // a's election ends: its trial is presumed lost
	tw.run(step{x: ex("b", fleet.Key{Op: fleet.OpTrial}), saveTrial: "b", want: "total [18 10] HALF_OPEN changed election 500ms won"})
	// a's late failure during b's trial is ignored; b's failure reopens; a's late success
	// then is ignored too.
	tw.run(step{x: ex("a", fleet.Key{Op: fleet.OpTrialFailure}), trial: "a", want: "total [18 10] HALF_OPEN changed election 500ms"})
	tw.run(step{x: ex("b", fleet.Key{Op: fleet.OpTrialFailure}), trial: "b", want: "total [18 10] OPEN changed open 300ms"})
	tw.run(step{x: ex("a", fleet.Key{Op: fleet.OpTrialSuccess}), trial: "a", saveState: "open", want: "total [18 10] OPEN changed open 300ms"})
	// The store loses everything; the first replica to come back knows the key OPEN.
	tw.forget()
	tw.run(step{x: ex("d", fleet.Key{}), want: "total [0 0] CLOSED"}) // d knows nothing
	tw.run(step{x: ex("a", fleet.Key{}), known: "open", want: "total [0 0] OPEN changed open 300ms"})
	tw.run(step{x: ex("d", fleet.Key{}), want: "total [0 0] OPEN changed open 300ms"})
	time.Sleep(350 * time.Millisecond)
	tw.run(step{x: ex("e", fleet.Key{Op: fleet.OpTrial}), saveTrial: "e", saveState: "e", want: "total [0 0] HALF_OPEN changed election 500ms won"})
	// Lost again, during e's election: e restores it, and f is not elected.
	tw.forget()
	tw.run(step{x: ex("e", fleet.Key{}), known: "e", want: "total [0 0] HALF_OPEN changed election 500ms"})
	tw.run(step{x: ex("f", fleet.Key{Op: fleet.OpTrial}), want: "total [0 0] HALF_OPEN changed election 500ms"})
	tw.run(step{x: ex("e", counts([2]int64{1, 0}, [2]int64{1, 0}, fleet.OpTrialSuccess)), trial: "e", saveState: "closed",
		want: "total [0 0] CLOSED changed", wantOpened: "none"})
	tw.run(step{x: ex("e", fleet.Key{Op: fleet.OpTrialSuccess, Counts: [2]int64{1, 0}}), trial: "e", want: "total [0 0] CLOSED changed"})
	// A replica that knows an older OPEN (a) does not reopen the key the trial closed.
	tw.run(step{x: ex("a", fleet.Key{}), known: "open", want: "total [0 0] CLOSED changed"})
	// A release lets the next asker win at once.
	tw.run(step{x: ex("g", fleet.Key{Op: fleet.OpOpen}), want: "total [0 0] OPEN changed open 300ms"})
	time.Sleep(350 * time.Millisecond)
	tw.run(step{x: ex("g", fleet.Key{Op: fleet.OpTrial}), saveTrial: "g", want: "total [0 0] HALF_OPEN changed election 500ms won"})
	tw.run(step{x: ex("g", fleet.Key{Op: fleet.OpTrialRelease}), trial: "g", want: "total [0 0] HALF_OPEN changed"})
	tw.run(step{x: ex("h", fleet.Key{Op: fleet.OpTrial}), want: "total [0 0] HALF_OPEN changed election 500ms won"})
}

// The script's budget rule is the in-memory store's (fleet.Grant): each replica's grant is
// its share of what is left, within what the others' grants leave; a final exchange gives
// a replica's grant back, and an unrenewed grant ends after GrantFor.
func TestScriptFollowsMemoryStoreBudgetRule(t *testing.T) {
	tw := newTwin(t)
	rule := &fleet.BudgetRule{Ratio: 0.1, Floor: 10, MinReplicas: 1, GrantFor: 300 * time.Millisecond}
	ex := func(replica string, counts, unsent [2]int64, own int64, final bool) fleet.Exchange {
		return fleet.Exchange{Group: "svc:budget", Replica: replica, Window: 10 * time.Second, Budget: rule, Final: final,
			Keys: []fleet.Key{{Name: "", Counts: counts, Unsent: unsent, Own: own, Draw: 0.999}}}
	}
	// a alone: 100 requests; 0.1 × 100 + 10 = 20 left, all a's.
	tw.run(step{x: ex("a", [2]int64{100, 0}, [2]int64{100, 0}, 100, false), want: "total [100 0] CLOSED grant 20"})
	// b: 200 requests, 30 left; b's share 101/202 is 15, but a holds 20: 10.
	tw.run(step{x: ex("b", [2]int64{100, 0}, [2]int64{100, 0}, 100, false), want: "total [200 0] CLOSED grant 10"})
	// a spent 5 (25 left); b holds 10; a's share is 12.5: 12.
	tw.run(step{x: ex("a", [2]int64{100, 5}, [2]int64{0, 5}, 100, false), want: "total [200 5] CLOSED grant 12"})
	// a's reply was lost and it sends the same again: the same grant, its old one replaced.
	tw.run(step{x: ex("a", [2]int64{100, 5}, [2]int64{0, 5}, 100, false), want: "total [200 5] CLOSED grant 12"})
	tw.run(step{x: ex("a", [2]int64{100, 5}, [2]int64{0, 0}, 100, true), want: "total [200 5] CLOSED"}) // Close
	tw.run(step{x: ex("b", [2]int64{100, 0}, [2]int64{0, 0}, 100, false), want: "total [200 5] CLOSED grant 12"})
	// c with MinReplicas 4: its share counts 4 replicas.
	rule4 := *rule
	rule4.MinReplicas = 4
	x := ex("c", [2]int64{0, 0}, [2]int64{0, 0}, 0, false)
	x.Budget = &rule4
	tw.run(step{x: x, want: "total [200 5] CLOSED"}) // 25 × 1/204, rounded down
	// b's grant ends: d, with 200 requests of its own, may take 25 × 201/204 (not 25 − 12).
	time.Sleep(350 * time.Millisecond)
	tw.run(step{x: ex("d", [2]int64{0, 0}, [2]int64{0, 0}, 200, false), want: "total [200 5] CLOSED grant 24"})
}

// Every key carries the group's hash tag and a TTL; EVALSHA is sent each time, EVAL only
// after NOSCRIPT: the first time, and after a SCRIPT FLUSH (a restart, a failover), after
// which the next exchange loads the script again by itself.
func TestKeysTaggedWithTTLsAndScriptReloaded(t *testing.T) {
	s := redistest.Start(t)
	c := fleetClient(t, s)
	store := New(c, "")
	ctx := context.Background()
	for _, x := range []*fleet.Exchange{
		{Group: "svc:breaker", Replica: "a", Window: time.Second, OpenTimeout: time.Second, TrialTimeout: time.Second,
			Keys: []fleet.Key{{Name: "https://a:443", Counts: [2]int64{3, 3}, Unsent: [2]int64{3, 3}, Op: fleet.OpOpen}}},
		{Group: "svc:budget", Replica: "a", Window: time.Second, Budget: &fleet.BudgetRule{Ratio: 0.1, Floor: 1, GrantFor: time.Second},
			Keys: []fleet.Key{{Name: "https://a:443", Counts: [2]int64{3, 0}, Unsent: [2]int64{3, 0}}}},
	} {
		if err := store.Exchange(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 9 { // r, seen, st, c for the breakers; r, seen, c, g, ge for the budget
		t.Errorf("keys %v, want 9", keys)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "{svc:breaker}:") && !strings.HasPrefix(k, "{svc:budget}:") {
			t.Errorf("key %q outside the group's hash tag", k)
		}
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 {
			t.Errorf("key %q has no TTL (%v)", k, ttl)
		}
	}
	s.Do("SCRIPT", "FLUSH")
	x := &fleet.Exchange{Group: "svc:breaker", Replica: "a", Window: time.Second, OpenTimeout: time.Second, TrialTimeout: time.Second,
		Keys: []fleet.Key{{Name: "https://a:443", Counts: [2]int64{3, 3}}}}
	if err := store.Exchange(ctx, x); err != nil || x.Keys[0].State.State != breaker.StateOpen {
		t.Fatalf("after SCRIPT FLUSH: %v %+v", err, x.Keys[0])
	}
	calls := s.CommandCalls()
	if calls["evalsha"] != 3 || calls["eval"] != 2 {
		t.Errorf("commandstats %v: want 3 EVALSHA and 2 EVAL", calls)
	}
}

// Issue 32 item 5: an OpOpen or OpTrialFailure that carries Key.OpenFor (the replica's
// learned open time) opens the key for that long rather than the exchange's OpenTimeout, on
// Redis as in memory; without it, OpenTimeout.
func TestScriptOpensForKeyOpenFor(t *testing.T) {
	tw := newTwin(t)
	const name = "https://learn:443"
	ex := func(replica string, k fleet.Key) fleet.Exchange {
		k.Name = name
		return fleet.Exchange{Group: "svc:breaker", Replica: replica, Window: 10 * time.Second,
			OpenTimeout: 300 * time.Millisecond, TrialTimeout: 200 * time.Millisecond, Keys: []fleet.Key{k}}
	}
	tw.run(step{x: ex("a", fleet.Key{Counts: [2]int64{5, 5}, Unsent: [2]int64{5, 5}, Op: fleet.OpOpen, OpenFor: 700 * time.Millisecond}),
		want: "total [5 5] OPEN changed open 700ms"})
	time.Sleep(750 * time.Millisecond)
	tw.run(step{x: ex("a", fleet.Key{Op: fleet.OpTrial}), saveTrial: "a", want: "total [5 5] HALF_OPEN changed election 500ms won"})
	tw.run(step{x: ex("a", fleet.Key{Op: fleet.OpTrialFailure, OpenFor: 900 * time.Millisecond}), trial: "a",
		want: "total [5 5] OPEN changed open 900ms"})
	time.Sleep(950 * time.Millisecond)
	tw.run(step{x: ex("b", fleet.Key{Op: fleet.OpTrial}), saveTrial: "b", want: "total [5 5] HALF_OPEN changed election 500ms won"})
	tw.run(step{x: ex("b", fleet.Key{Op: fleet.OpTrialFailure}), trial: "b", want: "total [5 5] OPEN changed open 300ms"})
}
