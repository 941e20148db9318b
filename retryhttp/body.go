package retryhttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// DefaultMaxBufferedBody is the largest request body, in bytes, that a Transport whose
// MaxBufferedBody is zero buffers in memory to send it again (1 MiB).
const DefaultMaxBufferedBody = 1 << 20

// maxDrain bounds how many bytes of a discarded response body are read so that its
// connection can be reused; a longer body's connection is closed instead.
const maxDrain = 64 << 10

// maxDrainTime bounds how long draining a discarded response body may take; a body slower
// than that is closed with its connection.
const maxDrainTime = 100 * time.Millisecond

// replayKind is how a call gives each attempt its request body.
type replayKind uint8

const (
	noBody   replayKind = iota // nil or http.NoBody: nothing to replay
	fromGet                    // the caller's GetBody makes every attempt's body after the first
	buffered                   // the whole body is in memory
	once                       // too large to buffer and no GetBody: it can be sent once only
)

// replay holds what a call needs to send its request body on every attempt, byte for byte.
type replay struct {
	kind    replayKind
	first   io.ReadCloser // the body of attempt 1 (fromGet, once)
	getBody func() (io.ReadCloser, error)
	buf     []byte // buffered
}

// prepareBody reads req's body into memory when it is needed and at most limit bytes long
// (limit < 0: never). It closes req.Body when it has read it all, and on error.
func prepareBody(req *http.Request, limit int64) (replay, error) {
	switch {
	case req.Body == nil || req.Body == http.NoBody:
		return replay{}, nil
	case req.GetBody != nil:
		return replay{kind: fromGet, first: req.Body, getBody: req.GetBody}, nil
	case limit < 0:
		return replay{kind: once, first: req.Body}, nil
	}
	// A blocked read (a streamed body) must not outlast the caller: closing the body when
	// the request's context ends makes the read return.
	stop := context.AfterFunc(req.Context(), func() { req.Body.Close() })
	buf, err := io.ReadAll(io.LimitReader(req.Body, limit+1))
	if !stop() {
		return replay{}, fmt.Errorf("retryhttp: reading the request body to buffer it: %w", context.Cause(req.Context()))
	}
	if err != nil {
		req.Body.Close()
		return replay{}, fmt.Errorf("retryhttp: reading the request body to buffer it: %w", err)
	}
	if int64(len(buf)) <= limit {
		req.Body.Close()
		return replay{kind: buffered, buf: buf}, nil
	}
	rest := struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), req.Body), req.Body}
	return replay{kind: once, first: rest}, nil
}

// open returns the body for attempt n (1 for the first), or for a hedge of it: never the
// first attempt's own body, which that attempt is sending.
func (r *replay) open(n int, hedge bool) (io.ReadCloser, error) {
	switch {
	case r.kind == buffered:
		return io.NopCloser(bytes.NewReader(r.buf)), nil
	case n == 1 && !hedge:
		return r.first, nil
	case r.kind == fromGet:
		b, err := r.getBody()
		if err != nil {
			what := "attempt"
			if hedge {
				what = "a hedge of attempt"
			}
			return nil, fmt.Errorf("retryhttp: GetBody for %s %d: %w", what, n, err)
		}
		return b, nil
	}
	return nil, ErrBodyNotReplayable
}

// getBuffered is the GetBody of a request whose body is buffered, so that net/http's own
// retry on a dead keep-alive connection can rewind it too.
func (r *replay) getBuffered() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(r.buf)), nil
}

// closeUnsent closes the first body when no attempt ran to send (and close) it.
func (r *replay) closeUnsent() {
	if r.first != nil {
		r.first.Close()
	}
}

// discardResponse drains (at most maxDrain bytes) and closes the body of a response that
// will not be returned, so that net/http can reuse its connection. The retry loop calls it
// before it ends the attempt's context, which the read needs.
func discardResponse(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	// A body that trickles in must not eat the time left: give up on the connection instead.
	t := time.AfterFunc(maxDrainTime, func() { resp.Body.Close() })
	io.CopyN(io.Discard, resp.Body, maxDrain)
	t.Stop()
	resp.Body.Close()
}

// preload reads up to limit bytes of resp's body into memory (Transport.PreloadBody, and the
// body of a ResponseError). A body that ends within them is closed and replaced by its bytes;
// a longer one reads on from the connection after them. On a read error it closes the body,
// which then gives the bytes that came and the error, and returns the error, which names how
// far the body came.
func preload(resp *http.Response, limit int64) error {
	if resp.Body == nil || resp.Body == http.NoBody || resp.StatusCode == http.StatusSwitchingProtocols {
		return nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		resp.Body.Close()
		err = fmt.Errorf("retryhttp: reading the response body (status %d) after %d bytes: %w", resp.StatusCode, len(buf), err)
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(buf), failingReader{err}))
		return err
	}
	if int64(len(buf)) < limit {
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(buf))
		return nil
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
	return nil
}

// releasingBody is the body of the response RoundTrip returns: closing it ends the last
// attempt's context (retry.Final.End, idempotent), which had to outlive RoundTrip so the
// body could be read.
type releasingBody struct {
	io.ReadCloser
	end ender
}

// ender is retry.Final, or an endFunc; both are pointer-shaped, so storing either costs no
// allocation, and both may be ended more than once.
type ender interface{ End() }

// endFunc ends a context made by the context package (a reconciliation's lookup).
type endFunc context.CancelFunc

func (f endFunc) End() { f() }

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.end.End()
	return err
}

// writableBody keeps a releasingBody writable when the original was, as net/http makes the
// body of a 101 Switching Protocols response.
type writableBody struct {
	*releasingBody
	io.Writer
}

// wrap makes b the wrapper of rc that ends end on Close, and returns it.
func (b *releasingBody) wrap(rc io.ReadCloser, end ender) io.ReadCloser {
	b.ReadCloser, b.end = rc, end
	if w, ok := rc.(io.Writer); ok {
		return writableBody{b, w}
	}
	return b
}

// failingReader is a reader whose every read fails with err.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }
