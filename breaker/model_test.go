package breaker

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"pgregory.net/rapid"
)

// model is the reference state machine: plain fields, a list of calls for the window, no
// atomics, no tokens beyond a generation number. It is what the package documentation says.
type model struct {
	consecutive, minCalls, halfOpenCalls, successThreshold int
	rate                                                   float64
	window, trialTimeout                                   time.Duration
	cfg                                                    *Config // its OpenTime

	state     State
	gen       int
	failures  int
	openUntil time.Time
	trials    map[int]time.Time // HALF_OPEN: trial calls in flight, by number, with their admission time
	lastTrial int
	successes int
	epoch     time.Time // first call counted since the last close
	calls     []modelCall
	openings  int           // in a row
	openFor   time.Duration // the latest opening's
	closedAt  time.Time     // the latest close after an opening
}

type modelCall struct {
	at     time.Time
	failed bool
}

// enter moves the model to state s at now; wait is the wait of the failure that opened it.
func (m *model) enter(s State, now time.Time, wait time.Duration) {
	from := m.state
	m.state, m.gen, m.failures, m.trials, m.lastTrial, m.successes = s, m.gen+1, 0, map[int]time.Time{}, 0, 0
	switch s {
	case StateOpen:
		// Issue 32 item 5: one more opening in a row, unless it stayed CLOSED as long as
		// it was last OPEN.
		if from == StateClosed && (m.openings == 0 || now.Sub(m.closedAt) >= m.openFor) {
			m.openings = 0
		}
		m.openings++
		m.openFor = m.cfg.OpenTime(m.openings, wait)
		m.openUntil = now.Add(m.openFor)
	case StateClosed:
		m.calls, m.epoch, m.closedAt = nil, time.Time{}, now
	}
}

// allow answers as Allow does; trial numbers a HALF_OPEN trial call (0 otherwise).
func (m *model) allow(now time.Time) (gen, trial int, ok bool, retryIn time.Duration) {
	switch m.state {
	case StateOpen:
		if now.Before(m.openUntil) {
			return 0, 0, false, m.openUntil.Sub(now)
		}
		m.enter(StateHalfOpen, now, 0)
	case StateHalfOpen:
		for n, at := range m.trials {
			if now.Sub(at) >= m.trialTimeout { // never reported: presumed lost
				delete(m.trials, n)
			}
		}
		if len(m.trials)+m.successes >= m.halfOpenCalls {
			return 0, 0, false, -1
		}
	default:
		return m.gen, 0, true, 0
	}
	m.lastTrial++
	m.trials[m.lastTrial] = now
	return m.gen, m.lastTrial, true, 0
}

// retryIn answers as RetryIn does.
func (m *model) retryIn(now time.Time) time.Duration {
	switch m.state {
	case StateOpen:
		return max(0, m.openUntil.Sub(now))
	case StateHalfOpen:
		inFlight := 0
		for _, at := range m.trials {
			if now.Sub(at) < m.trialTimeout {
				inFlight++
			}
		}
		if inFlight+m.successes >= m.halfOpenCalls {
			return -1
		}
	}
	return 0
}

// inWindow counts the calls whose bucket is one of the last ten at now.
func (m *model) inWindow(now time.Time) (calls, failures int) {
	width := m.window / windowBuckets
	cur := now.Sub(m.epoch) / width
	for _, c := range m.calls {
		if c.at.Sub(m.epoch)/width > cur-windowBuckets {
			calls++
			if c.failed {
				failures++
			}
		}
	}
	return calls, failures
}

func (m *model) done(gen, trial int, r retry.Result, wait time.Duration, now time.Time) {
	switch r { // issue 32 item 1: a throttle is a success; a Result unknown here is ignored
	case retry.ResultThrottled:
		r = retry.ResultSuccess
	case retry.ResultSuccess, retry.ResultFailure, retry.ResultIgnored:
	default:
		r = retry.ResultIgnored
	}
	if gen != m.gen || r == retry.ResultIgnored && m.state == StateClosed {
		return
	}
	switch m.state {
	case StateClosed:
		failed := r == retry.ResultFailure
		if failed {
			m.failures++
		} else {
			m.failures = 0
		}
		trip := failed && m.consecutive > 0 && m.failures >= m.consecutive
		if m.rate > 0 {
			if m.epoch.IsZero() {
				m.epoch = now
			}
			m.calls = append(m.calls, modelCall{now, failed})
			calls, failures := m.inWindow(now)
			trip = trip || failed && calls >= m.minCalls && float64(failures) >= m.rate*float64(calls)
		}
		if trip {
			m.enter(StateOpen, now, wait)
		}
	case StateHalfOpen:
		delete(m.trials, trial) // a result presumed lost counts all the same
		switch r {
		case retry.ResultFailure:
			m.enter(StateOpen, now, wait)
		case retry.ResultSuccess:
			if m.successes++; m.successes >= m.successThreshold {
				m.enter(StateClosed, now, 0)
			}
		}
	}
}

type op struct {
	kind   int // 0 allow, 1 done, 2 sleep
	pick   int // done: which outstanding call (mod their number)
	result retry.Result
	wait   time.Duration // done: the wait the answer asked for (DoneRetryAfter); 0 for Done
	sleep  time.Duration
}

func (o op) String() string {
	switch o.kind {
	case 0:
		return "allow"
	case 1:
		if o.wait != 0 {
			return fmt.Sprintf("doneRetryAfter(#%d, %v, %v)", o.pick, o.result, o.wait)
		}
		return fmt.Sprintf("done(#%d, %v)", o.pick, o.result)
	}
	return fmt.Sprintf("sleep(%v)", o.sleep)
}

// TestModel runs random sequences of calls, results (some stale, some ignored, some
// throttled, some with a server's wait, some of a Result unknown here) and clock steps on a
// Breaker and on the model, under synctest's fake clock, and requires the same answers
// (RetryIn included: the open time learned, issue 32 item 5), states and state changes at
// every step. It also checks that HalfOpenCalls bounds the trial calls in flight (admitted
// in the current HALF_OPEN episode, not reported, not older than TrialTimeout) at every
// step.
func TestModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		// Sleeps of 7 to 280 ms between the steps make trial calls that last from nothing to
		// many times OpenTimeout (10 to 200 ms), and outlive TrialTimeout or not.
		cfg := Config{
			ConsecutiveFailures: rapid.IntRange(0, 4).Draw(rt, "consecutive"),
			OpenTimeout:         time.Duration(rapid.IntRange(1, 20).Draw(rt, "openTimeout")) * 10 * time.Millisecond,
			TrialTimeout:        time.Duration(rapid.IntRange(0, 100).Draw(rt, "trialTimeout")) * 10 * time.Millisecond,
			HalfOpenCalls:       rapid.IntRange(1, 3).Draw(rt, "halfOpenCalls"),
			// Issue 32 item 5: open times that grow and follow a server's wait.
			OpenTimeoutMultiplier: []float64{0, 1, 1.5, 2}[rapid.IntRange(0, 3).Draw(rt, "multiplier")],
		}
		if rapid.Bool().Draw(rt, "bounds") {
			cfg.MaxOpenTimeout = cfg.OpenTimeout * time.Duration(rapid.IntRange(1, 8).Draw(rt, "maxOpenTimes"))
			cfg.MinOpenTimeout = cfg.OpenTimeout / time.Duration(rapid.IntRange(1, 4).Draw(rt, "minOpenShare"))
		}
		cfg.SuccessThreshold = rapid.IntRange(0, cfg.HalfOpenCalls).Draw(rt, "successThreshold")
		if rapid.Bool().Draw(rt, "rateRule") {
			cfg.FailureRate = float64(rapid.IntRange(1, 4).Draw(rt, "rateQuarters")) / 4
			cfg.MinCalls = rapid.IntRange(1, 6).Draw(rt, "minCalls")
			cfg.Window = time.Duration(rapid.IntRange(1, 20).Draw(rt, "window")) * 50 * time.Millisecond
		}
		ops := rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) op {
			return op{
				kind:   rapid.IntRange(0, 2).Draw(rt, "kind"),
				pick:   rapid.IntRange(0, 7).Draw(rt, "pick"),
				result: []retry.Result{ok, fail, ignored, throttled, 9}[rapid.IntRange(0, 4).Draw(rt, "result")],
				wait:   time.Duration(rapid.IntRange(-1, 30).Draw(rt, "wait")) * 10 * time.Millisecond,
				sleep:  time.Duration(rapid.IntRange(1, 40).Draw(rt, "sleep")) * 7 * time.Millisecond,
			}
		}), 40, 300).Draw(rt, "ops")
		if msg := runModel(t, cfg, ops); msg != "" {
			rt.Fatal(msg)
		}
	})
}

// runModel plays ops in a synctest bubble and returns a description of the first
// disagreement, or "".
func runModel(t *testing.T, cfg Config, ops []op) (msg string) {
	synctest.Test(t, func(t *testing.T) {
		var got, want []change
		start := time.Now()
		cfg.OnStateChange = func(from, to State, at time.Time) { got = append(got, change{from, to, at.Sub(start)}) }
		b, err := New(cfg)
		if err != nil {
			msg = err.Error()
			return
		}
		m := &model{consecutive: cfg.consecutiveFailures(), minCalls: cfg.minCalls(), rate: cfg.FailureRate,
			window: cfg.window(), cfg: &cfg, trialTimeout: cfg.trialTimeout(),
			halfOpenCalls: cfg.halfOpenCalls(), successThreshold: cfg.successThreshold()}
		type outstanding struct {
			token      uint64
			gen, trial int
			at         time.Time
		}
		var calls []outstanding
		for i, o := range ops {
			now := time.Now()
			before := m.state
			switch o.kind {
			case 0:
				token, ok, in := b.Allow()
				gen, trial, wantOK, wantIn := m.allow(now)
				if ok != wantOK || in != wantIn {
					msg = fmt.Sprintf("step %d %v: Allow = %v, %v; model %v, %v", i, o, ok, in, wantOK, wantIn)
					return
				}
				if ok {
					calls = append(calls, outstanding{token, gen, trial, now})
				}
			case 1:
				if len(calls) == 0 {
					continue
				}
				k := o.pick % len(calls)
				c := calls[k]
				calls = append(calls[:k], calls[k+1:]...)
				if o.wait != 0 {
					b.DoneRetryAfter(c.token, o.result, o.wait)
				} else {
					b.Done(c.token, o.result)
				}
				m.done(c.gen, c.trial, o.result, max(0, o.wait), now)
			case 2:
				time.Sleep(o.sleep)
			}
			if m.state != before {
				want = append(want, change{before, m.state, now.Sub(start)})
			}
			if m.state == StateHalfOpen {
				inFlight := 0
				for _, c := range calls {
					if c.gen == m.gen && now.Sub(c.at) < m.trialTimeout {
						inFlight++
					}
				}
				if inFlight > m.halfOpenCalls {
					msg = fmt.Sprintf("step %d %v: %d trial calls in flight, HalfOpenCalls %d", i, o, inFlight, m.halfOpenCalls)
					return
				}
			}
			if in, wantIn := b.RetryIn(), m.retryIn(time.Now()); in != wantIn {
				msg = fmt.Sprintf("step %d %v: RetryIn %v, model %v", i, o, in, wantIn)
				return
			}
			if b.State() != m.state || len(got) != len(want) || len(got) > 0 && got[len(got)-1] != want[len(want)-1] {
				msg = fmt.Sprintf("step %d %v: state %v, changes %v; model %v, %v", i, o, b.State(), got, m.state, want)
				return
			}
		}
	})
	return msg
}
