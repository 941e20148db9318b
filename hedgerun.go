package retry

import (
	"context"
	"time"
)

// RunConcurrent is [Run] for an operation whose attempts are safe to run at the same time
// (an idempotent request, or one with an idempotency key): when p.Hedge is set, an attempt
// that has had no answer for the Hedger's delay gets a hedge, a copy of it run beside it on
// a goroutine of its own, and the first answer that decides is used (see
// [Loop.DoneHedge]). The others are canceled, their values discarded (Operation.Discard),
// and each is recorded with Decision.Lost set, before the loop's decision on the round. Each hedge
// passes the Hedger's budget, the circuit breaker and the retry budget first; the loop sends
// none after a server asked for a wait, nor when the time left is less than the delay
// (with exactly the delay left, the hedge is sent).
// [HedgeOf] tells a hedge's context from an attempt's.
//
// RunConcurrent returns once every attempt it started has returned: no goroutine or timer
// of its own outlives the call, and an attempt that does not heed its context's end holds
// the call up, as with Run. A panic in an attempt is raised again on the caller's
// goroutine once the other attempts have returned. Without p.Hedge it runs one attempt at
// a time, as Run does, at the cost of one allocation. The results and errors are Run's.
func RunConcurrent[T any](ctx context.Context, p *Policy, op Operation[T]) (value T, final Final, err error) {
	var l Loop
	return RunConcurrentIn(ctx, &l, p, op)
}

// RunConcurrentIn is [RunConcurrent] with the loop's state in l, as [RunIn].
func RunConcurrentIn[T any](ctx context.Context, l *Loop, p *Policy, op Operation[T]) (value T, final Final, err error) {
	r := &rounds[T]{attempt: op.Attempt, discard: op.Discard}
	r.callerDeadline, r.callerHasDeadline = ctx.Deadline()
	return run(ctx, l, p, op.Attempt, op.Discard, op.Attrs, op.OuterAttempt, r)
}

// rounds runs the rounds of a loop that hedges: an attempt and its hedges, each on a
// goroutine of its own. Only the driver's goroutine touches the Loop.
type rounds[T any] struct {
	attempt           func(context.Context) (T, Outcome)
	discard           func(T)
	callerDeadline    time.Time
	callerHasDeadline bool
	results           chan hedgeResult[T]
	cancels           [1 + MaxHedges]context.CancelFunc
	running           [1 + MaxHedges]bool
}

// hedgeResult is what one attempt of a round returned.
type hedgeResult[T any] struct {
	hedge    int
	value    T
	o        Outcome
	end      time.Time // when the attempt returned, read on its own goroutine
	panicked bool
	panicVal any
}

// round runs the round that step starts and returns the value of the attempt whose answer
// decided, l's decision (reported after the records of the attempts that lost) and the
// cancel of that attempt's context.
func (r *rounds[T]) round(ctx, scope context.Context, l *Loop, step Step, deadline time.Time) (T, *Decision, context.CancelFunc) {
	if r.results == nil {
		r.results = make(chan hedgeResult[T], 1+MaxHedges)
	}
	r.start(scope, step, deadline)
	defer r.cancelAll() // a panic of the driver's (a classifier's, an observer's) ends the round too
	inFlight := 1
	timer := time.NewTimer(step.HedgeAfter)
	defer timer.Stop()
	hedgeDue := timer.C
	var decision *Decision
	var won hedgeResult[T]
	var panicked *hedgeResult[T]
	for inFlight > 0 {
		select {
		case <-hedgeDue:
			next := l.Next(time.Now())
			if next.Action == ActionAttempt {
				r.start(scope, next, r.ownDeadline(next, l.s.Deadline))
				inFlight++
			}
			if next.HedgeAfter > 0 {
				timer.Reset(next.HedgeAfter)
			} else {
				hedgeDue = nil
			}
		case res := <-r.results:
			inFlight--
			r.running[res.hedge] = false
			if res.panicked {
				if panicked == nil {
					panicked = &res
				}
				r.cancelAll()
				continue
			}
			if panicked != nil {
				r.release(res)
				continue
			}
			end := res.end
			if end.Before(l.s.Now) {
				end = l.s.Now // the loop has seen a later time: never go back
			}
			d := l.doneAt(res.hedge, end, res.o, ctx.Err())
			if d.Lost {
				l.p.report(ctx, d)
				r.release(res)
				continue
			}
			decision, won, hedgeDue = d, res, nil
			if !d.Retry {
				r.cancelAll()
			}
		}
	}
	if panicked != nil {
		l.releaseHedges(time.Now(), panicked.hedge) // the gates hear of every attempt of the round
		panic(panicked.panicVal)
	}
	l.p.report(ctx, decision)
	return won.value, decision, r.cancels[won.hedge]
}

// ownDeadline is the deadline of a hedge's own context: the step's, when it comes before
// the loop's (loopDeadline, which the scope's context has) and the caller's.
func (r *rounds[T]) ownDeadline(step Step, loopDeadline time.Time) time.Time {
	if step.Deadline.IsZero() || !loopDeadline.IsZero() && !step.Deadline.Before(loopDeadline) {
		return time.Time{}
	}
	return attemptOwnDeadline(step.Deadline, r.callerDeadline, r.callerHasDeadline)
}

// start runs the attempt step asks for on a goroutine of its own, in a context of its own
// derived from scope, which the round cancels once it has no use for the attempt; deadline,
// when not zero, bounds it.
func (r *rounds[T]) start(scope context.Context, step Step, deadline time.Time) {
	parent := scope
	if step.Hedge > 0 {
		parent = &hedgeContext{Context: scope, attempt: step.Attempt, hedge: step.Hedge}
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if deadline.IsZero() {
		ctx, cancel = context.WithCancel(parent)
	} else {
		ctx, cancel = context.WithDeadline(parent, deadline)
	}
	r.cancels[step.Hedge], r.running[step.Hedge] = cancel, true
	go r.run(ctx, step.Hedge)
}

// run runs one attempt and sends what it returned, or its panic.
func (r *rounds[T]) run(ctx context.Context, hedge int) {
	res := hedgeResult[T]{hedge: hedge, panicked: true}
	defer func() {
		if res.panicked {
			res.panicVal = recover()
		}
		r.results <- res
	}()
	res.value, res.o = r.attempt(ctx)
	res.end, res.panicked = res.o.Ended, false
	if res.end.IsZero() {
		res.end = time.Now()
	}
}

// cancelAll cancels the attempts still in flight.
func (r *rounds[T]) cancelAll() {
	for i, running := range r.running {
		if running {
			r.cancels[i]()
		}
	}
}

// release discards the value of an attempt whose answer is not used, and ends its context.
func (r *rounds[T]) release(res hedgeResult[T]) {
	if r.discard != nil {
		r.discard(res.value)
	}
	r.cancels[res.hedge]()
}
