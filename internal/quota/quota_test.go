package quota

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func newQuota(retries int, refill float64) *Quota {
	q := new(Quota)
	q.Init(retries, refill)
	return q
}

// A quota starts full, gives its retries, refuses below one, and each success gives the
// refill back, never beyond its capacity: Retries, or a tenth of the last second's attempts.
func TestQuotaTakeAndRefill(t *testing.T) {
	q := newQuota(3, 0.5)
	for i, want := range []bool{true, true, true, false} {
		if got := q.Take(t0); got != want {
			t.Fatalf("take %d: %v, want %v", i, got, want)
		}
	}
	q.Done(t0, true)
	if q.Take(t0) {
		t.Fatal("half a retry back allowed a whole one")
	}
	q.Done(t0, true)
	if !q.Take(t0) {
		t.Fatal("two successes gave no retry back")
	}
	for range 100 {
		q.Done(t0.Add(2*time.Second), true)
	}
	if got := q.Retries(t0.Add(2 * time.Second)); got != 10 {
		t.Errorf("%v retries after 100 successes within a second, want a tenth of them, 10", got)
	}
	if got := q.Retries(t0.Add(4 * time.Second)); got != 3 {
		t.Errorf("%v retries two quiet seconds later, want Retries, 3", got)
	}
}

// The burst allowance: with 1,000 attempts in the last second a quota of 20 holds 100, so
// 100 retries decided at once pass; a second later, with no attempt since, it holds 20 again.
func TestQuotaBurstAllowance(t *testing.T) {
	q := newQuota(20, 1)
	for i := range 1000 {
		q.Done(t0.Add(time.Duration(i)*time.Millisecond/2), true)
	}
	now := t0.Add(500 * time.Millisecond)
	if got := q.Retries(now); got != 100 {
		t.Fatalf("%v retries after 1,000 successes in half a second, want 100", got)
	}
	granted := 0
	for q.Take(now) {
		granted++
	}
	if granted != 100 {
		t.Errorf("%d retries granted at once, want 100", granted)
	}
	for range 50 {
		q.Done(now, true)
	}
	later := now.Add(2 * time.Second)
	if got := q.Retries(later); got != 20 {
		t.Errorf("%v retries two quiet seconds later, want Retries, 20", got)
	}
}

// A quota made on one clock and used on another that is behind it (a testing/synctest
// bubble) starts its window again instead of counting nothing for ever.
func TestQuotaClockBehind(t *testing.T) {
	q := newQuota(20, 1)
	q.Done(t0, true)
	past := t0.Add(-time.Hour)
	for range 500 {
		q.Done(past, true)
	}
	if got := q.Retries(past); got != 50 {
		t.Errorf("%v retries after 500 attempts on the earlier clock, want 50", got)
	}
}

// The rule as a property, for any settings and any sequence of attempts and retries at
// increasing times: a retry is granted only with a whole retry left; the retries granted
// never exceed Retries plus the refills of the successes plus the burst allowance of the
// attempts; the quota never holds more than its capacity.
func TestQuotaProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		retries := rapid.IntRange(1, 50).Draw(rt, "retries")
		refill := float64(rapid.IntRange(1, 3000).Draw(rt, "refillMilli")) / 1000
		q := newQuota(retries, refill)
		now := t0
		granted, successes, attempts := 0, 0, 0
		for range rapid.IntRange(1, 300).Draw(rt, "steps") {
			now = now.Add(time.Duration(rapid.IntRange(0, 400).Draw(rt, "ms")) * time.Millisecond)
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0:
				left := q.Retries(now)
				if q.Take(now) {
					granted++
					if left < 1 {
						rt.Fatalf("granted a retry with %v left", left)
					}
				} else if left >= 1 {
					rt.Fatalf("refused a retry with %v left", left)
				}
			default:
				success := rapid.Bool().Draw(rt, "success")
				attempts++
				if success {
					successes++
				}
				q.Done(now, success)
			}
			if left, limit := q.Retries(now), max(float64(retries), float64(q.window.Total(0))*BurstShare); left > limit+1e-9 {
				rt.Fatalf("%v retries left, capacity %v", left, limit)
			}
			if bound := float64(retries) + refill*float64(successes) + BurstShare*float64(attempts); float64(granted) > bound+1e-9 {
				rt.Fatalf("%d retries granted, more than %v", granted, bound)
			}
		}
	})
}
