package ratelimit

import (
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/retrykit/retry"
)

// Issue 32, end to end: callers that start at random times, some after a backoff, some
// giving up before their time, against a fixed-window server that tells its count on every
// answer (its window said, or a common length with the first request early in a window),
// with the same latency every way, or each way its own, a round trip within a tenth of the
// window, so that answers arrive out of order (and the Done that follows an Observe names
// another attempt than the one it took). With the first-contact probe on, every attempt
// goes through the gate, and the server refuses none that the gate admitted knowing a
// limit (a gate that read nothing for a window after the reset forgets the limit, and lets
// the next attempts go at once, token 0, as the package doc says); every reserved time is
// at or after its notBefore; every caller that did not give up succeeds.
func TestPropertyNoRefusalAgainstFixedWindow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		window := rapid.SampledFrom([]time.Duration{100 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}).Draw(t, "window")
		server := &fixedWindowServer{start: t0, window: window, limit: rapid.Int64Range(1, 30).Draw(t, "limit")}
		said := rapid.Bool().Draw(t, "windowSaid")
		latency := time.Duration(rapid.Int64Range(0, int64(window/8)).Draw(t, "latency"))
		outOfOrder := rapid.Bool().Draw(t, "outOfOrder")
		way := func() time.Duration {
			if outOfOrder {
				return time.Duration(rapid.Int64Range(0, int64(window/20)).Draw(t, "way"))
			}
			return latency
		}
		gate, _ := NewGate(Config{ProbeWait: MaxProbeWait})
		ev := &events{now: t0}
		callers := rapid.IntRange(1, 120).Draw(t, "callers")
		var refused, succeeded, gaveUp int
		var ask func(notBefore time.Time, giveUp bool)
		ask = func(notBefore time.Time, giveUp bool) {
			ev.at(later(ev.now, notBefore), func() {
				at, token := gate.Reserve(ev.now, notBefore)
				if at.Before(notBefore) {
					t.Fatalf("Reserve(%v, %v) = %v, before notBefore", ev.now.Sub(t0), notBefore.Sub(t0), at.Sub(t0))
				}
				if token == 0 && at.After(notBefore) {
					ask(at, giveUp)
					return
				}
				if giveUp && token != 0 && at.After(ev.now) {
					gaveUp++
					gate.Cancel(token, ev.now)
					return
				}
				ev.at(at, func() {
					ev.at(ev.now.Add(way()), func() {
						ok, r := server.handle(ev.now)
						if !said {
							r.Window = 0
						} else {
							r.Window = window
						}
						ev.at(ev.now.Add(way()), func() {
							gate.Observe(ev.now, []Reading{r})
							if !ok {
								if token != 0 {
									refused++
								}
								gate.Done(token, ev.now, retry.ResultThrottled, r.Reset)
								ask(ev.now.Add(r.Reset), false)
								return
							}
							succeeded++
							gate.Done(token, ev.now, retry.ResultSuccess, 0)
						})
					})
				})
			})
		}
		for i := range callers {
			start := t0
			if i > 0 || said {
				start = t0.Add(time.Duration(rapid.Int64Range(0, int64(3*window)).Draw(t, "start")))
			}
			if rapid.IntRange(0, 3).Draw(t, "backoff") == 0 {
				start = start.Add(time.Duration(rapid.Int64Range(0, int64(window)).Draw(t, "delay")))
			}
			ask(start, i > 0 && rapid.IntRange(0, 9).Draw(t, "giveUp") == 0)
		}
		ev.runUntil(t0.Add(time.Hour))
		if refused != 0 {
			t.Fatalf("%d refused", refused)
		}
		if succeeded+gaveUp != callers {
			t.Fatalf("%d succeeded, %d gave up, of %d callers", succeeded, gaveUp, callers)
		}
	})
}

// op is one random call on a gate, for the properties below.
type op struct {
	kind      int // 0 reserve, 1 cancel, 2 done, 3 done throttled
	advance   time.Duration
	notBefore time.Duration // after now
	cost      int64
	pick      int // which reservation to cancel or finish
	wait      time.Duration
}

// drawOps draws up to 200 calls of the first kinds, each after at most maxAdvance.
func drawOps(t *rapid.T, kinds int, maxAdvance time.Duration) []op {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) op {
		return op{
			kind:      rapid.IntRange(0, kinds-1).Draw(t, "kind"),
			advance:   time.Duration(rapid.Int64Range(0, int64(maxAdvance)).Draw(t, "advance")),
			notBefore: time.Duration(rapid.Int64Range(-int64(10*time.Millisecond), int64(3*time.Second)).Draw(t, "notBefore")),
			cost:      rapid.Int64Range(0, 500).Draw(t, "cost"),
			pick:      rapid.IntRange(0, 1000).Draw(t, "pick"),
			wait:      time.Duration(rapid.Int64Range(0, int64(2*time.Second)).Draw(t, "wait")),
		}
	}), 1, 200).Draw(t, "ops")
}

type admitted struct {
	at, notBefore time.Time
	cost          int64
	token         uint64
	live          bool
}

// run applies ops to g from now; it fails t when a reservation is before its notBefore.
func run(t *rapid.T, g *Gate, now time.Time, ops []op) ([]admitted, time.Time) {
	var got []admitted
	for _, o := range ops {
		now = now.Add(o.advance)
		switch o.kind {
		case 0:
			nb := now.Add(o.notBefore)
			at, tok := g.ReserveN(now, nb, o.cost)
			if at.Before(nb) {
				t.Fatalf("ReserveN(%v, notBefore %v) = %v", now.Sub(t0), nb.Sub(t0), at.Sub(t0))
			}
			got = append(got, admitted{at: at, notBefore: nb, cost: o.cost, token: tok, live: tok != 0})
		case 1, 2, 3:
			if len(got) == 0 {
				continue
			}
			a := &got[o.pick%len(got)]
			switch {
			case o.kind == 1 && a.live && a.at.After(now): // the loop cancels what it did not send
				g.Cancel(a.token, now)
				a.live = false
			case o.kind == 2:
				g.Done(a.token, now, retry.ResultSuccess, 0)
			case o.kind == 3:
				g.Done(a.token, now, retry.ResultThrottled, o.wait)
			}
		}
	}
	return got, now
}

// Never more than the remaining before the reset, counting the reservations made since the
// reading and giving back the cancelled ones; the token costs likewise against a token
// quota. From the reset on (issue 32), whatever times are asked, before the reset or after
// it, and whatever is cancelled: any window-long span holds at most the limit of requests,
// and each window from the reset at most the limit of tokens (or one cost above it, alone).
// (All asked within about a window, before the quota can expire.)
func TestPropertyRemainingThenRelease(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.Int64Range(1, 100).Draw(t, "limit")
		remaining := rapid.Int64Range(0, limit).Draw(t, "remaining")
		tokenLimit := rapid.Int64Range(1, 5000).Draw(t, "tokenLimit")
		tokensLeft := rapid.Int64Range(0, tokenLimit).Draw(t, "tokensLeft")
		reset := time.Duration(rapid.Int64Range(int64(time.Millisecond), int64(time.Second)).Draw(t, "reset"))
		window := reset + time.Duration(rapid.Int64Range(0, int64(time.Second)).Draw(t, "extra"))
		var g Gate
		g.Observe(t0, []Reading{
			{Quota: "requests", Limit: limit, Remaining: remaining, Reset: reset, Window: window},
			{Quota: "tokens", Limit: tokenLimit, Remaining: tokensLeft, Reset: reset, Window: window},
		})
		resetAt := t0.Add(reset)
		got, _ := run(t, &g, t0, drawOps(t, 2, window/200)) // reserve and cancel only: no answers, no throttles
		var before, tokensBefore int64
		var after []admitted
		for _, a := range got {
			if !a.live {
				continue
			}
			if a.at.Before(resetAt) {
				before++
				tokensBefore += a.cost
			} else {
				after = append(after, a)
			}
		}
		if before > remaining || tokensBefore > tokensLeft {
			t.Fatalf("before the reset: %d requests of %d left, %d tokens of %d left", before, remaining, tokensBefore, tokensLeft)
		}
		slices.SortFunc(after, func(a, b admitted) int { return a.at.Compare(b.at) })
		for i := range after {
			n := int64(0)
			for j := i; j < len(after) && after[j].at.Before(after[i].at.Add(window)); j++ {
				n++
			}
			if n > limit {
				t.Fatalf("%d requests in the %v from %v, more than the limit %d", n, window, after[i].at.Sub(t0), limit)
			}
		}
		tokens, costs := map[int64]int64{}, map[int64]int{}
		for _, a := range after {
			if a.cost > 0 {
				k := int64(a.at.Sub(resetAt) / window)
				tokens[k] += a.cost
				costs[k]++
			}
		}
		for k, n := range tokens {
			if n > tokenLimit && costs[k] > 1 {
				t.Fatalf("window %d from the reset holds %d tokens in %d costs, more than the limit %d", k, n, costs[k], tokenLimit)
			}
		}
	})
}

// A cancelled reservation's place goes to the next attempt that asks: asking again with the
// same notBefore right after a Cancel gives a time no later than the cancelled one's; or,
// for one sent between two windows' releases, a later release of the same window, which
// the Cancel freed too (a release holds one unit, a send between releases two).
func TestPropertyCancelGivesPlaceBack(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.Int64Range(1, 20).Draw(t, "limit")
		var g Gate
		g.Observe(t0, []Reading{requests(limit, rapid.Int64Range(0, limit).Draw(t, "remaining"), time.Second)})
		got, now := run(t, &g, t0, drawOps(t, 2, 5*time.Millisecond))
		live := slices.DeleteFunc(got, func(a admitted) bool { return !a.live || !a.at.After(now) })
		if len(live) == 0 {
			return
		}
		c := live[rapid.IntRange(0, len(live)-1).Draw(t, "cancel")]
		g.Cancel(c.token, now)
		at, _ := g.Reserve(now, c.notBefore)
		if !at.After(c.at) {
			return
		}
		gr := g.s.quotas[0].grid
		_, k, _ := gr.first(c.at)
		if start := gr.anchor.Add(time.Duration(k) * gr.window); !at.Before(start.Add(gr.release())) {
			t.Fatalf("after cancelling the reservation at %v, the same notBefore got %v", c.at.Sub(t0), at.Sub(t0))
		}
	})
}

// Whatever happens (readings, answers, throttles, cancels), no time is before its
// notBefore (checked in run), and stale information expires: a window after the last reset,
// reading, throttle hold and reserved time, with the adaptive rate forgotten, the gate is
// back on the lock-free path.
func TestPropertyNotBeforeAndExpiry(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var g Gate
		now := t0
		var last time.Time // the latest reset, hold or reserved time
		window := time.Duration(0)
		for range rapid.IntRange(1, 5).Draw(t, "rounds") {
			if rapid.Bool().Draw(t, "read") {
				r := requests(rapid.Int64Range(1, 50).Draw(t, "limit"), rapid.Int64Range(0, 50).Draw(t, "remaining"),
					time.Duration(rapid.Int64Range(1, int64(2*time.Second)).Draw(t, "reset")))
				g.Observe(now, []Reading{r})
				last = later(last, now.Add(r.Reset))
				window = max(window, estimateWindow(r.Reset))
			}
			got, end := run(t, &g, now, drawOps(t, 4, 50*time.Millisecond))
			for _, a := range got {
				last = later(last, a.at)
			}
			last = later(last, end.Add(2*time.Second)) // the longest throttle wait drawn
			now = end
		}
		quiet := later(last, now).Add(2*window + 2*time.Second)
		far := quiet.Add(10 * time.Minute) // the adaptive rate, if on, limits nothing by then
		g.Done(0, far, retry.ResultSuccess, 0)
		if at, tok := g.Reserve(far, far); !at.Equal(far) || tok != 0 || g.limited.Load() {
			t.Fatalf("long after everything: Reserve = %v, %d, limited %v; want the free path", at.Sub(far), tok, g.limited.Load())
		}
	})
}

// CUBIC's bounds (AWS's adaptive retry mode): after any sequence of answers and throttles,
// the fill rate is at least 0.5 and at most twice the measured rate (or 0.5); a throttle
// sets it to β times the rate it came at, within those bounds; the curve regains the rate
// of the last throttle K after it and never falls as time goes on.
func TestPropertyCubicBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b cubicBucket
		now := t0
		for range rapid.IntRange(1, 50).Draw(t, "steps") {
			now = now.Add(time.Duration(rapid.Int64Range(0, int64(3*time.Second)).Draw(t, "advance")))
			measured := rapid.Float64Range(0, 1000).Draw(t, "measured")
			if rapid.Bool().Draw(t, "throttled") {
				rate := measured
				if b.on {
					rate = math.Min(measured, b.fill)
				}
				b.throttled(now, measured)
				if want := math.Max(math.Min(rate*cubicBeta, 2*measured), minFillRate); !near(b.fill, want) {
					t.Fatalf("fill after a throttle at %v (measured %v) = %v, want %v", rate, measured, b.fill, want)
				}
			} else if b.on {
				b.answered(now, measured)
			}
			if b.on && (b.fill < minFillRate || b.fill > math.Max(2*measured, minFillRate)+1e-9) {
				t.Fatalf("fill %v out of [0.5, max(2·%v, 0.5)]", b.fill, measured)
			}
			if b.on {
				if k := b.lastThrottle.Add(time.Duration(b.k * float64(time.Second))); !near(b.curve(k), b.maxRate) {
					t.Fatalf("curve at K = %v, want W_max %v", b.curve(k), b.maxRate)
				}
				dt := time.Duration(rapid.Int64Range(0, int64(10*time.Second)).Draw(t, "dt"))
				if b.curve(now.Add(dt)) < b.curve(now)-1e-9 {
					t.Fatalf("curve fell from %v to %v", b.curve(now), b.curve(now.Add(dt)))
				}
			}
		}
	})
}
