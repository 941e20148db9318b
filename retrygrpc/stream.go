package retrygrpc

import (
	"context"
	"errors"
	"io"
	"iter"
	"log/slog"
	"sync"

	"github.com/retrykit/retry"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// serverStream is a server-streaming call (one request, a stream of responses) that is
// retried until its first header arrives. The retry loop runs in a coroutine (iter.Pull)
// started by the first Header or RecvMsg call: each attempt opens a stream, sends the
// request and waits for the response's header. The attempt whose header arrives commits:
// it hands its stream to the caller and stays suspended until the stream ends (RecvMsg
// returns an error or io.EOF, or the caller's context ends), so that the loop's last
// decision, its breaker and budget see how the stream ended, not only how it began. Until
// the start SendMsg and CloseSend are only recorded.
type serverStream struct {
	c        *call
	desc     *grpc.StreamDesc
	streamer grpc.Streamer

	once sync.Once
	err  error // the loop's error, returned by every call after a failed start

	// The loop's coroutine: resume runs it to the commit (or its end), then, once the
	// committed stream ended (end holds how), to its end.
	resume        func() (*attemptStream, bool)
	yield         func(*attemptStream) bool
	finishOnce    sync.Once
	end           error       // how the committed stream ended: io.EOF or its error
	committedOnce bool        // an attempt committed: the loop's error is not the caller's
	stopAfter     func() bool // stops the caller context's ending the loop (finish); guarded by mu

	// mu guards what SendMsg and CloseSend may touch while another goroutine receives (gRPC
	// allows one sender and one receiver at once).
	mu        sync.Mutex
	req       any // the request SendMsg was given, sent again by every attempt
	sent      bool
	closeSend bool
	cs        *attemptStream // the committed stream, nil until then or when the loop failed
}

// attemptStream is one attempt's stream. Its context is the caller's (not the attempt's):
// the policy's deadline bounds an attempt only until its header arrives (stop ends that),
// after which the stream lives as long as the caller's context allows.
type attemptStream struct {
	grpc.ClientStream
	cancel context.CancelFunc
	stop   func() bool // stops the attempt context's cancelling the stream
}

// errAttemptEnded stands for the error of an attempt whose deadline ended it as its header
// arrived; the attempt's context error replaces it.
var errAttemptEnded = errors.New("retrygrpc: the attempt's deadline ended the stream")

// closeStream ends an attempt's stream that the loop gives up on.
func closeStream(s *attemptStream) {
	if s != nil {
		s.stop()
		s.cancel()
	}
}

// start runs the retry loop to the commit and keeps the committed stream or the loop's
// error.
func (s *serverStream) start() error {
	s.once.Do(func() {
		s.resume, _ = iter.Pull(s.loop)
		cs, committed := s.resume()
		if !committed {
			return // s.err is the loop's
		}
		s.mu.Lock()
		s.cs = cs
		// A caller that ends its context ends the loop, read to the end or not. (The
		// function may run at once, when the context has ended already: it waits for mu.)
		s.stopAfter = context.AfterFunc(s.c.ctx, func() {
			s.finish(status.FromContextError(s.c.ctx.Err()).Err())
		})
		s.mu.Unlock()
	})
	return s.err
}

// loop is the coroutine: the retry loop, which yields the committed stream. The error of
// a loop that committed is not the caller's: RecvMsg returned the stream's own.
func (s *serverStream) loop(yield func(*attemptStream) bool) {
	s.yield = yield
	cs, final, err := retry.Run(s.c.ctx, &s.c.policy,
		retry.Operation[*attemptStream]{Attempt: s.attempt, Discard: closeStream, Attrs: s.c.labels[:]})
	final.End()
	closeStream(cs)
	if !s.committedOnce {
		s.err = stopStatus(err, s.c.method)
	}
}

// finish ends the loop of a committed stream that ended with err (io.EOF for its end
// with OK): the committing attempt returns, and the loop makes its last decision, before
// finish returns. Only the first call counts.
func (s *serverStream) finish(err error) {
	s.finishOnce.Do(func() {
		s.mu.Lock()
		stopAfter := s.stopAfter
		s.mu.Unlock()
		if stopAfter != nil {
			stopAfter()
		}
		s.end = err
		s.resume()
	})
}

// committed returns the committed stream, or nil.
func (s *serverStream) committed() *attemptStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cs
}

// attempt opens a stream, sends the request and waits for the response's header.
func (s *serverStream) attempt(ctx context.Context) (*attemptStream, retry.Outcome) {
	c := s.c
	c.failed.Store(false)
	streamCtx, cancel := context.WithCancel(c.ctx)
	a := &attemptStream{cancel: cancel, stop: context.AfterFunc(ctx, cancel)}
	var trailer metadata.MD
	cs, err := s.streamer(c.attemptContext(streamCtx), s.desc, c.cc, c.method, c.opts...)
	if err == nil {
		a.ClientStream = cs
		err = s.send(cs)
		if err == nil {
			err = header(cs)
		}
		if err == nil && !a.stop() {
			err = errAttemptEnded // the attempt's deadline came with the header
		}
		if err != nil {
			trailer = cs.Trailer()
		}
	}
	if err != nil && c.ctx.Err() == nil && ctx.Err() != nil {
		// The attempt's deadline cancelled the stream: say so, as a unary call would.
		err = status.FromContextError(ctx.Err()).Err()
	}
	if err != nil {
		// A stream grpc-go could not open (no connection) never reached a server.
		return a, c.outcome(&c.attemptState, ctx, err, trailer, cs != nil, c.attempts == 1)
	}
	s.committedOnce = true
	s.yield(a) // committed: the caller reads the stream until finish resumes the loop
	return a, c.committedOutcome(s.end, a)
}

// committedOutcome is the outcome of a committed server stream that ended with end: io.EOF,
// the end with OK, is a success. A failure is never retried, since the caller has the
// stream's messages: it is a decisive answer marked committed, which the breaker and budget
// count as a failure when the call retries its code (or the server asked not to retry).
func (c *call) committedOutcome(end error, cs grpc.ClientStream) retry.Outcome {
	if errors.Is(end, io.EOF) {
		end = nil
	}
	var trailer metadata.MD
	if end != nil && c.ctx.Err() == nil {
		trailer = cs.Trailer() // RecvMsg returned end: the trailer is complete
	}
	o := c.outcome(&c.attemptState, c.ctx, end, trailer, true, c.attempts == 1)
	if end == nil || c.ctx.Err() != nil {
		return o // a success, or the caller gave up (canceled, deadline_exceeded)
	}
	if o.Class == retry.ClassRetryable || o.Class == retry.ClassUnknown {
		o.Class = retry.ClassPermanent
		c.failed.Store(true)
	}
	o.Attrs = append(o.Attrs, slog.Bool(keyCommitted, true))
	return o
}

// header waits for cs's header. grpc-go's Header returns no header and no error when the
// stream ended without one (a trailers-only response): the stream's status then comes from
// RecvMsg, which reads no message from an ended stream; io.EOF there is a stream that ended
// with OK and no message, a success.
func header(cs grpc.ClientStream) error {
	md, err := cs.Header()
	if err != nil || md != nil {
		return err
	}
	if err := cs.RecvMsg(nil); !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// send sends the recorded request and half-close on cs. io.EOF from SendMsg means the
// stream ended; its status then comes from Header.
func (s *serverStream) send(cs grpc.ClientStream) error {
	s.mu.Lock()
	req, sent, closeSend := s.req, s.sent, s.closeSend
	s.mu.Unlock()
	if sent {
		if err := cs.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
	}
	if closeSend {
		return cs.CloseSend()
	}
	return nil
}

// SendMsg records the request before the stream starts; a server-streaming call sends one,
// before its first Header or RecvMsg (as generated code does).
func (s *serverStream) SendMsg(m any) error {
	s.mu.Lock()
	cs := s.cs
	if cs == nil {
		defer s.mu.Unlock()
		if s.sent || s.closeSend {
			return status.Error(codes.Internal, "SendMsg called after CloseSend")
		}
		s.req, s.sent = m, true
		return nil
	}
	s.mu.Unlock()
	return cs.SendMsg(m)
}

// CloseSend records the half-close before the stream starts.
func (s *serverStream) CloseSend() error {
	s.mu.Lock()
	cs := s.cs
	if cs == nil {
		s.closeSend = true
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return cs.CloseSend()
}

// Header starts the stream if need be (the retry loop runs then) and returns its header.
func (s *serverStream) Header() (metadata.MD, error) {
	if err := s.start(); err != nil {
		return nil, err
	}
	return s.cs.Header()
}

// RecvMsg starts the stream if need be (the retry loop runs then) and receives a message.
// When the stream ends (io.EOF or an error) the loop makes its last decision and the
// stream's context is released, before RecvMsg returns.
func (s *serverStream) RecvMsg(m any) error {
	if err := s.start(); err != nil {
		return err
	}
	err := s.cs.RecvMsg(m)
	if err != nil {
		s.finish(err)
		s.cs.cancel()
	}
	return err
}

// Trailer returns the stream's trailer; nil before the stream started or when it failed.
func (s *serverStream) Trailer() metadata.MD {
	if cs := s.committed(); cs != nil {
		return cs.Trailer()
	}
	return nil
}

// Context returns the stream's context; the caller's before the stream started.
func (s *serverStream) Context() context.Context {
	if cs := s.committed(); cs != nil {
		return cs.Context()
	}
	return s.c.ctx
}

// passthrough opens a client-streaming or bidirectional stream once, as it is, with the
// caller's context. When the policy has an OnDecision observer, the opening goes through a
// one-attempt loop with no deadline, breaker or budget, so that its record says
// passthrough.
func (c *call) passthrough(desc *grpc.StreamDesc, streamer grpc.Streamer) (grpc.ClientStream, error) {
	if c.policy.OnDecision == nil {
		return streamer(c.ctx, desc, c.cc, c.method, c.opts...)
	}
	once := retry.Policy{MaxAttempts: 1, Timeout: retry.NoLimit, MaxWait: retry.NoLimit, Nested: c.policy.Nested,
		OnDecision: c.policy.OnDecision, Budget: retry.NoBudget}
	cs, final, err := retry.Run(c.ctx, &once, retry.Operation[grpc.ClientStream]{Attrs: c.labels[:],
		Attempt: func(ctx context.Context) (grpc.ClientStream, retry.Outcome) {
			cs, err := streamer(ctx, desc, c.cc, c.method, c.opts...)
			o := retry.Outcome{Err: err, Class: retry.ClassSuccess}
			if err != nil {
				o.Class = retry.ClassPermanent
			}
			o.Attrs = c.recordAttrs(&c.attemptState, status.Code(err), slog.Bool(keyPassthrough, true))
			return cs, o
		}})
	final.End()
	return cs, stopStatus(err, c.method)
}
