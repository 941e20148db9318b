package retrytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RoundTripper is a scripted in-memory [http.RoundTripper]: no sockets, no goroutines, so it
// runs inside a testing/synctest bubble, where Step.Delay is fake time. Create it with
// [NewRoundTripper] (one script for every request) or [NewRoutedRoundTripper] (a script per
// host, or per method and path); it is safe for concurrent use.
//
// It reports its progress through the request's [httptrace.ClientTrace] as net/http does:
// GetConn for every step; GotConn, WroteHeaders and WroteRequest once the request is
// "written" (every action but Refuse). Its default errors are *net.OpError values: a refused
// dial for Refuse, a connection reset for Reset, and io.ErrUnexpectedEOF for Drop.
//
// Response bodies fail with the request context's error once that context ends, as net/http's
// do. [RoundTripper.Bodies] counts the bodies still open and those read to the end.
type RoundTripper struct {
	ledger *ledger

	mu            sync.Mutex
	open, drained int
}

// NewRoundTripper returns a RoundTripper playing s. It returns an error for an invalid step
// (an unknown Action, a Status outside 100-999, a negative Delay).
func NewRoundTripper(s Script) (*RoundTripper, error) {
	l, err := newLedger(s)
	if err != nil {
		return nil, err
	}
	return &RoundTripper{ledger: l}, nil
}

// Requests returns how many requests have arrived, Refuse and Reset ones included.
func (rt *RoundTripper) Requests() int { return rt.ledger.requests() }

// Orders returns how many orders POSTs have created (see [Script]).
func (rt *RoundTripper) Orders() int { return rt.ledger.ordersCreated() }

// Received returns a copy of the requests received so far, in arrival order.
func (rt *RoundTripper) Received() []Received { return rt.ledger.all() }

// Bodies returns how many response bodies are open (returned and not yet closed) and how many
// were read to their end before being closed.
func (rt *RoundTripper) Bodies() (open, drained int) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.open, rt.drained
}

// RoundTrip plays the next step for req. It closes req.Body, and returns an error only for
// Refuse, Reset and Drop, or when req's context ends during a Delay.
func (rt *RoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	st, n := rt.ledger.next(req)
	ctx := req.Context()
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.GetConn != nil {
		trace.GetConn(req.URL.Host)
	}
	if st.Action == Refuse {
		closeBody(req)
		if err := sleep(ctx, st.Delay); err != nil {
			return nil, err
		}
		return nil, stepError(st, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")})
	}
	var body []byte
	if st.Action != Reset && req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			closeBody(req)
			return nil, fmt.Errorf("retrytest: reading the request body: %w", err)
		}
	}
	closeBody(req)
	if trace != nil {
		if trace.GotConn != nil {
			trace.GotConn(httptrace.GotConnInfo{})
		}
		if trace.WroteHeaders != nil {
			trace.WroteHeaders()
		}
		if trace.WroteRequest != nil {
			trace.WroteRequest(httptrace.WroteRequestInfo{})
		}
	}
	status := 0
	if st.Action != Reset {
		status = rt.ledger.process(n, st, body)
	}
	if err := sleep(ctx, st.Delay); err != nil {
		return nil, err
	}
	switch st.Action {
	case Reset:
		return nil, stepError(st, &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")})
	case Drop:
		return nil, stepError(st, io.ErrUnexpectedEOF)
	}
	text := st.Body
	if status != st.Status && status == http.StatusUnprocessableEntity {
		text = "retrytest: Idempotency-Key reused with a different body\n"
	}
	h := st.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Length", strconv.Itoa(len(text)))
	rt.mu.Lock()
	rt.open++
	rt.mu.Unlock()
	return &http.Response{Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, ContentLength: int64(len(text)),
		Body: &scriptedBody{rt: rt, ctx: ctx, r: strings.NewReader(text)}, Request: req}, nil
}

func stepError(st Step, def error) error {
	if st.Err != nil {
		return st.Err
	}
	return def
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// sleep waits d unless ctx ends first, in which case it returns ctx's error.
func sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// scriptedBody is a response body that fails once its request's context ends.
type scriptedBody struct {
	rt     *RoundTripper
	ctx    context.Context
	r      *strings.Reader
	closed bool
	eof    bool
}

func (b *scriptedBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errors.New("retrytest: read on a closed body")
	}
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *scriptedBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	b.rt.mu.Lock()
	defer b.rt.mu.Unlock()
	b.rt.open--
	if b.eof || b.r.Len() == 0 {
		b.rt.drained++
	}
	return nil
}
