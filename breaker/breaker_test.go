package breaker

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

const (
	ok        = retry.ResultSuccess
	fail      = retry.ResultFailure
	ignored   = retry.ResultIgnored
	throttled = retry.ResultThrottled
)

type change struct {
	from, to State
	at       time.Duration // since the test's start
}

// newRecorded returns a breaker whose state changes are appended to *changes, timed from
// the moment of the call.
func newRecorded(t *testing.T, cfg Config, changes *[]change) *Breaker {
	t.Helper()
	start := time.Now()
	cfg.OnStateChange = func(from, to State, at time.Time) { *changes = append(*changes, change{from, to, at.Sub(start)}) }
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs one admitted call with result r, failing the test when the breaker refuses it.
func call(t *testing.T, b *Breaker, r retry.Result) {
	t.Helper()
	token, admitted, retryIn := b.Allow()
	if !admitted {
		t.Fatalf("refused in %v (retryIn %v), want admitted", b.State(), retryIn)
	}
	b.Done(token, r)
}

func wantRefused(t *testing.T, b *Breaker, wantIn time.Duration) {
	t.Helper()
	if _, admitted, in := b.Allow(); admitted || in != wantIn {
		t.Fatalf("Allow in %v: admitted %v, retryIn %v; want refused, retryIn %v", b.State(), admitted, in, wantIn)
	}
}

func wantState(t *testing.T, b *Breaker, s State) {
	t.Helper()
	if got := b.State(); got != s {
		t.Fatalf("state %v, want %v", got, s)
	}
}

func wantChanges(t *testing.T, got []change, want ...change) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("changes %v, want %v", got, want)
		}
	}
}

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{StateClosed: "CLOSED", StateOpen: "OPEN", StateHalfOpen: "HALF_OPEN", 7: "State(7)"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
}

// The defaults of SPEC R5.2: three failures open it, 30 s later a trial, success closes.
func TestDefaultsOpenAfterThreeFailuresAndRecover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{}, &changes)
		call(t, b, fail)
		call(t, b, fail)
		wantState(t, b, StateClosed)
		time.Sleep(time.Second)
		call(t, b, fail)
		wantState(t, b, StateOpen)
		wantRefused(t, b, 30*time.Second)
		time.Sleep(10 * time.Second)
		wantRefused(t, b, 20*time.Second)
		time.Sleep(20 * time.Second)
		token, admitted, _ := b.Allow() // the trial call
		if !admitted {
			t.Fatal("trial refused at 31 s")
		}
		wantState(t, b, StateHalfOpen)
		wantRefused(t, b, -1) // one trial at a time by default
		time.Sleep(time.Second)
		b.Done(token, ok)
		wantState(t, b, StateClosed)
		wantChanges(t, changes,
			change{StateClosed, StateOpen, time.Second},
			change{StateOpen, StateHalfOpen, 31 * time.Second},
			change{StateHalfOpen, StateClosed, 32 * time.Second})
	})
}

func TestSuccessAndPermanentResetConsecutiveCount(t *testing.T) {
	b, _ := New(Config{})
	call(t, b, fail)
	call(t, b, fail)
	call(t, b, ok)
	call(t, b, fail)
	call(t, b, fail)
	call(t, b, ignored) // not counted either way
	wantState(t, b, StateClosed)
	call(t, b, fail)
	wantState(t, b, StateOpen)
}

func TestTrialFailureReopens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{ConsecutiveFailures: 1, OpenTimeout: 5 * time.Second}, &changes)
		call(t, b, fail)
		time.Sleep(5 * time.Second)
		call(t, b, fail)
		wantState(t, b, StateOpen)
		wantRefused(t, b, 5*time.Second)
		wantChanges(t, changes,
			change{StateClosed, StateOpen, 0},
			change{StateOpen, StateHalfOpen, 5 * time.Second},
			change{StateHalfOpen, StateOpen, 5 * time.Second})
	})
}

func TestHalfOpenTrialsAndSuccessThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := New(Config{ConsecutiveFailures: 1, OpenTimeout: time.Second, HalfOpenCalls: 3, SuccessThreshold: 2})
		call(t, b, fail)
		time.Sleep(time.Second)
		t1, ok1, _ := b.Allow()
		t2, ok2, _ := b.Allow()
		t3, ok3, _ := b.Allow()
		if !ok1 || !ok2 || !ok3 {
			t.Fatal("three trial calls not all admitted")
		}
		wantRefused(t, b, -1)
		b.Done(t1, ok)
		wantState(t, b, StateHalfOpen)
		wantRefused(t, b, -1) // a success does not free a place: three trials in all
		b.Done(t2, ignored)   // the caller's cancellation gives its place back
		t4, ok4, _ := b.Allow()
		if !ok4 {
			t.Fatal("place of an ignored trial not given back")
		}
		b.Done(t3, ok)
		wantState(t, b, StateClosed)
		b.Done(t4, fail) // stale: the breaker closed since t4 was admitted
		call(t, b, ok)
		wantState(t, b, StateClosed)
	})
}

func TestStaleResultsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := New(Config{ConsecutiveFailures: 2, OpenTimeout: time.Second})
		slow, _, _ := b.Allow() // admitted in CLOSED, reports late
		call(t, b, fail)
		call(t, b, fail)
		wantState(t, b, StateOpen)
		b.Done(slow, ok) // must not close an OPEN breaker
		wantState(t, b, StateOpen)
		time.Sleep(time.Second)
		trial, _, _ := b.Allow()
		b.Done(slow, ok) // nor close a HALF_OPEN one
		wantState(t, b, StateHalfOpen)
		b.Done(trial, ok)
		wantState(t, b, StateClosed)
		call(t, b, fail)
		b.Done(slow, fail) // a CLOSED token of an earlier generation counts nothing
		b.Done(trial, fail)
		wantState(t, b, StateClosed)
		b.Done(trial, ok) // reported twice: the second is stale too
		call(t, b, fail)
		wantState(t, b, StateOpen)
	})
}

func TestFailureRateOverWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 50% of at least 4 calls over 10 s (buckets of 1 s); no consecutive rule.
		b, _ := New(Config{FailureRate: 0.5, MinCalls: 4, Window: 10 * time.Second})
		call(t, b, fail)
		call(t, b, fail)
		call(t, b, fail) // 3 failures in a row: not a rule here
		wantState(t, b, StateClosed)
		time.Sleep(10 * time.Second) // those three slide out
		call(t, b, ok)
		call(t, b, ok)
		call(t, b, fail)
		wantState(t, b, StateClosed) // 1 of 3 calls, under MinCalls
		time.Sleep(9500 * time.Millisecond)
		call(t, b, ok)   // 1 of 4
		call(t, b, fail) // 2 of 5 < 50%
		wantState(t, b, StateClosed)
		call(t, b, fail) // 3 of 6 = 50%
		wantState(t, b, StateOpen)
	})
}

func TestFailureRateAndConsecutiveTogether(t *testing.T) {
	b, _ := New(Config{FailureRate: 0.9, ConsecutiveFailures: 2})
	call(t, b, fail)
	call(t, b, fail)
	wantState(t, b, StateOpen)
}

func TestFailureRateWindowResetOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := New(Config{FailureRate: 0.5, MinCalls: 2, OpenTimeout: time.Second})
		call(t, b, ok)
		call(t, b, fail) // 1 of 2
		wantState(t, b, StateOpen)
		time.Sleep(time.Second)
		call(t, b, ok) // trial closes; the window starts empty
		call(t, b, fail)
		wantState(t, b, StateClosed) // 1 of 1 call since closing: under MinCalls
		call(t, b, ok)
		call(t, b, fail)
		wantState(t, b, StateOpen) // 2 of 3 calls since closing
	})
}

func TestOpenJitterBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := New(Config{ConsecutiveFailures: 1, OpenTimeout: 10 * time.Second, OpenJitter: 0.5})
		seen := map[time.Duration]bool{}
		for range 50 {
			call(t, b, fail)
			_, _, in := b.Allow()
			if in < 10*time.Second || in >= 15*time.Second {
				t.Fatalf("open for %v, want in [10s, 15s)", in)
			}
			seen[in] = true
			time.Sleep(in)
			call(t, b, ok)
		}
		if len(seen) < 10 {
			t.Errorf("only %d distinct open times in 50", len(seen))
		}
	})
}

func TestZeroBreakerIsDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b Breaker
		call(t, &b, fail)
		call(t, &b, fail)
		call(t, &b, fail)
		wantState(t, &b, StateOpen)
		wantRefused(t, &b, DefaultOpenTimeout)
	})
}

func TestHookMayCallBreaker(t *testing.T) {
	var b *Breaker
	var seen []State
	b, _ = New(Config{ConsecutiveFailures: 1, OnStateChange: func(_, to State, _ time.Time) { seen = append(seen, b.State(), to) }})
	call(t, b, fail) // would deadlock if the hook ran under the lock
	if len(seen) != 2 || seen[0] != StateOpen || seen[1] != StateOpen {
		t.Errorf("hook saw %v", seen)
	}
}
