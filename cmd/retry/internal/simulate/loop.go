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
	l, err := retry.NewLoop(p, sm.clock(), parentDeadline, nested)
	if err != nil {
		sm.fail(err)
		return
	}
	var next func()
	next = func() {
		step := l.Next(sm.clock())
		switch step.Action {
		case retry.ActionStop:
			finish(l.Decision())
		case retry.ActionWait:
			sm.after(step.Wait, next)
		default:
			attempt(step.Deadline, func(o retry.Outcome) {
				d := l.Done(sm.clock(), o, nil)
				if !d.Retry {
					finish(d)
					return
				}
				sm.after(d.Wait, next)
			})
		}
	}
	next()
}
