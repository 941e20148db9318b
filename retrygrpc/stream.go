package retrygrpc

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/retrykit/retry"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// serverStream is a server-streaming call (one request, a stream of responses) that is
// retried until its first header arrives: the retry loop runs on the first Header or RecvMsg
// call, each attempt opening a stream, sending the request and waiting for the response's
// header; once a header arrived the stream is the caller's, and its failures are returned
// as they come. Until then SendMsg and CloseSend are only recorded.
type serverStream struct {
	c        *call
	desc     *grpc.StreamDesc
	streamer grpc.Streamer

	once sync.Once
	err  error // the loop's error, returned by every call after a failed start

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

// start runs the retry loop once and keeps the committed stream or the loop's error.
func (s *serverStream) start() error {
	s.once.Do(func() {
		cs, final, err := retry.Run(s.c.ctx, &s.c.policy,
			retry.Operation[*attemptStream]{Attempt: s.attempt, Discard: closeStream, Attrs: s.c.labels[:]})
		final.End()
		if err != nil {
			closeStream(cs)
			s.err = stopStatus(err)
			return
		}
		s.mu.Lock()
		s.cs = cs
		s.mu.Unlock()
	})
	return s.err
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
	// A stream grpc-go could not open (no connection) never reached a server.
	return a, c.outcome(ctx, err, trailer, cs != nil)
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
// When the stream ends (io.EOF or an error) its context is released.
func (s *serverStream) RecvMsg(m any) error {
	if err := s.start(); err != nil {
		return err
	}
	err := s.cs.RecvMsg(m)
	if err != nil {
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
		OnDecision: c.policy.OnDecision}
	cs, final, err := retry.Run(c.ctx, &once, retry.Operation[grpc.ClientStream]{Attrs: c.labels[:],
		Attempt: func(ctx context.Context) (grpc.ClientStream, retry.Outcome) {
			cs, err := streamer(ctx, desc, c.cc, c.method, c.opts...)
			o := retry.Outcome{Err: err, Class: retry.ClassSuccess}
			if err != nil {
				o.Class = retry.ClassPermanent
			}
			o.Attrs = c.recordAttrs(status.Code(err), true)
			return cs, o
		}})
	final.End()
	return cs, stopStatus(err)
}
