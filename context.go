package retry

import (
	"context"
	"sync"
	"sync/atomic"
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
// caller's context plus that deadline and the loop's mark. It defers the real work: the first
// call of Done makes a context.WithDeadline of the caller's context, and from then on Done,
// Err and Value are that context's, so contexts derived from an attempt context (as net/http
// derives one per request) attach to it directly, with no goroutine. An operation that never
// asks for Done costs one allocation and no timer; Err then compares the clock with the
// deadline.
type attemptContext struct {
	parent   context.Context
	deadline time.Time

	ready  atomic.Bool // inner and cancel are set and will not change
	inner  context.Context
	cancel func()

	mu    sync.Mutex
	ended bool  // end was called
	err   error // the first non-nil Err, kept: a context's Err never changes once set
}

func newAttemptContext(parent context.Context, deadline time.Time) *attemptContext {
	return &attemptContext{parent: parent, deadline: deadline}
}

func (c *attemptContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *attemptContext) Value(key any) any {
	if _, ok := key.(loopKey); ok {
		return true
	}
	if c.ready.Load() {
		return c.inner.Value(key)
	}
	return c.parent.Value(key)
}

func (c *attemptContext) Done() <-chan struct{} {
	if !c.ready.Load() {
		c.mu.Lock()
		if !c.ready.Load() {
			if err := c.errLocked(); err != nil {
				// Ended already: a context that is done, with the error Err has reported.
				inner, cancel := context.WithCancelCause(c.parent)
				cancel(err)
				c.inner, c.cancel = inner, func() {}
			} else {
				c.inner, c.cancel = context.WithDeadline(c.parent, c.deadline)
			}
			c.ready.Store(true)
		}
		c.mu.Unlock()
	}
	return c.inner.Done()
}

func (c *attemptContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errLocked()
}

// errLocked returns the context's error, computing it while it is nil and keeping the first
// non-nil one.
func (c *attemptContext) errLocked() error {
	if c.err != nil {
		return c.err
	}
	if c.ready.Load() {
		c.err = c.inner.Err()
		return c.err
	}
	switch err := c.parent.Err(); {
	case err != nil:
		c.err = err
	case c.ended:
		c.err = context.Canceled
	case !time.Now().Before(c.deadline):
		c.err = context.DeadlineExceeded
	}
	return c.err
}

// end cancels the context; the loop calls it when the attempt returns (or, for the last
// attempt of Run, on release), so nothing the attempt left behind outlives it. It does
// nothing on a nil attempt (one that ran with the caller's context) or one already ended.
func (c *attemptContext) end() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.ended = true
	if c.ready.Load() {
		c.cancel()
	}
	c.mu.Unlock()
}

func (c *attemptContext) String() string { return "retry.attemptContext" }
