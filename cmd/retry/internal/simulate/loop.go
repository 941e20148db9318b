package simulate

import (
	"time"

	"github.com/retrykit/retry"
)

// startLoop begins a retry loop now on the simulator's virtual time. It drives a retry.Loop,
// the same state machine retry.Run drives with the real clock, so a simulated client applies
// exactly the library's rules (breaker admission, retry.Decide, the budget, the deadline
// check after a wait); only the waiting differs: events on the simulator's clock instead of
// timers. parentDeadline is the deadline of the enclosing attempt (the zero Time for none);
// nested says the loop runs inside another loop's attempt (what retry.InLoop reports in a
// real process). attempt starts one attempt bounded by deadline and calls done with its
// outcome; finish receives the final decision.
func startLoop(sm *sim, p *retry.Policy, nested bool, parentDeadline time.Time,
	attempt func(deadline time.Time, done func(retry.Outcome)), finish func(retry.Decision)) {
	beginLoop(sm, p, nested, parentDeadline, 0, attempt, finish)
}

// startOuterLoop begins a retry loop now that is attempt number outer of a retry loop
// outside it (retry.Loop.SetOuterAttempt), as package retryhttp runs one for each attempt of
// an SDK's own loop: it makes that one attempt, waiting at its gates first, and finish
// receives its decision: a stop, or a retry left to the outer loop after Decision.Wait.
func startOuterLoop(sm *sim, p *retry.Policy, outer int,
	attempt func(deadline time.Time, done func(retry.Outcome)), finish func(retry.Decision)) {
	beginLoop(sm, p, false, time.Time{}, outer, attempt, finish)
}

// beginLoop is startLoop and startOuterLoop: outer is 0 for a loop that retries by itself.
func beginLoop(sm *sim, p *retry.Policy, nested bool, parentDeadline time.Time, outer int,
	attempt func(deadline time.Time, done func(retry.Outcome)), finish func(retry.Decision)) {
	r := sm.newLoopRun()
	if err := r.loop.Reset(p, sm.clock(), parentDeadline, nested); err != nil {
		sm.freeRuns = append(sm.freeRuns, r)
		sm.fail(err)
		return
	}
	r.loop.SetOuterAttempt(outer)
	r.attempt, r.finish, r.outer = attempt, finish, outer > 0
	r.next()
}

// loopRun is one retry loop on the simulator: the retry.Loop and the driver's callbacks.
// Runs are kept for reuse once their loop has stopped, and their next and done methods are
// bound once, so that a loop costs no allocation per attempt or per wait.
type loopRun struct {
	sm      *sim
	loop    retry.Loop
	attempt func(deadline time.Time, done func(retry.Outcome))
	finish  func(retry.Decision)
	outer   bool                // the loop makes one attempt and leaves a retry to the loop outside it
	nextFn  func()              // r.next, bound once
	doneFn  func(retry.Outcome) // r.done, bound once
}

// newLoopRun returns a free loopRun of sm, or a new one.
func (sm *sim) newLoopRun() *loopRun {
	if n := len(sm.freeRuns); n > 0 {
		r := sm.freeRuns[n-1]
		sm.freeRuns = sm.freeRuns[:n-1]
		return r
	}
	r := &loopRun{sm: sm}
	r.nextFn, r.doneFn = r.next, r.done
	return r
}

// next asks the loop what to do now and does it.
func (r *loopRun) next() {
	step := r.loop.Next(r.sm.clock())
	switch step.Action {
	case retry.ActionStop:
		r.stop(r.loop.Decision())
	case retry.ActionWait:
		r.sm.after(step.Wait, r.nextFn)
	default:
		r.attempt(step.Deadline, r.doneFn)
	}
}

// done records an attempt's outcome, then waits or stops as the loop decides.
func (r *loopRun) done(o retry.Outcome) {
	d := r.loop.Done(r.sm.clock(), o, nil)
	if !d.Retry || r.outer {
		r.stop(d)
		return
	}
	r.sm.after(d.Wait, r.nextFn)
}

// stop frees r before calling finish: finish may start loops that reuse it, and nothing
// touches r afterwards.
func (r *loopRun) stop(d retry.Decision) {
	finish := r.finish
	r.attempt, r.finish = nil, nil
	r.sm.freeRuns = append(r.sm.freeRuns, r)
	finish(d)
}
