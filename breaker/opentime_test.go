package breaker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"pgregory.net/rapid"
)

// Issue 32 item 5, the rule of Config.OpenTime: never below MinOpenTimeout nor above
// MaxOpenTimeout; OpenTimeout for a first opening without a server's wait; the server's
// wait, within the bounds, for a first opening with one; never shorter for more openings in
// a row; exactly base × OpenTimeoutMultiplier^(n-1) below the cap.
func TestOpenTimeRule(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ms := func(lo, hi int, label string) time.Duration {
			return time.Duration(rapid.IntRange(lo, hi).Draw(rt, label)) * time.Millisecond
		}
		cfg := Config{OpenTimeout: ms(0, 100_000, "openTimeout"),
			OpenTimeoutMultiplier: rapid.Float64Range(1, MaxOpenTimeoutMultiplier).Draw(rt, "multiplier")}
		if rapid.Bool().Draw(rt, "defaultMultiplier") {
			cfg.OpenTimeoutMultiplier = 0
		}
		open := cfg.openTimeout()
		if rapid.Bool().Draw(rt, "max") {
			cfg.MaxOpenTimeout = open + ms(0, 1_000_000, "maxOver")
		}
		if rapid.Bool().Draw(rt, "min") {
			cfg.MinOpenTimeout = max(time.Nanosecond, open-ms(0, int(open/time.Millisecond), "minUnder"))
		}
		if err := cfg.Validate(); err != nil {
			rt.Fatal(err)
		}
		lo, hi := cfg.minOpenTimeout(), cfg.maxOpenTimeout()
		wait := ms(-10, 2_000_000, "retryAfter")
		base := open
		if wait > 0 {
			base = min(max(wait, lo), hi)
		}
		last := time.Duration(0)
		for n := -1; n <= 40; n++ {
			d := cfg.OpenTime(n, wait)
			if d < lo || d > hi {
				rt.Fatalf("OpenTime(%d, %v) = %v, outside [%v, %v]", n, wait, d, lo, hi)
			}
			if d < last {
				rt.Fatalf("OpenTime(%d, %v) = %v, shorter than %v for one opening fewer", n, wait, d, last)
			}
			last = d
			if n <= 1 && d != base {
				rt.Fatalf("OpenTime(%d, %v) = %v, want the base %v", n, wait, d, base)
			}
		}
		if cfg.openTimeoutMultiplier() == 1 && cfg.OpenTime(40, wait) != base {
			rt.Fatalf("without growth OpenTime(40, %v) = %v, want %v", wait, cfg.OpenTime(40, wait), base)
		}
	})
	// The values, exactly: Envoy's default max_ejection_time as the cap.
	cfg := Config{OpenTimeoutMultiplier: 2}
	for n, want := range []time.Duration{30 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute} {
		if got := cfg.OpenTime(n, 0); got != want {
			t.Errorf("OpenTime(%d, 0) = %v, want %v", n, got, want)
		}
	}
	for wait, want := range map[time.Duration]time.Duration{time.Second: 30 * time.Second, 90 * time.Second: 90 * time.Second, time.Hour: 5 * time.Minute} {
		if got := cfg.OpenTime(1, wait); got != want {
			t.Errorf("OpenTime(1, %v) = %v, want %v", wait, got, want)
		}
	}
	cfg.MinOpenTimeout = time.Second
	if got := cfg.OpenTime(3, 2*time.Second); got != 8*time.Second {
		t.Errorf("OpenTime(3, 2s) with MinOpenTimeout 1s = %v, want 8s", got)
	}
}

// trip opens b from CLOSED with failures, the last one asking for wait.
func trip(t *testing.T, b *Breaker, wait time.Duration) {
	t.Helper()
	for b.State() == StateClosed {
		token, admitted, _ := b.Allow()
		if !admitted {
			t.Fatal("refused in CLOSED")
		}
		b.DoneRetryAfter(token, fail, wait)
	}
}

// failTrial waits for the open time to end and fails the trial call, asking for wait.
func failTrial(t *testing.T, b *Breaker, wait time.Duration) {
	t.Helper()
	time.Sleep(b.RetryIn())
	token, admitted, _ := b.Allow()
	if !admitted || b.State() != StateHalfOpen {
		t.Fatalf("no trial call: admitted %v in %v", admitted, b.State())
	}
	b.DoneRetryAfter(token, fail, wait)
	wantState(t, b, StateOpen)
}

// Issue 32 item 5: the failure that opens the breaker asked for a wait longer than
// OpenTimeout (a 503 with Retry-After: 90): the breaker stays OPEN 90 s, and says so to
// Allow, RetryIn, Execute's *OpenError and a retry loop's *retry.Error. A wait beyond
// MaxOpenTimeout is cut to it; a shorter one than OpenTimeout keeps OpenTimeout, unless
// MinOpenTimeout lets it shorten the open time.
func TestOpenForTheServersWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{}, &changes)
		trip(t, b, 90*time.Second)
		wantRefused(t, b, 90*time.Second)
		time.Sleep(30 * time.Second)
		if in := b.RetryIn(); in != time.Minute {
			t.Fatalf("RetryIn 30 s after opening = %v, want 1m", in)
		}
		var open *OpenError
		if err := b.Execute(context.Background(), func(context.Context) error { return nil }); !errors.As(err, &open) || open.RetryIn != time.Minute {
			t.Fatalf("Execute = %v, want an *OpenError with RetryIn 1m", err)
		}
		// The record field and the loop's stop say the same.
		err := retry.Do(context.Background(), &retry.Policy{Breaker: b}, func(context.Context) error { return nil })
		var stop *retry.Error
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonCircuitOpen {
			t.Fatalf("retry.Do = %v, want a circuit_open stop", err)
		}
		if d, ok := stop.RetryAfter(); !ok || d != time.Minute || stop.RetryAfterFrom() != "circuit-breaker" {
			t.Errorf("RetryAfter = %v, %v from %q; want 1m from the breaker", d, ok, stop.RetryAfterFrom())
		}
		if a := b.RecordAttrs(time.Now()); a[0].Equal(slog.String("breaker", "OPEN")) == false {
			t.Errorf("record field %v, want breaker=OPEN", a[0])
		}
		time.Sleep(time.Minute)
		call(t, b, ok)
		wantChanges(t, changes,
			change{StateClosed, StateOpen, 0},
			change{StateOpen, StateHalfOpen, 90 * time.Second},
			change{StateHalfOpen, StateClosed, 90 * time.Second})

		// Beyond MaxOpenTimeout (5 min by default): 5 min. The breaker stayed CLOSED for 0 s,
		// shorter than its last open time, but without growth the count changes nothing.
		trip(t, b, time.Hour)
		wantRefused(t, b, 5*time.Minute)

		// Shorter than OpenTimeout: OpenTimeout by default, the wait with MinOpenTimeout.
		short, _ := New(Config{})
		trip(t, short, 5*time.Second)
		wantRefused(t, short, 30*time.Second)
		short, _ = New(Config{MinOpenTimeout: time.Second})
		trip(t, short, 5*time.Second)
		wantRefused(t, short, 5*time.Second)
		short, _ = New(Config{MinOpenTimeout: time.Second})
		trip(t, short, time.Millisecond)
		wantRefused(t, short, time.Second)
	})
}

// Issue 32 item 5: with OpenTimeoutMultiplier 2, each failed trial doubles the open time, up
// to MaxOpenTimeout (Envoy's ejection time grows so, resilience4j's
// IntervalFunction.ofExponentialBackoff too); a breaker that closes and soon opens again
// goes on growing; one that stayed CLOSED as long as it was last OPEN starts again from
// OpenTimeout; Reset starts again too.
func TestOpenTimeGrowsAndResets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{ConsecutiveFailures: 1, OpenTimeout: 10 * time.Second, OpenTimeoutMultiplier: 2,
			MaxOpenTimeout: time.Minute}, &changes)
		start := time.Now()
		trip(t, b, 0)
		wantRefused(t, b, 10*time.Second)
		for _, want := range []time.Duration{20, 40, 60, 60} {
			failTrial(t, b, 0)
			wantRefused(t, b, want*time.Second)
		}
		if at := time.Since(start); at != 130*time.Second { // 10 + 20 + 40 + 60
			t.Fatalf("last opening at %v, want 2m10s", at)
		}
		wantChanges(t, changes[len(changes)-2:],
			change{StateOpen, StateHalfOpen, 130 * time.Second},
			change{StateHalfOpen, StateOpen, 130 * time.Second})

		// It closes, and fails again 59 s later (it was last OPEN 60 s): one more in a row.
		time.Sleep(time.Minute)
		call(t, b, ok)
		wantState(t, b, StateClosed)
		time.Sleep(59 * time.Second)
		trip(t, b, 0)
		wantRefused(t, b, time.Minute)
		// It closes, and fails again 60 s later: a new series, OpenTimeout again.
		time.Sleep(time.Minute)
		call(t, b, ok)
		time.Sleep(time.Minute)
		trip(t, b, 0)
		wantRefused(t, b, 10*time.Second)
		failTrial(t, b, 0)
		wantRefused(t, b, 20*time.Second)
		// A server's wait is the base that grows: the third in a row, asking for 12 s, 12 × 2².
		failTrial(t, b, 12*time.Second)
		wantRefused(t, b, 48*time.Second)
		b.Reset()
		trip(t, b, 0)
		wantRefused(t, b, 10*time.Second)
	})
}

// Issue 32 item 5, the reset as a property: after k failed trials in a row, a breaker that
// closes and stays CLOSED for a while d opens again for OpenTime(k+2) when d is shorter than
// its last open time (one more in a row), and for OpenTime(1) (the series starts again)
// otherwise; the open time never goes below MinOpenTimeout nor above MaxOpenTimeout.
func TestOpenTimeResetProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cfg := Config{ConsecutiveFailures: 1,
			OpenTimeout:           time.Duration(rapid.IntRange(1, 60).Draw(rt, "openTimeoutS")) * time.Second,
			OpenTimeoutMultiplier: rapid.Float64Range(1, 4).Draw(rt, "multiplier"),
		}
		cfg.MaxOpenTimeout = cfg.OpenTimeout * time.Duration(rapid.IntRange(1, 20).Draw(rt, "maxOpenTimes"))
		k := rapid.IntRange(0, 6).Draw(rt, "failedTrials")
		wait := time.Duration(rapid.IntRange(0, 120).Draw(rt, "retryAfterS")) * time.Second
		closedFor := time.Duration(rapid.IntRange(0, 1200).Draw(rt, "closedForS")) * time.Second
		var msg string
		synctest.Test(t, func(t *testing.T) {
			b, err := New(cfg)
			if err != nil {
				msg = err.Error()
				return
			}
			check := func(step string, want time.Duration) bool {
				in := b.RetryIn()
				if in < cfg.minOpenTimeout() || in > cfg.maxOpenTimeout() || in != want {
					msg = fmt.Sprintf("%s: open for %v, want %v within [%v, %v]", step, in, want, cfg.minOpenTimeout(), cfg.maxOpenTimeout())
					return false
				}
				return true
			}
			token, _, _ := b.Allow()
			b.DoneRetryAfter(token, fail, wait)
			if !check("first opening", cfg.OpenTime(1, wait)) {
				return
			}
			for n := 2; n <= k+1; n++ {
				time.Sleep(b.RetryIn())
				token, _, _ := b.Allow()
				b.DoneRetryAfter(token, fail, wait)
				if !check(fmt.Sprintf("opening %d in a row", n), cfg.OpenTime(n, wait)) {
					return
				}
			}
			last := cfg.OpenTime(k+1, wait)
			time.Sleep(b.RetryIn())
			token, _, _ = b.Allow()
			b.Done(token, ok)
			time.Sleep(closedFor)
			token, _, _ = b.Allow()
			b.DoneRetryAfter(token, fail, wait)
			want := cfg.OpenTime(1, wait)
			if closedFor < last {
				want = cfg.OpenTime(k+2, wait)
			}
			check(fmt.Sprintf("reopening after %v CLOSED (last open %v)", closedFor, last), want)
		})
		if msg != "" {
			rt.Fatal(msg)
		}
	})
}
