package retry

import (
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// fixedSource returns the same number at every draw, so a test knows u.
type fixedSource uint64

func (s fixedSource) Uint64() uint64 { return uint64(s) }

// TestRetryAfterSpread checks the spread on top of a server-requested wait (issue 15 item 2,
// SPEC R4.4) as properties over random policies, waits and deadlines: never earlier than
// asked; never more than the requested wait plus RetryAfterSpread of it (or the backoff's
// draw when longer); never past MaxWait nor too close to the deadline, where the loop waits
// exactly what was asked; exactly RetryAfter × (1 + spread × u) when it fits.
func TestRetryAfterSpread(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ms := func(name string, lo, hi int) time.Duration {
			return time.Duration(rapid.IntRange(lo, hi).Draw(rt, name)) * time.Millisecond
		}
		ra := ms("retryAfter", 0, 5000)
		draw := ms("backoff", 0, 3000)
		spread := []float64{0, NoRetryAfterSpread, 0.1, 0.5, 1}[rapid.IntRange(0, 4).Draw(rt, "spread")]
		raw := rapid.Uint64().Draw(rt, "random")
		p := &Policy{MaxAttempts: Unlimited, Timeout: NoLimit, Backoff: constantBackoff(t, draw),
			RetryAfterSpread: spread, Random: fixedSource(raw),
			MaxWait:        []time.Duration{NoLimit, 0, ms("maxWait", 1, 8000)}[rapid.IntRange(0, 2).Draw(rt, "maxWaitKind")],
			MinAttemptTime: ms("minAttemptTime", 0, 500)}
		s := State{Attempt: 1, Start: t0, Now: t0}
		if rapid.Bool().Draw(rt, "deadline") {
			s.Deadline = t0.Add(ms("remaining", 1, 10000))
		}
		d := Decide(p, s, Outcome{Status: 429, RetryAfter: ra, HasRetryAfter: true})
		if !d.Retry {
			return // a requested wait that does not fit stops the loop: TestDecideTable
		}
		f := p.retryAfterSpread()
		if want := map[float64]float64{0: 1, NoRetryAfterSpread: 0}[spread]; spread <= 0 && f != want {
			rt.Fatalf("spread in force %v for RetryAfterSpread %v, want %v", f, spread, want)
		}
		u := float64(raw>>11) / (1 << 53)
		spreadWait := ra + time.Duration(float64(ra)*f*u)
		maxWait := p.maxWait()
		fits := func(w time.Duration) bool {
			return (maxWait == NoLimit || w <= maxWait) && (s.Deadline.IsZero() || p.leavesAttemptTime(d.Remaining, w))
		}
		backoffWait := draw
		if maxWait != NoLimit {
			backoffWait = min(draw, maxWait)
		}
		switch {
		case d.Wait < ra:
			rt.Fatalf("wait %v is earlier than the requested %v", d.Wait, ra)
		case d.Wait > max(backoffWait, time.Duration(float64(ra)*(1+f))):
			rt.Fatalf("wait %v passes both the backoff's %v and the requested %v plus %v of it", d.Wait, backoffWait, ra, f)
		case !fits(d.Wait):
			rt.Fatalf("wait %v passes MaxWait %v or the deadline (%v left, MinAttemptTime %v)", d.Wait, maxWait, d.Remaining, p.MinAttemptTime)
		}
		want := max(backoffWait, spreadWait)
		if !fits(want) {
			want = ra // the extra does not fit: exactly what was asked
		}
		if d.Wait != want {
			rt.Fatalf("wait %v, want %v (requested %v, spread %v, u %v, backoff %v)", d.Wait, want, ra, f, u, backoffWait)
		}
	})
}

// Clients told the same Retry-After come back spread over the whole allowed range, not in
// step: 2,000 draws from the default spread of a 1 s Retry-After cover [1 s, 2 s) in every
// 100 ms slice.
func TestRetryAfterSpreadCoversTheRange(t *testing.T) {
	p := &Policy{} // defaults: exponential backoff from 100 ms, spread 1
	var slices [10]int
	for range 2000 {
		d := Decide(p, State{Attempt: 1, Start: t0, Now: t0}, Outcome{Status: 429, RetryAfter: time.Second, HasRetryAfter: true})
		if d.Wait < time.Second || d.Wait >= 2*time.Second {
			t.Fatalf("wait %v outside [1s, 2s)", d.Wait)
		}
		slices[(d.Wait-time.Second)/(100*time.Millisecond)]++
	}
	for i, n := range slices {
		if n < 100 { // 200 expected per slice; below 100 is about 8 standard deviations off
			t.Errorf("slice %d of [1s, 2s) got %d of 2000 waits: %v", i, n, slices)
		}
	}
}

// A RetryAfterSpread outside (0, 1] (and not NoRetryAfterSpread) is refused by name.
func TestRetryAfterSpreadValidate(t *testing.T) {
	for _, v := range []float64{-0.5, -2, 1.01, 2} {
		err := (&Policy{RetryAfterSpread: v}).Validate()
		want := "retry: invalid policy: RetryAfterSpread " + formatFloat(v) + " is invalid: use a ratio in (0, 1], 0 for the default 1, or NoRetryAfterSpread"
		if err == nil || err.Error() != want {
			t.Errorf("Validate(RetryAfterSpread %v) = %v, want %q", v, err, want)
		}
	}
	for _, v := range []float64{0, NoRetryAfterSpread, 0.01, 1} {
		if err := (&Policy{RetryAfterSpread: v}).Validate(); err != nil {
			t.Errorf("Validate(RetryAfterSpread %v) = %v, want nil", v, err)
		}
	}
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
