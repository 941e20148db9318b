package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/retryhttp"
)

// trickle is a response body that yields one byte every 50 ms until closed.
type trickle struct{ closed chan struct{} }

func (b trickle) Read(p []byte) (int, error) {
	select {
	case <-b.closed:
		return 0, errors.New("read on a closed body")
	case <-time.After(50 * time.Millisecond):
		p[0] = 'x'
		return 1, nil
	}
}

func (b trickle) Close() error {
	select {
	case <-b.closed:
	default:
		close(b.closed)
	}
	return nil
}

// slowThenOK answers a 503 with a trickling body, then 200s.
type slowThenOK struct{ calls int }

func (s *slowThenOK) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.calls++; s.calls == 1 {
		return &http.Response{StatusCode: 503, Body: trickle{make(chan struct{})}, Request: req}, nil
	}
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("ok")), Request: req}, nil
}

// A discarded body that trickles in is given up on after 100 ms rather than drained until
// the deadline.
func TestSlowDiscardedBodyDoesNotEatTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &retryhttp.Transport{Base: &slowThenOK{}, Policy: constant(t, 0, 3, 2*time.Second)}
		start := time.Now()
		resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp)
		if took := time.Since(start); took != 100*time.Millisecond || resp.StatusCode != 200 {
			t.Errorf("a trickling 503 then a 200 took %v, status %d; want 100ms, 200", took, resp.StatusCode)
		}
	})
}

// Buffering a streamed request body stops when the request's context ends (SPEC R2.8).
func TestBufferingFollowsTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "PUT", "http://api.test/", pr)
		start := time.Now()
		_, err := (&retryhttp.Transport{Base: &slowThenOK{}}).RoundTrip(req)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 100*time.Millisecond {
			t.Errorf("after %v: %v; want the context's deadline at 100ms", time.Since(start), err)
		}
	})
}

type nilRoundTripper struct{}

func (nilRoundTripper) RoundTrip(*http.Request) (*http.Response, error) { return nil, nil }

// A base RoundTripper that returns neither a response nor an error is an error, not a panic.
func TestBaseReturningNothing(t *testing.T) {
	resp, err := (&retryhttp.Transport{Base: nilRoundTripper{}}).RoundTrip(request(t, "GET", "http://api.test/", ""))
	if resp != nil || err == nil || !strings.Contains(err.Error(), "neither a response nor an error") {
		t.Errorf("RoundTrip = %v, %v", resp, err)
	}
}
