package retryhttp_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// opaque hides a reader's type so that http.NewRequest sets no GetBody.
type opaque struct{ io.Reader }

func TestBodyReplay(t *testing.T) {
	payload := strings.Repeat("0123456789abcdef", 4) // 64 bytes
	cases := []struct {
		name     string
		getBody  bool
		limit    int64
		wantErr  error
		wantReqs int
	}{
		{name: "GetBody", getBody: true, wantReqs: 3},
		{name: "buffered", wantReqs: 3},
		{name: "buffered exactly at the limit", limit: 64, wantReqs: 3},
		{name: "above the limit", limit: 63, wantErr: retryhttp.ErrBodyNotReplayable, wantReqs: 1},
		{name: "buffering off", limit: -1, wantErr: retryhttp.ErrBodyNotReplayable, wantReqs: 1},
		{name: "GetBody with buffering off", getBody: true, limit: -1, wantReqs: 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Body: "busy"}, {Action: retrytest.Reset}, {Status: 200}}})
				req, _ := http.NewRequest("PUT", "http://api.test/doc", opaque{strings.NewReader(payload)})
				gets := 0
				if c.getBody {
					req.GetBody = func() (io.ReadCloser, error) {
						gets++
						return io.NopCloser(strings.NewReader(payload)), nil
					}
				}
				tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 3, time.Minute), MaxBufferedBody: c.limit}
				resp, err := tr.RoundTrip(req)
				if c.wantErr != nil {
					if !errors.Is(err, c.wantErr) || !errors.Is(err, retry.ErrNonRetryableError) {
						t.Fatalf("err = %v; want %v and non_retryable_error", err, c.wantErr)
					}
					if got := respOf(resp, err); got == nil || got.StatusCode != 503 || readAll(t, got) != "busy" {
						t.Fatalf("the 503 must come back with the error")
					}
				} else if err != nil {
					t.Fatal(err)
				} else {
					readAll(t, resp)
				}
				rec := rt.Received()
				if len(rec) != c.wantReqs {
					t.Fatalf("requests = %d; want %d", len(rec), c.wantReqs)
				}
				for i, r := range rec {
					if r.Action != retrytest.Reset && string(r.Body) != payload {
						t.Errorf("attempt %d sent %d bytes %q; want the 64-byte payload", i+1, len(r.Body), r.Body)
					}
				}
				if c.getBody && gets != c.wantReqs-1 {
					t.Errorf("GetBody called %d times; want %d", gets, c.wantReqs-1)
				}
			})
		})
	}
}

// A keyed write whose body cannot be sent again and whose answer was lost may have been
// applied: it stops as an unknown outcome, not as a plain failure (SPEC R3.4); a 503 answer
// to it is a known failure.
func TestKeyedWriteNotReplayable(t *testing.T) {
	for _, c := range []struct {
		name string
		step retrytest.Step
		want error
	}{
		{"answer lost", retrytest.Step{Action: retrytest.Drop}, retry.ErrUnknownOutcome},
		{"declined with 503", retrytest.Step{Status: 503}, retry.ErrNonRetryableError},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{c.step, {Status: 201}}})
				req, _ := http.NewRequest("POST", "http://api.test/orders", opaque{strings.NewReader(strings.Repeat("x", 64))})
				tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 3, time.Minute), MaxBufferedBody: -1,
					AutoIdempotencyKey: true}
				resp, err := tr.RoundTrip(req)
				if !errors.Is(err, c.want) || !errors.Is(err, retryhttp.ErrBodyNotReplayable) || len(rt.Received()) != 1 {
					t.Fatalf("err = %v after %d requests; want %v and ErrBodyNotReplayable after 1", err, len(rt.Received()), c.want)
				}
				if got := respOf(resp, err); got != nil {
					readAll(t, got)
				}
			})
		})
	}
}

// closeCounter counts Close calls on a request body.
type closeCounter struct {
	io.Reader
	closed *int
}

func (c closeCounter) Close() error { *c.closed++; return nil }

// TestRequestBodyClosed: RoundTrip closes the caller's body exactly once, also when no
// attempt runs.
func TestRequestBodyClosed(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *retry.Policy
		url  string
	}{
		{"sent", nil, "http://api.test/"},
		{"invalid policy", &retry.Policy{MaxAttempts: -5}, "http://api.test/"},
		{"no host", nil, "http:///path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				closed := 0
				req, _ := http.NewRequest("POST", tc.url, closeCounter{bytes.NewReader([]byte("x")), &closed})
				req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
				resp, err := (&retryhttp.Transport{Base: scripted(t, retrytest.Script{}), Policy: tc.p}).RoundTrip(req)
				if err == nil {
					readAll(t, resp)
				}
				if closed != 1 {
					t.Errorf("body closed %d times; want 1 (err %v)", closed, err)
				}
			})
		})
	}
}

// TestResponseBodyLifetime: discarded bodies are drained before their attempt's context
// ends; the returned body stays readable until closed, and closing it ends the context.
func TestResponseBodyLifetime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Body: "busy"}, {Status: 500, Body: "oops"}, {Status: 200, Body: "the answer"}}})
		tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 3, time.Minute)}
		resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
		if err != nil {
			t.Fatal(err)
		}
		if open, drained := rt.Bodies(); open != 1 || drained != 2 {
			t.Errorf("open %d drained %d; want the final body open and 2 drained", open, drained)
		}
		time.Sleep(10 * time.Second) // the body outlives RoundTrip (until the loop deadline)
		ctx := resp.Request.Context()
		if ctx.Err() != nil {
			t.Fatalf("the attempt's context ended before the body was closed: %v", ctx.Err())
		}
		if got := readAll(t, resp); got != "the answer" {
			t.Fatalf("body %q", got)
		}
		if ctx.Err() == nil {
			t.Error("closing the body did not end the attempt's context")
		}
		if open, drained := rt.Bodies(); open != 0 || drained != 3 {
			t.Errorf("open %d drained %d; want 0 and 3", open, drained)
		}
	})
}
