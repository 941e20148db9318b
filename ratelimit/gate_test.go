package ratelimit

import (
	"testing"
	"time"

	"github.com/retrykit/retry"
)

var _ retry.RateGate = (*Gate)(nil)

// A gate that knows of no limit returns notBefore and token 0, past or future, and stays on
// the lock-free path through answers that are no throttle (issue 32: costs nothing where no
// server has told of a limit).
func TestFreeGate(t *testing.T) {
	var g Gate
	for _, nb := range []time.Time{ms(-5), ms(0), ms(700)} {
		if at, tok := g.Reserve(ms(0), nb); !at.Equal(nb) || tok != 0 {
			t.Errorf("Reserve(notBefore %v) = %v, %d; want notBefore, 0", nb, at, tok)
		}
	}
	g.Done(0, ms(1), retry.ResultSuccess, 0)
	g.Done(0, ms(2), retry.ResultFailure, time.Second) // a 503's wait is the loop's, not the gate's
	g.Cancel(7, ms(3))
	g.Observe(ms(4), nil)
	g.Observe(ms(4), []Reading{{Quota: "requests", Remaining: -1}}) // says nothing
	if g.limited.Load() {
		t.Error("the gate left the lock-free path without being told of a limit")
	}
	if at, tok := g.ReserveN(ms(5), ms(5), 1000); !at.Equal(ms(5)) || tok != 0 {
		t.Errorf("ReserveN = %v, %d; want notBefore, 0", at, tok)
	}
}

// Before the reset, the gate admits at once what the reading left; then it gives times from
// the reset on, window/limit apart (limit 10, a reset of 1 s: a 1 s window, 100 ms each).
func TestAdmitsRemainingThenPacesAfterReset(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{requests(10, 3, time.Second)})
	at, _ := reserveAll(&g, ms(0), 6)
	wantTimes(t, "after remaining 3", at, []int64{0, 0, 0, 1000, 1100, 1200})
}

// The attempts in flight when a reading arrives were not counted by the server; the one it
// answers was. Reading 10 left, 4 sent, the first answered with 9 left: 3 are in flight, so
// 6 more are admitted, 10 in all, none counted twice.
func TestInFlightCountedOnce(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{requests(10, 10, time.Second)})
	_, tokens := reserveAll(&g, ms(0), 4)
	g.Observe(ms(20), []Reading{requests(10, 9, 980*time.Millisecond)})
	g.Done(tokens[0], ms(20), retry.ResultSuccess, 0)
	at, _ := reserveAll(&g, ms(20), 7)
	wantTimes(t, "after 9 left with 3 in flight", at, []int64{20, 20, 20, 20, 20, 20, 1000})
}

// A lower remaining corrects the view; a staler reading (a higher remaining in the same
// window: an answer the server counted earlier that arrived later) does not, but the
// attempt it answers no longer counts as in flight.
func TestFresherReadingWins(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{requests(10, 5, time.Second)})
	_, tokens := reserveAll(&g, ms(0), 2)
	g.Observe(ms(10), []Reading{requests(10, 3, 990*time.Millisecond)}) // counted both
	g.Done(tokens[0], ms(10), retry.ResultSuccess, 0)
	if at, _ := reserveAll(&g, ms(11), 3); at[1] != 11 || at[2] != 1000 {
		t.Errorf("3 left, 1 in flight: times %v ms, want [11 11 1000] (the in-flight one counted twice, for now)", at)
	}
	g.Observe(ms(12), []Reading{requests(10, 4, 990*time.Millisecond)}) // staler: the second's answer
	g.Done(tokens[1], ms(12), retry.ResultSuccess, 0)
	at, _ := reserveAll(&g, ms(12), 2)
	wantTimes(t, "3 left, 2 sent since, nothing else in flight", at, []int64{12, 1100})
	// Another client of the same key used the quota: the server says none is left.
	g.Observe(ms(30), []Reading{requests(10, 0, 970*time.Millisecond)})
	at, _ = reserveAll(&g, ms(30), 1)
	wantTimes(t, "none left", at, []int64{1200})
}

// A reading of the next window (a reset a window later, more remaining) replaces the view,
// and the attempts already given times in it count against what it says is left.
func TestNextWindowReplacesView(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{requests(4, 0, time.Second)})
	at, tokens := reserveAll(&g, ms(0), 3)
	wantTimes(t, "paced from the reset", at, []int64{1000, 1250, 1500})
	g.Observe(ms(1010), []Reading{requests(4, 3, time.Second)}) // the answer to the first
	g.Done(tokens[0], ms(1010), retry.ResultSuccess, 0)
	// 3 left in the window to 2010, 2 of them already given (1250, 1500): 1 at once.
	at, _ = reserveAll(&g, ms(1010), 2)
	wantTimes(t, "in the next window", at, []int64{1010, 2010})
}

// An attempt asked for a later time takes a later place in the pace without pushing back
// one asked for an earlier time.
func TestLaterNotBeforeDoesNotPushBack(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{requests(10, 0, time.Second)})
	late, _ := g.Reserve(ms(0), ms(5000))
	early, _ := g.Reserve(ms(0), ms(0))
	next, _ := g.Reserve(ms(0), ms(5050))
	if !late.Equal(ms(5000)) || !early.Equal(ms(1000)) || !next.Equal(ms(5100)) {
		t.Errorf("times %v, %v, %v; want 5000, 1000 and 5100 ms", late.Sub(t0), early.Sub(t0), next.Sub(t0))
	}
}

// Cancel gives back any reservation, not only the latest: its count before the reset, or
// its place in the pace after it.
func TestCancelGivesBack(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{requests(10, 2, time.Second)})
	at, tokens := reserveAll(&g, ms(0), 5)
	wantTimes(t, "2 left", at, []int64{0, 0, 1000, 1100, 1200})
	g.Cancel(tokens[0], ms(1)) // an earlier one, counted before the reset
	g.Cancel(tokens[3], ms(1)) // an earlier one, paced at 1100
	at, _ = reserveAll(&g, ms(2), 3)
	wantTimes(t, "after two cancels", at, []int64{2, 1100, 1300})
	g.Cancel(0, ms(3))   // nothing
	g.Cancel(999, ms(3)) // unknown
}

// A throttle holds every later reservation until the server's wait; without one, until the
// exhausted quota's reset. A shorter wait brings forward an exhausted quota's reset (an
// API whose quota refills continuously, whose reset is when it is full).
func TestThrottleHolds(t *testing.T) {
	t.Run("retry-after", func(t *testing.T) {
		var g Gate
		g.Done(0, ms(0), retry.ResultThrottled, 2*time.Second)
		if at, tok := g.Reserve(ms(10), ms(10)); !at.Equal(ms(2000)) || tok == 0 {
			t.Errorf("Reserve after a throttle = %v, %d; want 2000 ms, a token", at.Sub(t0), tok)
		}
	})
	t.Run("exhausted quota", func(t *testing.T) {
		var g Gate
		g.Observe(ms(0), []Reading{requests(10, 5, time.Second)})
		g.Observe(ms(5), []Reading{requests(10, 0, 995*time.Millisecond)})
		g.Done(0, ms(5), retry.ResultThrottled, 0)
		at, _ := reserveAll(&g, ms(6), 2)
		wantTimes(t, "held to the reset", at, []int64{1000, 1100})
	})
	t.Run("not exhausted", func(t *testing.T) { // another client spent it: the first reset
		var g Gate
		g.Observe(ms(0), []Reading{requests(10, 5, time.Second), {Quota: "tokens", Limit: 1000, Remaining: 900, Reset: 3 * time.Second}})
		g.Done(0, ms(5), retry.ResultThrottled, 0)
		at, _ := reserveAll(&g, ms(6), 2)
		wantTimes(t, "held to the first reset, then paced", at, []int64{1000, 1100})
	})
	t.Run("wait shorter than reset", func(t *testing.T) {
		var g Gate
		g.Observe(ms(0), []Reading{requests(50, 0, time.Minute)})
		g.Done(0, ms(0), retry.ResultThrottled, time.Second)
		at, _ := reserveAll(&g, ms(0), 3)
		wantTimes(t, "from the server's wait, 1.2 s apart", at, []int64{1000, 2200, 3400})
	})
}

// A stated token cost counts against the token quotas' remaining and holds
// cost·window/limit of their pace; without a cost, a token quota does not slow a request.
func TestTokenCost(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{
		requests(100, 100, time.Second),
		{Quota: "tokens", Limit: 10000, Remaining: 1000, Reset: time.Second, From: "x-ratelimit-remaining-tokens"},
	})
	var got []int64
	for _, cost := range []int64{400, 400, 400, 400, 0} {
		at, _ := g.ReserveN(ms(0), ms(0), cost)
		got = append(got, at.Sub(t0).Milliseconds())
	}
	wantTimes(t, "costs 400 against 1000 tokens left", got, []int64{0, 0, 1000, 1040, 0})
}

// Stale information expires: once the reset has passed and then a window with nothing
// read, the gate forgets the quota and returns to the lock-free path.
func TestExpiry(t *testing.T) {
	var g Gate
	g.Observe(ms(0), []Reading{requests(10, 5, time.Second)})
	if _, tok := g.Reserve(ms(999), ms(999)); tok == 0 {
		t.Error("forgot the quota before its reset")
	}
	g.Observe(ms(1999), nil) // no news
	if !g.limited.Load() {
		t.Error("forgot the quota before a window after its reset")
	}
	if at, tok := g.Reserve(ms(2000), ms(2000)); !at.Equal(ms(2000)) || tok != 0 {
		t.Errorf("a window after the reset: Reserve = %v, %d; want notBefore, 0", at.Sub(t0), tok)
	}
	if g.limited.Load() {
		t.Error("still off the lock-free path")
	}
}

// First contact: the first attempt goes alone; the others ask again at 1, 2, 4, ... ms
// after it was sent (at most ProbeWait), and once its answer told the limit, get times
// from it.
func TestProbe(t *testing.T) {
	g := mustGate(t, Config{ProbeWait: 100 * time.Millisecond})
	at, probe := g.Reserve(ms(0), ms(0))
	if !at.Equal(ms(0)) || probe == 0 {
		t.Fatalf("probe = %v, %d; want 0 ms, a token", at.Sub(t0), probe)
	}
	for _, step := range []struct{ now, want int64 }{{0, 1}, {1, 2}, {2, 4}, {5, 8}, {64, 100}, {99, 100}} {
		if at, tok := g.Reserve(ms(step.now), ms(step.now)); !at.Equal(ms(step.want)) || tok != 0 {
			t.Errorf("at %d ms: Reserve = %v, %d; want %d ms, 0 (ask again)", step.now, at.Sub(t0), tok, step.want)
		}
	}
	g.Observe(ms(10), []Reading{requests(10, 1, time.Second)})
	g.Done(probe, ms(10), retry.ResultSuccess, 0)
	got, _ := reserveAll(g, ms(16), 2)
	wantTimes(t, "after the probe's answer (reset 1 s after it)", got, []int64{16, 1010})

	t.Run("wait runs out", func(t *testing.T) {
		g := mustGate(t, Config{ProbeWait: 100 * time.Millisecond})
		g.Reserve(ms(0), ms(0))
		if at, tok := g.Reserve(ms(50), ms(100)); !at.Equal(ms(100)) || tok == 0 {
			t.Errorf("notBefore at the probe's end: Reserve = %v, %d; want 100 ms and a token", at.Sub(t0), tok)
		}
		if at, tok := g.Reserve(ms(100), ms(100)); !at.Equal(ms(100)) || tok != 0 {
			t.Errorf("after the probe's wait: Reserve = %v, %d; want notBefore, 0", at.Sub(t0), tok)
		}
	})
	t.Run("probe cancelled", func(t *testing.T) {
		g := mustGate(t, Config{ProbeWait: 100 * time.Millisecond})
		_, first := g.Reserve(ms(0), ms(0))
		g.Cancel(first, ms(1))
		if at, tok := g.Reserve(ms(2), ms(2)); !at.Equal(ms(2)) || tok == 0 {
			t.Errorf("after the probe was cancelled: Reserve = %v, %d; want a new probe at 2 ms", at.Sub(t0), tok)
		}
	})
}
