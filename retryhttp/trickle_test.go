package retryhttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// trickleBody is the body a trickling server sends: length bytes, 'a' to 'z' over and over,
// so that a reader can tell that every byte came, in order.
func trickleBody(length int) []byte {
	b := make([]byte, length)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// trickling answers every request with status and a body of length bytes (Content-Length
// set) whose first slow bytes come one every 10 ms, and the rest at once; it stops when the
// client goes away. It counts the requests.
func trickling(status, length, slow int, requests *atomic.Int64) http.HandlerFunc {
	body := trickleBody(length)
	return func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Length", strconv.Itoa(length))
		w.WriteHeader(status)
		flusher := w.(http.Flusher)
		for i := range min(slow, length) {
			if _, err := w.Write(body[i : i+1]); err != nil {
				return
			}
			flusher.Flush()
			select {
			case <-time.After(10 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		if slow < length {
			w.Write(body[slow:])
		}
	}
}

// A stop's response whose body trickles in does not hold RoundTrip up (issue 35 item 4): a
// 503 whose 100,000-byte body comes one byte every 10 ms, under MaxAttempts 4 and Timeout
// 5 s, stops after its 4 attempts with attempts_exhausted at 445 ms (each retried response
// drained for 100 ms, 15 ms waits, the stop's body read ahead for 100 ms), where RoundTrip
// used to read the stop's body ahead until the deadline, 5 s, and the caller's read then
// failed. The caller reads the body as it comes: every byte in order, the whole of it when it
// comes within the Timeout, which bounds the reading of a body.
func TestStopBodyTrickling(t *testing.T) {
	for _, c := range []struct {
		name     string
		slow     int           // bytes that trickle, before the rest comes at once
		wantRead int           // bytes the caller reads
		wantErr  error         // the caller's read error
		readEnd  time.Duration // when the caller's read ends
	}{
		// the last attempt's bytes come from 345 ms on, one every 10 ms: 466 before 5 s
		{"trickling to the end: read until the Timeout", 100000, 466, context.DeadlineExceeded, 5 * time.Second},
		{"trickling, then the rest: read whole", 300, 100000, nil, 3345 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var requests atomic.Int64
				srv := retrytest.NewPipeServer(trickling(http.StatusServiceUnavailable, 100000, c.slow, &requests))
				defer srv.Close()
				var reasons []retry.Reason
				p := constant(t, 15*time.Millisecond, 4, 5*time.Second)
				p.OnDecision = func(_ context.Context, d retry.Decision) { reasons = append(reasons, d.Reason) }
				tr := &retryhttp.Transport{Policy: p, Base: srv.Transport()}
				start := time.Now()
				resp, err := tr.RoundTrip(request(t, "GET", srv.URL, ""))
				returned := time.Since(start)
				var rerr *retryhttp.ResponseError
				if resp != nil || !errors.As(err, &rerr) || !errors.Is(err, retry.ErrAttemptsExhausted) {
					t.Fatalf("RoundTrip = %v, %v; want a ResponseError, attempts_exhausted", resp, err)
				}
				want := []retry.Reason{retry.ReasonRetryableStatus, retry.ReasonRetryableStatus, retry.ReasonRetryableStatus,
					retry.ReasonAttemptsExhausted}
				if requests.Load() != 4 || !slices.Equal(reasons, want) || stopOf(t, err).Attempts != 4 {
					t.Errorf("%d requests, reasons %v; want 4, %v", requests.Load(), reasons, want)
				}
				if returned != 445*time.Millisecond {
					t.Errorf("RoundTrip returned after %v, want 445ms", returned)
				}
				got, readErr := io.ReadAll(rerr.Response.Body)
				readEnd := time.Since(start)
				if err := rerr.Response.Body.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				if len(got) != c.wantRead || !bytes.Equal(got, trickleBody(100000)[:len(got)]) || !errors.Is(readErr, c.wantErr) {
					t.Errorf("the caller read %d bytes (in order: %v), error %v; want %d, %v", len(got),
						bytes.Equal(got, trickleBody(100000)[:len(got)]), readErr, c.wantRead, c.wantErr)
				}
				if readEnd != c.readEnd {
					t.Errorf("the caller's read ended after %v, want %v", readEnd, c.readEnd)
				}
			})
		})
	}
}

// A stop's body that stalls after the bytes read ahead can be closed at once: Close ends the
// read in flight and the goroutine reading ahead (issue 35 item 4); the bubble checks that no
// goroutine is left.
func TestStopBodyStalledClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var requests atomic.Int64
		srv := retrytest.NewPipeServer(trickling(http.StatusServiceUnavailable, 100000, 100000, &requests))
		defer srv.Close()
		tr := &retryhttp.Transport{Policy: constant(t, 10*time.Millisecond, 1, retry.NoLimit), Base: srv.Transport()}
		_, err := tr.RoundTrip(request(t, "GET", srv.URL, ""))
		var rerr *retryhttp.ResponseError
		if !errors.As(err, &rerr) {
			t.Fatalf("RoundTrip: %v, want a ResponseError", err)
		}
		start := time.Now()
		buf := make([]byte, 100)
		n, err := io.ReadFull(rerr.Response.Body, buf[:20])
		if n != 20 || err != nil || !bytes.Equal(buf[:20], trickleBody(20)) {
			t.Fatalf("read %q, %v; want the first 20 bytes", buf[:n], err)
		}
		if got := time.Since(start); got != 90*time.Millisecond {
			t.Errorf("20 bytes %v after RoundTrip returned, want 90ms (the 20th comes at 190 ms)", got)
		}
		rerr.Response.Body.Close()
		if got := time.Since(start); got != 90*time.Millisecond {
			t.Errorf("Close took until %v, want no time", got)
		}
	})
}

// The same on a real server on 127.0.0.1: a stop's body that trickles, then comes whole,
// reaches the caller byte for byte after the 4 attempts.
func TestStopBodyTricklingRealServer(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(trickling(http.StatusServiceUnavailable, 100000, 20, &requests))
	defer srv.Close()
	c := client(t, &retryhttp.Transport{Policy: constant(t, time.Millisecond, 4, 10*time.Second)})
	_, err := c.Get(srv.URL)
	var rerr *retryhttp.ResponseError
	if !errors.As(err, &rerr) || !errors.Is(err, retry.ErrAttemptsExhausted) || requests.Load() != 4 {
		t.Fatalf("%d requests, %v; want 4, a ResponseError, attempts_exhausted", requests.Load(), err)
	}
	got, readErr := io.ReadAll(rerr.Response.Body)
	rerr.Response.Body.Close()
	if readErr != nil || !bytes.Equal(got, trickleBody(100000)) {
		t.Errorf("read %d bytes, %v; want all 100000, in order", len(got), readErr)
	}
}
