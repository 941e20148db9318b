package retry

import (
	"context"
	"sync"
	"time"
)

// loopKey is the context key under which a running loop marks its attempts' contexts.
type loopKey struct{}

// InLoop reports whether ctx belongs to an attempt of a retry loop of this package, that is,
// whether a loop started now would be nested inside another (SPEC R7.3).
func InLoop(ctx context.Context) bool {
	_, ok := ctx.Value(loopKey{}).(bool)
	return ok
}

// markedContext is the caller's context with the loop's mark: what an attempt runs with when
// the loop has no deadline of its own to impose on it. One serves every attempt of a loop.
type markedContext struct {
	context.Context
}

// Attempts under the root contexts share one marked context, so a loop under
// context.Background or context.TODO allocates none.
var (
	markedBackground = &markedContext{context.Background()}
	markedTODO       = &markedContext{context.TODO()}
)

// markContext returns parent with the loop's mark.
func markContext(parent context.Context) *markedContext {
	switch parent {
	case context.Background():
		return markedBackground
	case context.TODO():
		return markedTODO
	}
	return &markedContext{parent}
}

func (c *markedContext) Value(key any) any {
	if _, ok := key.(loopKey); ok {
		return true
	}
	return c.Context.Value(key)
}

// attemptContext is what an attempt runs with when the loop imposes a deadline on it: the
// caller's context plus that deadline and the loop's mark. Unlike context.WithDeadline it starts no
// timer until someone asks for Done, so an operation that never waits on its context costs
// one allocation and no timer; Err compares the clock with the deadline instead.
type attemptContext struct {
	parent   context.Context
	deadline time.Time

	mu         sync.Mutex
	done       chan struct{} // made by the first Done call
	err        error
	timer      *time.Timer
	stopParent func() bool
}

func newAttemptContext(parent context.Context, deadline time.Time) *attemptContext {
	return &attemptContext{parent: parent, deadline: deadline}
}

func (c *attemptContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *attemptContext) Value(key any) any {
	if _, ok := key.(loopKey); ok {
		return true
	}
	return c.parent.Value(key)
}

func (c *attemptContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkLocked()
	return c.err
}

func (c *attemptContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done != nil {
		return c.done
	}
	c.done = make(chan struct{})
	if c.checkLocked(); c.err != nil {
		close(c.done)
		return c.done
	}
	c.timer = time.AfterFunc(time.Until(c.deadline), func() { c.cancel(context.DeadlineExceeded) })
	c.stopParent = context.AfterFunc(c.parent, func() { c.cancel(c.parent.Err()) })
	return c.done
}

// checkLocked ends the context if its parent has ended or its deadline has passed.
func (c *attemptContext) checkLocked() {
	if c.err != nil {
		return
	}
	if err := c.parent.Err(); err != nil {
		c.endLocked(err)
	} else if !time.Now().Before(c.deadline) {
		c.endLocked(context.DeadlineExceeded)
	}
}

// cancel ends the context with err unless it has ended already. The loop calls it with
// context.Canceled when the attempt returns, so nothing the attempt left behind outlives it.
func (c *attemptContext) cancel(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.endLocked(err)
	}
}

func (c *attemptContext) endLocked(err error) {
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.stopParent != nil {
		c.stopParent()
	}
}

func (c *attemptContext) String() string { return "retry.attemptContext" }
