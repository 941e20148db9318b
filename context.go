package retry

import (
	"context"
	"slices"
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
// caller's context plus that deadline and the loop's mark. It is written by hand so that an
// attempt costs one allocation and no timer until something waits on it:
//   - Err compares the clock with the deadline while nobody has asked for Done;
//   - the first Done (or AfterFunc) makes the channel and a timer for the deadline (a timer
//     shared by many contexts would cross testing/synctest bubbles, whose clocks differ);
//   - it implements the context package's afterFuncer interface (AfterFunc(func()) func()
//     bool), so that a context derived from it (net/http derives one per request) attaches
//     to it without a goroutine and without a timer of its own;
//   - a caller's context that can end is followed through context.AfterFunc, registered only
//     when something waits on this one.
//
// It is safe for concurrent use, as every context must be.
type attemptContext struct {
	parent   context.Context
	deadline time.Time

	// The fields are ordered so that the struct fills 128 bytes, a size class of its own.
	state atomic.Uint32 // why it ended (ended*); 0 while it has not; never changes once set
	armed atomic.Bool   // done is being or has been made; set under mu, read by end without it

	mu         sync.Mutex
	done       chan struct{} // made by the first Done or AfterFunc; closed when it ends
	timer      *time.Timer   // ends the context at its deadline once armed
	funcs      []afterFunc   // registered by AfterFunc and not yet stopped or run
	inline     [1]afterFunc  // funcs' first backing array: one derived context costs nothing
	lastID     uint64
	stopParent func() bool // ends the following of parent; nil when parent cannot end
}

// Why an attemptContext ended: the value of its state.
const (
	endedNot      uint32 = iota
	endedCanceled        // end was called: the attempt returned
	endedDeadline        // its deadline passed
	endedParent          // the caller's context ended: Err is the parent's
)

// afterFunc is a function registered with AfterFunc, and its number for stop.
type afterFunc struct {
	id uint64
	f  func()
}

// closedChan is the Done channel of a context that ended before anyone asked for it.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

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

func (c *attemptContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.armLocked()
	}
	return c.done
}

// armLocked makes the Done channel, closed already when the context has ended (by its state,
// the parent or the clock), and otherwise sets the timer for the deadline and follows the
// parent. c.mu is held.
func (c *attemptContext) armLocked() {
	left := time.Until(c.deadline)
	switch {
	case c.parent.Err() != nil:
		c.state.CompareAndSwap(endedNot, endedParent)
	case left <= 0:
		c.state.CompareAndSwap(endedNot, endedDeadline)
	}
	// Armed first, state second; end sets the state first and reads armed second: one of
	// the two sees the other, so a context ended concurrently gets a closed channel either
	// from here or from end's finish.
	c.armed.Store(true)
	if c.state.Load() != endedNot {
		c.done = closedChan
		return
	}
	c.done = make(chan struct{})
	c.timer = time.AfterFunc(left, c.expire)
	if c.parent.Done() != nil {
		// The function runs in a goroutine of its own, after c.mu is released.
		c.stopParent = context.AfterFunc(c.parent, func() { c.cancel(endedParent) })
	}
}

func (c *attemptContext) Err() error {
	if s := c.state.Load(); s != endedNot {
		return c.errOf(s)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errLocked()
}

// errLocked returns the context's error. Before Done exists it also reads the parent and
// the clock, and keeps what it finds; once Done exists only the state counts, so that Err
// is nil exactly while Done is open. c.mu is held.
func (c *attemptContext) errLocked() error {
	if c.state.Load() == endedNot && !c.armed.Load() {
		switch {
		case c.parent.Err() != nil:
			c.state.CompareAndSwap(endedNot, endedParent)
		case !time.Now().Before(c.deadline):
			c.state.CompareAndSwap(endedNot, endedDeadline)
		}
	}
	return c.errOf(c.state.Load())
}

func (c *attemptContext) errOf(s uint32) error {
	switch s {
	case endedCanceled:
		return context.Canceled
	case endedDeadline:
		return context.DeadlineExceeded
	case endedParent:
		return c.parent.Err()
	}
	return nil
}

// AfterFunc implements the context package's afterFuncer interface: it arranges for f to be
// called once when c ends, and returns a function that cancels that unless f has started.
// context.WithCancel, WithDeadline and AfterFunc use it, so that contexts derived from c
// need no goroutine of their own to follow it. When c has ended already, f runs at once in
// a goroutine of its own (the caller may hold locks f takes).
func (c *attemptContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.done == nil {
		c.armLocked()
	}
	if c.state.Load() != endedNot {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	if c.funcs == nil {
		c.funcs = c.inline[:0]
	}
	c.lastID++
	id := c.lastID
	c.funcs = append(c.funcs, afterFunc{id: id, f: f})
	c.mu.Unlock()
	return func() bool { return c.stopFunc(id) }
}

// stopFunc removes the function registered under id; it reports whether it was still
// registered, that is, whether it will now never run.
func (c *attemptContext) stopFunc(id uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, a := range c.funcs {
		if a.id == id {
			c.funcs = slices.Delete(c.funcs, i, i+1)
			return true
		}
	}
	return false
}

// cancel ends the context for reason (ended*), unless it has ended already.
func (c *attemptContext) cancel(reason uint32) {
	c.mu.Lock()
	ended := c.state.CompareAndSwap(endedNot, reason)
	c.mu.Unlock()
	if ended {
		c.finish()
	}
}

// finish, once the state is set, closes Done if it is open, stops the timer, stops following
// the parent and runs the registered functions. Only the caller that set the state calls it.
func (c *attemptContext) finish() {
	c.mu.Lock()
	if c.done == nil || c.done == closedChan {
		c.mu.Unlock()
		return // never armed, or armed after the state was set
	}
	close(c.done)
	funcs, stopParent := c.funcs, c.stopParent
	c.funcs, c.stopParent = nil, nil
	c.mu.Unlock()
	c.timer.Stop()
	if stopParent != nil {
		stopParent()
	}
	for _, a := range funcs {
		a.f()
	}
}

// expire ends the context at its deadline; it is the timer's function.
func (c *attemptContext) expire() { c.cancel(endedDeadline) }

// end cancels the context; the loop calls it when the attempt returns (or, for the last
// attempt of Run, on release), so nothing the attempt left behind outlives it. It does
// nothing on a nil attempt (one that ran with the caller's context) or one already ended.
func (c *attemptContext) end() {
	if c == nil || !c.state.CompareAndSwap(endedNot, endedCanceled) {
		return
	}
	if c.armed.Load() { // see armLocked: nothing to close unless Done or AfterFunc ran
		c.finish()
	}
}

func (c *attemptContext) String() string { return "retry.attemptContext" }
