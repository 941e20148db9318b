package retrygrpc

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// call is one RPC on its way through the retry loop: what every attempt needs.
type call struct {
	ic     *Interceptor
	s      settings     // the interceptor's settings with the call's options applied
	policy retry.Policy // the call's own copy: the target's breaker and budget, and the
	// attempt limit lowered to 1 when grpc-go retries by itself
	ctx    context.Context // the caller's
	method string
	labels [1]slog.Attr // method: names the call in every decision (Operation.Attrs)
	cc     *grpc.ClientConn
	opts   []grpc.CallOption

	// repeatable: an attempt that may have been applied may be sent again (idempotent
	// method, or an idempotency key in the metadata).
	repeatable bool
	// inner: grpc-go's own retries are on for this method (a service config retryPolicy).
	// An atomic: the attempts of a hedged call read it concurrently.
	inner    atomic.Bool
	attempts int

	// What the call's attempts read back, one after another (a hedge has its own: hedges).
	attemptState

	// failed: the attempt that just ended failed the service although its class is a
	// decisive answer, so the breaker and budget count a failure (see results.go). An
	// attempt clears it as it starts; in a hedged call, only the attempt does, not its
	// hedges, which may set it as well.
	failed  atomic.Bool
	breaker callBreaker
	budget  callBudget

	// unary calls
	req, reply any
	invoker    grpc.UnaryInvoker
	// hedges: the state of each hedge of a call that may be hedged (hedge.go), made when
	// the call is found hedgeable.
	hedges *[retry.MaxHedges]attemptState
}

// attemptState is what an attempt reads back: the trailer (pushback) and, for a call that may
// not be repeated, the peer (was it sent at all?); the call's options plus those, built once;
// and the attempt's record fields (recordAttrs).
type attemptState struct {
	trailer     metadata.MD
	peer        peer.Peer
	attemptOpts []grpc.CallOption
	optsBuf     [6]grpc.CallOption
	attrs       [5]slog.Attr
}

// newCall prepares a call; passthrough says it will be passed through untouched (a client
// or bidirectional stream).
func (ic *Interceptor) newCall(ctx context.Context, method string, cc *grpc.ClientConn, opts []grpc.CallOption, passthrough bool) (*call, error) {
	c := &call{ic: ic, s: ic.settings(), ctx: ctx, method: method, cc: cc, opts: opts}
	c.labels[0] = slog.String(keyMethod, method)
	for _, o := range opts {
		if o, ok := o.(Option); ok {
			if err := c.s.apply([]Option{o}); err != nil {
				return nil, err
			}
		}
	}
	if c.s.policy != nil {
		c.policy = *c.s.policy
	}
	if cc != nil {
		if c.s.breakers != nil {
			c.policy.Breaker = c.s.breakers.Breaker(cc.Target())
		}
		if c.s.budgets != nil {
			c.policy.Budget = c.s.budgets.Budget(cc.Target())
		}
		if c.policy.Budget == nil {
			c.policy.Budget = ic.defaultBudgets().Budget(cc.Target())
		}
		if c.s.rateGates != nil {
			if g := c.s.rateGates.RateGate(cc.Target()); g != nil {
				c.policy.RateGate = g
			}
		}
		if c.policy.RateGate == nil {
			c.policy.RateGate = ic.defaultGates().Gate(cc.Target())
		}
		if c.s.hedges != nil {
			if h := c.s.hedges.Hedger(cc.Target() + method); h != nil {
				c.policy.Hedge = h
			}
		}
	}
	c.repeatable = c.s.callIdempotent || c.s.idempotent[method] || idempotentByDescriptor(method) || c.keyed()
	if !c.repeatable && c.s.autoKey && !passthrough {
		c.ctx = metadata.AppendToOutgoingContext(c.ctx, c.s.keyName, retryhttp.NewIdempotencyKey())
		c.repeatable = true
	}
	c.checkInnerRetries()
	c.countResults()
	return c, nil
}

// keyed reports whether the call's outgoing metadata carries an idempotency key.
func (c *call) keyed() bool {
	md, ok := metadata.FromOutgoingContext(c.ctx)
	return ok && len(md.Get(c.s.keyName)) > 0 && md.Get(c.s.keyName)[0] != ""
}

// checkInnerRetries looks at the connection's service config: when it gives the method a
// retryPolicy and the connection was not dialed with grpc.WithDisableRetry (as far as the
// options say), grpc-go retries by itself, so the loop makes a single attempt (SPEC R7.3).
// A connection resolves its service config on its first call, so this is asked again after
// the first attempt.
func (c *call) checkInnerRetries() {
	if c.inner.Load() || c.s.retryDisabled || c.cc == nil || c.cc.GetMethodConfig(c.method).RetryPolicy == nil {
		return
	}
	c.inner.Store(true)
	c.policy.MaxAttempts = 1 // the call's own copy, read by the loop's next decision
	c.ic.warnInnerRetries(c.cc.Target(), c.method)
}

// attemptContext returns ctx with the attempt's number in its outgoing metadata.
func (c *call) attemptContext(ctx context.Context) context.Context {
	c.attempts++
	return metadata.AppendToOutgoingContext(ctx, AttemptMetadataKey, strconv.Itoa(c.attempts))
}

// unaryOptions returns the call's options plus those a unary attempt reads back into st,
// reset for a new attempt: the trailer (pushback) and, for a call that may not be repeated,
// the peer (was it sent at all?). grpc-go fills them before the invoker returns: a unary
// call has no goroutine of its own that could finish it later.
func (c *call) unaryOptions(st *attemptState) []grpc.CallOption {
	if st.attemptOpts == nil {
		st.attemptOpts = append(append(st.optsBuf[:0], c.opts...), grpc.Trailer(&st.trailer))
		if !c.repeatable {
			st.attemptOpts = append(st.attemptOpts, grpc.Peer(&st.peer))
		}
	}
	st.trailer, st.peer = nil, peer.Peer{}
	return st.attemptOpts
}

// unaryAttempt sends the call once with the attempt's context.
func (c *call) unaryAttempt(ctx context.Context) (struct{}, retry.Outcome) {
	c.failed.Store(false)
	err := c.invoker(c.attemptContext(ctx), c.method, c.req, c.reply, c.cc, c.unaryOptions(&c.attemptState)...)
	// Without a peer grpc-go opened no stream: the attempt never reached a server.
	return struct{}{}, c.outcome(&c.attemptState, ctx, err, c.trailer, c.repeatable || c.peer.Addr != nil, c.attempts == 1)
}

// outcome says what an attempt's error means (see the package documentation, "What is
// retried"), its record fields kept in st. attemptCtx is the attempt's context; sent is
// false when the attempt is known not to have reached a server; first says it is the call's
// first attempt.
func (c *call) outcome(st *attemptState, attemptCtx context.Context, err error, trailer metadata.MD, sent, first bool) retry.Outcome {
	if first {
		c.checkInnerRetries()
	}
	if err == nil {
		return retry.Outcome{Class: retry.ClassSuccess, Attrs: c.recordAttrs(st, codes.OK)}
	}
	s, _ := status.FromError(err)
	code := s.Code()
	o := retry.Outcome{Err: err, Class: retry.ClassPermanent, Throttled: throttle(s)}
	if c.ctx.Err() != nil {
		o.Attrs = c.recordAttrs(st, code)
		return o // the caller gave up: the loop stops with canceled or deadline_exceeded
	}
	retryable := c.s.codes.has(code) || code == codes.DeadlineExceeded && expired(attemptCtx) // the attempt's timeout, not the caller's
	detailed := s
	if !retryable && !c.s.pushbackCodes.has(code) {
		detailed = nil // a RetryInfo is read only where it may make a retry
	}
	pb := serverPushback(trailer, detailed)
	o.Attrs = c.recordAttrs(st, code, pb.why)
	switch {
	case pb.noRetry:
		c.failed.Store(true) // the server asked not to retry: a throttling failure (gRFC A6)
		return o
	case pb.has && (retryable || c.s.pushbackCodes.has(code)):
		o.RetryAfter, o.RetryAfterFrom, o.HasRetryAfter = pb.wait, pb.from, true
		retryable = true
	}
	if !retryable {
		return o
	}
	o.Class = retry.ClassRetryable
	// A write that reached the server may have been applied, unless the server declined it
	// by asking for a wait (pushback or RetryInfo), as HTTP's 503 or 429 with Retry-After.
	// Without the wait RESOURCE_EXHAUSTED may be grpc-go's own, given on the client after
	// the server processed the call (a reply larger than the client accepts), and
	// UNAVAILABLE may come after the server applied the call (a connection lost on the way
	// back).
	if !c.repeatable && sent && !o.HasRetryAfter {
		o.Class = retry.ClassUnknown
	}
	return o
}

// throttle reports whether s says that the service throttled the call (retry.Outcome.Throttled):
// RESOURCE_EXHAUSTED, the code of a quota or rate limit exhausted (grpc/doc/statuscodes.md),
// and of HTTP/2's ENHANCE_YOUR_CALM, but not of grpc-go's message size limits ("message
// larger than max", "message too large"), which say that a message is too big for a limit of
// the client or the server, nothing of its load.
func throttle(s *status.Status) bool {
	if s.Code() != codes.ResourceExhausted {
		return false
	}
	msg := s.Message()
	return !strings.Contains(msg, "larger than max") && !strings.Contains(msg, "message too large")
}

// expired reports whether the attempt's own deadline has passed: its context says so, or the
// clock does (the server, told the same deadline, may answer DEADLINE_EXCEEDED before the
// client's timer fires).
func expired(attemptCtx context.Context) bool {
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) {
		return true
	}
	deadline, ok := attemptCtx.Deadline()
	return ok && !time.Now().Before(deadline)
}
