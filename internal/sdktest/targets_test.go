package sdktest

import (
	"fmt"
	"testing"
)

// targetsMet turns on the target tests below: issue 32's targets, measured through each SDK
// over our Transport (ours). Our Transport does not meet them yet, which is what the issue
// is about, so while it is false each target test skips, naming the issue. Set it to true
// when the core work of issue 32 lands (a throttled result that breakers do not count, a
// rate gate per destination, answers that end the SDK's loop); the tests then hold it.
const targetsMet = true

func needTargets(t *testing.T) {
	t.Helper()
	if !targetsMet {
		t.Skip("issue 32: our Transport does not meet these targets yet; targetsMet (targets_test.go) turns them on")
	}
}

// The most requests that reached the sick API during the outage over our Transport when
// these tests were written (3 for each SDK: the breaker opened after 3 failures); the
// target is no more.
const sickToday = 3

// Most requests answered 429 in the burst, by the target.
const throttledAtMost = 10

// 200 concurrent calls against 50 requests/s: all 200 succeed within 4.5 s, at most 10
// requests are answered 429, and the breaker never opens; then 10 calls 2 s later: 10 of 10.
func TestTargetBurst(t *testing.T) {
	needTargets(t)
	for _, s := range sdks {
		for _, h := range burstHeaders(s) {
			t.Run(fmt.Sprint(s.name(), "/", headersTag(h)), func(t *testing.T) {
				b := burstOf(t, s, overOurs, h)
				if b.succeeded != burstCalls || b.finish > burstWithin || b.throttled > throttledAtMost || b.breakerOpenings != 0 {
					t.Errorf("%d of %d succeeded, the last at %v, %d answered 429, the breaker opened %d times; want %d of %d within %v, at most %d answered 429, never opened (failed: %s)",
						b.succeeded, b.calls, b.finish, b.throttled, b.breakerOpenings, burstCalls, burstCalls, burstWithin, throttledAtMost, b.failures)
				}
				if b.lateSucceeded != lateCalls {
					t.Errorf("%d of %d late calls succeeded; want all (failed: %s)", b.lateSucceeded, b.lateCalls, b.lateFailures)
				}
			})
		}
	}
}

// A call that cannot be served within its deadline stops at once, with the server's wait:
// every failed call of the deadline burst returns within atOnce of its last answer (of its
// start, when none of its requests reached the API), and its error names a wait.
func TestTargetBurstDeadline(t *testing.T) {
	needTargets(t)
	for _, s := range sdks {
		t.Run(s.name(), func(t *testing.T) {
			d := deadlineBurstOf(t, s, overOurs)
			if d.both != d.failed {
				t.Errorf("of %d failed calls, %d returned within %v of their last answer (the slowest after %v), %d named a wait, %d both; want all both (failed: %s)",
					d.failed, d.atOnce, atOnce, d.slowest, d.withWait, d.both, d.failures)
			}
		})
	}
}

// A 30 s outage: no more requests reach the sick API than today, the first success comes
// within 1 s of the recovery, a refused call returns within 5 ms as circuit_open with a
// wait, and a failed call writes one stop record.
func TestTargetOutage(t *testing.T) {
	needTargets(t)
	for _, s := range sdks {
		t.Run(s.name(), func(t *testing.T) {
			o := outageOf(t, s, overOurs)
			if o.sick > sickToday {
				t.Errorf("%d requests reached the sick API; want at most %d", o.sick, sickToday)
			}
			if !o.recovered || o.firstSuccess > firstSuccessWithin {
				t.Errorf("the first success %v after the recovery (any: %v); want within %v", o.firstSuccess, o.recovered, firstSuccessWithin)
			}
			if o.refused == 0 || o.refusalSlowest > refusalWithin || o.refusedOpen != o.refused || o.refusalsWithWait != o.refused {
				t.Errorf("%d calls refused, the slowest in %v, %d as circuit_open, %d naming a wait (%s); want some, each within %v, as circuit_open, naming a wait",
					o.refused, o.refusalSlowest, o.refusedOpen, o.refusalsWithWait, o.refusals, refusalWithin)
			}
			if o.failed > 0 && (o.stopsMin != 1 || o.stopsMax != 1) {
				t.Errorf("a failed call wrote %s stop records; want 1", span(o.stopsMin, o.stopsMax))
			}
		})
	}
}

// An answer cut mid-body under PreloadBody is billed no more often than with the SDK alone.
func TestTargetCutBody(t *testing.T) {
	needTargets(t)
	for _, s := range sdks {
		t.Run(s.name(), func(t *testing.T) {
			ours, alone := cutOf(t, s, overOurs), cutOf(t, s, sdkAlone)
			if ours.billed > alone.billed {
				t.Errorf("billed %d times; the SDK alone %d", ours.billed, alone.billed)
			}
		})
	}
}

// totals is what a scenario cost and gave: the calls that succeeded, and the generations
// billed beyond them (made, but not delivered as a success).
type totals struct {
	scenario          string
	succeeded, wasted int
}

func totalsOf(t *testing.T, s sdk, m mode) []totals {
	var all []totals
	for _, h := range burstHeaders(s) {
		b := burstOf(t, s, m, h)
		all = append(all, totals{"burst, " + headersTag(h), b.succeeded + b.lateSucceeded, b.billed - b.succeeded - b.lateSucceeded})
	}
	d := deadlineBurstOf(t, s, m)
	o := outageOf(t, s, m)
	c := cutOf(t, s, m)
	return append(all, totals{"deadline burst", d.succeeded, d.billed - d.succeeded},
		totals{"outage", o.succeeded, o.billed - o.succeeded}, totals{"cut body", c.succeeded, c.billed - c.succeeded})
}

// On no scenario is ours worse than the SDK alone, in successes or in requests billed
// (beyond the successes: a success is billed either way).
func TestTargetNoWorseThanTheSDKAlone(t *testing.T) {
	needTargets(t)
	for _, s := range sdks {
		t.Run(s.name(), func(t *testing.T) {
			ours, alone := totalsOf(t, s, overOurs), totalsOf(t, s, sdkAlone)
			for i := range ours {
				if ours[i].succeeded < alone[i].succeeded || ours[i].wasted > alone[i].wasted {
					t.Errorf("%s: %d succeeded, %d more billed; the SDK alone %d and %d",
						ours[i].scenario, ours[i].succeeded, ours[i].wasted, alone[i].succeeded, alone[i].wasted)
				}
			}
		})
	}
}
