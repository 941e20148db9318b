package retryhttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultMaxBufferedBody is the largest request body, in bytes, that a Transport whose
// MaxBufferedBody is zero buffers in memory to send it again (1 MiB).
const DefaultMaxBufferedBody = 1 << 20

// maxDrain bounds how many bytes of a response body are read ahead of the caller: of a
// discarded response's body, drained so that its connection can be reused (a longer body's
// connection is closed instead), and of a stop's, read ahead so that a short one holds no
// connection (a longer one reads on from the connection).
const maxDrain = 64 << 10

// maxDrainTime bounds how long that read may take: a discarded body slower than that is
// closed with its connection, and a stop's body still coming then is handed to the caller
// as it comes, so that a body trickling in never eats the time left.
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

// preload reads up to limit bytes of resp's body into memory within the attempt
// (Transport.PreloadBody), bounded in time by the attempt's context, whose deadline ends the
// read. A body that ends within them is closed and replaced by its bytes; a longer one reads
// on from the connection after them. On a read error it closes the body, which then gives
// the bytes that came and the error, and returns the error, which names how far the body
// came.
func preload(resp *http.Response, limit int64) error {
	if !readable(resp) {
		return nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	return settle(resp, buf, err, limit)
}

// readable reports whether resp has a body to read ahead: not none, and not the connection
// of a 101 Switching Protocols.
func readable(resp *http.Response) bool {
	return resp.Body != nil && resp.Body != http.NoBody && resp.StatusCode != http.StatusSwitchingProtocols
}

// settle replaces resp's body by what was read of it ahead, buf, ended by err (nil at the
// body's end or at limit), as preload describes.
func settle(resp *http.Response, buf []byte, err error, limit int64) error {
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

// readAhead reads the body of a stop's response (a ResponseError's) ahead of the caller, at
// most maxDrain bytes for at most maxDrainTime, as discardResponse drains a body: a short body
// (a 503's page) then holds no connection and no attempt context when the caller ignores the
// error. A body that ends within them is closed and replaced by its bytes, one that breaks
// gives the bytes that came and then the error; a longer one, or one still coming when the
// time is up, is handed on as it comes: the bytes read ahead, then the rest from the
// connection. Its reading goes on on a goroutine of its own, one read at a time, until the
// time is up; a read in flight then ends with its bytes, the body's end, or the body's Close,
// which waits for it.
func readAhead(resp *http.Response) {
	if !readable(resp) {
		return
	}
	b := &aheadBody{body: resp.Body, done: make(chan struct{})}
	go b.fill(maxDrain)
	t := time.NewTimer(maxDrainTime)
	select {
	case <-b.done:
		t.Stop()
		err := b.err
		if err == io.EOF {
			err = nil
		}
		settle(resp, b.buf, err, maxDrain)
	case <-t.C:
		b.mu.Lock()
		b.timeUp = true
		b.mu.Unlock()
		resp.Body = b
	}
}

// aheadBody is a response body that a goroutine of its own reads ahead (readAhead): its
// reads give the bytes read ahead first, then, once that goroutine has returned, the rest
// from the body itself.
type aheadBody struct {
	body io.ReadCloser
	done chan struct{} // closed when fill has returned

	mu     sync.Mutex
	buf    []byte // read ahead, not yet read
	err    error  // the error that ended the reading ahead (io.EOF at the body's end); nil when it stopped
	timeUp bool   // the reading ahead stops after its read in flight
}

// fill reads the body ahead, at most limit bytes, until it ends or breaks or the time is up.
func (b *aheadBody) fill(limit int64) {
	defer close(b.done)
	chunk := make([]byte, min(limit, 4<<10))
	for read := int64(0); read < limit; {
		n, err := b.body.Read(chunk[:min(int64(len(chunk)), limit-read)])
		read += int64(n)
		b.mu.Lock()
		b.buf = append(b.buf, chunk[:n]...)
		b.err = err
		stop := b.timeUp
		b.mu.Unlock()
		if err != nil || stop {
			return
		}
	}
}

// Read gives the bytes read ahead, waiting for the read in flight when there are none yet,
// then reads on from the body.
func (b *aheadBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if n, _ := b.take(p); n > 0 {
		return n, nil
	}
	<-b.done
	if n, err := b.take(p); n > 0 || err != nil {
		return n, err
	}
	return b.body.Read(p)
}

// take copies bytes read ahead into p; with none left, it returns the error that ended the
// reading ahead.
func (b *aheadBody) take(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	if n == 0 {
		return 0, b.err
	}
	return n, nil
}

// Close closes the body, which ends a read in flight, and waits for the reading ahead to
// return.
func (b *aheadBody) Close() error {
	err := b.body.Close()
	<-b.done
	return err
}
