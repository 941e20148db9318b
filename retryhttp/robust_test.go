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

	"github.com/retrykit/retry"
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

// Buffering a streamed request body stops when the request's context ends (SPEC R2.8), and
// the call ends as every call does: a *retry.Error with reason deadline_exceeded or
// canceled, and a stop record, with no attempt (issue 15 item 4).
func TestBufferingFollowsTheContext(t *testing.T) {
	for _, tc := range []struct {
		name   string
		end    func(context.Context) (context.Context, context.CancelFunc)
		reason retry.Reason
		match  error
	}{
		{"deadline", func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 100*time.Millisecond)
		}, retry.ReasonDeadlineExceeded, context.DeadlineExceeded},
		{"cancel", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, retry.ReasonCanceled, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pr, pw := io.Pipe()
				defer pw.Close()
				ctx, cancel := tc.end(context.Background())
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, "PUT", "http://api.test/", pr)
				var records []retry.Decision
				m := new(retry.Metrics)
				p := &retry.Policy{OnDecision: retry.Observers(m.Observe, func(_ context.Context, d retry.Decision) { records = append(records, d) })}
				base := &slowThenOK{}
				start := time.Now()
				_, err := (&retryhttp.Transport{Base: base, Policy: p}).RoundTrip(req)
				if stop := stopOf(t, err); stop.Reason != tc.reason || stop.Attempts != 0 || !errors.Is(err, tc.match) ||
					time.Since(start) != 100*time.Millisecond {
					t.Errorf("after %v: %v; want reason %s at 100ms, matching %v", time.Since(start), err, tc.reason, tc.match)
				}
				if len(records) != 1 || records[0].Reason != tc.reason || !records[0].NoAttempt || base.calls != 0 {
					t.Errorf("records %+v, %d calls to the base; want one stop record %s and none", records, base.calls, tc.reason)
				}
				if s := m.Snapshot(); s.Attempts != 0 || s.Stops[tc.reason] != 1 {
					t.Errorf("metrics %+v", s)
				}
			})
		})
	}
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
