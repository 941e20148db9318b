package simulate

import (
	"context"
	"time"

	"github.com/retrykit/retry"
)

// startHedgedLoop begins, now, a retry loop that hedges, on the simulator's virtual time: it
// drives a retry.Loop as retry.RunConcurrent does with the real clock (an attempt and its
// hedges side by side, a hedge asked for when Step.HedgeAfter passes with no answer, the
// attempts still in flight canceled at once when the loop decides to stop), so a simulated
// client hedges under exactly the library's rules. attempt is told of each attempt started
// (step.Hedge > 0 for a hedge) and returns how long it runs and its outcome; a canceled one
// ends when it is canceled, with context.Canceled. finish receives the loop's final
// decision.
func startHedgedLoop(sm *sim, p *retry.Policy, attempt func(step retry.Step) (time.Duration, retry.Outcome),
	finish func(retry.Decision)) {
	r := &hedgedRun{sm: sm, attempt: attempt, finish: finish}
	if err := r.loop.Reset(p, sm.clock(), time.Time{}, false); err != nil {
		sm.fail(err)
		return
	}
	r.next()
}

// hedgedRun is one hedging loop on the simulator.
type hedgedRun struct {
	sm      *sim
	loop    retry.Loop
	attempt func(step retry.Step) (time.Duration, retry.Outcome)
	finish  func(retry.Decision)
	// flights[h] is the generation of the attempt in flight in slot h (0: the attempt, h:
	// its h-th hedge), 0 when none is; a generation ends an event that outlived its attempt.
	flights [1 + retry.MaxHedges]uint64
	gen     uint64
	timer   uint64 // the generation of the pending hedge timer; 0 for none
	done    bool
}

// next asks the loop what to do now and does it.
func (r *hedgedRun) next() {
	step := r.loop.Next(r.sm.clock())
	switch step.Action {
	case retry.ActionStop:
		r.stop(r.loop.Decision())
	case retry.ActionWait:
		r.sm.after(step.Wait, r.next)
	case retry.ActionAttempt:
		r.start(step)
	}
}

// start runs the attempt step asks for, and arms the hedge timer it asks for.
func (r *hedgedRun) start(step retry.Step) {
	runs, o := r.attempt(step)
	r.gen++
	gen, slot := r.gen, step.Hedge
	r.flights[slot] = gen
	r.sm.after(runs, func() {
		if r.flights[slot] != gen {
			return // canceled
		}
		r.flights[slot] = 0
		r.end(slot, o)
	})
	r.arm(step.HedgeAfter)
}

// arm sets the hedge timer to after from now; 0 disarms it.
func (r *hedgedRun) arm(after time.Duration) {
	r.timer = 0
	if after <= 0 {
		return
	}
	r.gen++
	timer := r.gen
	r.timer = timer
	r.sm.after(after, func() {
		if r.timer != timer || r.done {
			return
		}
		r.timer = 0
		step := r.loop.Next(r.sm.clock())
		if step.Action == retry.ActionAttempt {
			r.start(step)
			return
		}
		r.arm(step.HedgeAfter)
	})
}

// end records the end of the attempt in slot; the loop's decision stops the round, or waits
// and starts the next.
func (r *hedgedRun) end(slot int, o retry.Outcome) {
	d := r.loop.DoneHedge(slot, r.sm.clock(), o, nil)
	if d.Lost {
		return
	}
	r.timer = 0
	if d.Retry {
		r.sm.after(d.Wait, r.next)
		return
	}
	for s, gen := range r.flights {
		if gen != 0 {
			r.flights[s] = 0
			r.loop.DoneHedge(s, r.sm.clock(), retry.Outcome{Err: context.Canceled}, nil)
		}
	}
	r.stop(d)
}

func (r *hedgedRun) stop(d retry.Decision) {
	r.done = true
	r.finish(d)
}
