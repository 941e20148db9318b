package retryhttp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// statusServer is a real server on 127.0.0.1 that answers every request with status and
// counts the requests.
func statusServer(t *testing.T, status int, header http.Header) (string, *atomic.Int32) {
	var arrivals atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrivals.Add(1)
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &arrivals
}

// rawStatusServer is a TCP server on 127.0.0.1 that answers every request with the status
// line "HTTP/1.1 <status> Odd", which net/http's own server refuses to write for a status
// above 999 and its client delivers as it is. It counts the requests it reads.
func rawStatusServer(t *testing.T, status int) (string, *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var arrivals atomic.Int32
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					arrivals.Add(1)
					fmt.Fprintf(conn, "HTTP/1.1 %d Odd\r\nContent-Length: 4\r\n\r\nodd!", status)
				}
			})
		}
	})
	return "http://" + ln.Addr().String() + "/", &arrivals
}

// Issue 16 item 2: RFC 9110 section 15. An unregistered status is its class's x00: 520 to
// 599 are retried like 500 under the default list, an unregistered 4xx is permanent like
// 400; registered statuses outside the list (501, 505, 418) are permanent.
func TestUnrecognisedStatusesFollowTheirClass(t *testing.T) {
	tests := []struct {
		status       int
		statuses     []int // the policy's RetryableStatuses; nil for the default
		wantAttempts int
		wantReason   retry.Reason
	}{
		{520, nil, 3, retry.ReasonAttemptsExhausted},
		{522, nil, 3, retry.ReasonAttemptsExhausted},
		{524, nil, 3, retry.ReasonAttemptsExhausted},
		{599, nil, 3, retry.ReasonAttemptsExhausted},
		{509, nil, 3, retry.ReasonAttemptsExhausted},
		{501, nil, 1, retry.ReasonNonRetryableStatus},
		{505, nil, 1, retry.ReasonNonRetryableStatus},
		{511, nil, 1, retry.ReasonNonRetryableStatus},
		{499, nil, 1, retry.ReasonNonRetryableStatus},
		{460, nil, 1, retry.ReasonNonRetryableStatus},
		{499, []int{400}, 3, retry.ReasonAttemptsExhausted},
		{418, []int{400}, 1, retry.ReasonNonRetryableStatus}, // registered: its own rule
		{520, []int{503}, 1, retry.ReasonNonRetryableStatus}, // 500 not in the list
		{520, []int{}, 1, retry.ReasonNonRetryableStatus},    // no status retried
		{299, nil, 1, retry.ReasonSuccess},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%v", tt.status, tt.statuses), func(t *testing.T) {
			url, arrivals := statusServer(t, tt.status, nil)
			p := fast(t, 3)
			p.RetryableStatuses = tt.statuses
			resp, err := client(t, &retryhttp.Transport{Policy: p}).Get(url)
			if tt.wantReason == retry.ReasonSuccess || tt.wantReason == retry.ReasonNonRetryableStatus {
				if err != nil || resp.StatusCode != tt.status {
					t.Fatalf("(%v, %v); want the %d response", resp, err, tt.status)
				}
				resp.Body.Close()
			} else if stop := stopOf(t, err); stop.Reason != tt.wantReason || stop.Status != tt.status {
				t.Fatalf("stop = %v; want %s with status %d", stop, tt.wantReason, tt.status)
			}
			if n := int(arrivals.Load()); n != tt.wantAttempts {
				t.Errorf("%d attempts; want %d", n, tt.wantAttempts)
			}
		})
	}
}

// A status outside 100-599 is an invalid response: a retryable failure, never a success.
// 600 and 999 come from a server that writes such a status line; a GET is retried and stops
// with ErrInvalidStatus, no response returned; a POST is an unknown outcome (the server
// answered, so it may have acted).
func TestInvalidStatusLinesAreRetryableFailures(t *testing.T) {
	for _, status := range []int{600, 999} {
		for _, tc := range []struct {
			method       string
			wantAttempts int
			wantReason   retry.Reason
		}{
			{http.MethodGet, 3, retry.ReasonAttemptsExhausted},
			{http.MethodPut, 3, retry.ReasonAttemptsExhausted},
			{http.MethodPost, 1, retry.ReasonUnknownOutcome},
		} {
			t.Run(fmt.Sprintf("%d/%s", status, tc.method), func(t *testing.T) {
				url, arrivals := rawStatusServer(t, status)
				resp, err := client(t, &retryhttp.Transport{Policy: fast(t, 3)}).Do(request(t, tc.method, url, "x"))
				if resp != nil {
					resp.Body.Close()
					t.Fatalf("status %d came back as a response", status)
				}
				stop := stopOf(t, err)
				if stop.Reason != tc.wantReason || !errors.Is(err, retryhttp.ErrInvalidStatus) {
					t.Errorf("stop = %v; want %s with ErrInvalidStatus", stop, tc.wantReason)
				}
				if want := fmt.Sprintf("invalid response status %d", status); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
				if n := int(arrivals.Load()); n != tc.wantAttempts {
					t.Errorf("%d requests reached the server; want %d", n, tc.wantAttempts)
				}
			})
		}
	}
}

// Status 0 can only come from a custom RoundTripper that returns a response without a
// status: retried, then an error, never (resp, nil); every such body is closed.
func TestStatusZeroIsNoSuccess(t *testing.T) {
	var closes [3]int
	sent := 0
	base := roundTripFunc(func(*http.Request) (*http.Response, error) {
		b := closeCounter{Reader: strings.NewReader("?"), closed: &closes[sent]}
		sent++
		return &http.Response{StatusCode: 0, Body: b, Header: http.Header{}}, nil
	})
	resp, err := (&http.Client{Transport: &retryhttp.Transport{Base: base, Policy: fast(t, 3)}}).Get("http://127.0.0.1:1/")
	if resp != nil {
		t.Fatalf("status 0 came back as a response")
	}
	if stop := stopOf(t, err); stop.Reason != retry.ReasonAttemptsExhausted || stop.Attempts != 3 || !errors.Is(err, retryhttp.ErrInvalidStatus) {
		t.Errorf("stop = %v; want attempts_exhausted after 3 attempts, ErrInvalidStatus", stop)
	}
	if closes != [3]int{1, 1, 1} {
		t.Errorf("the bodies were closed %v times; want once each", closes)
	}
}

// Issue 16 item 3: RFC 9110 section 15.5.14. A 413 with Retry-After says the condition is
// temporary: it is retried after the wait asked, a POST too (the server refused to process
// it). Without Retry-After it is permanent.
func TestContentTooLargeWithRetryAfter(t *testing.T) {
	tooLarge := retrytest.Step{Status: 413, Header: http.Header{"Retry-After": {"2"}}}
	for _, method := range []string{http.MethodPut, http.MethodPost} {
		t.Run(method, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{tooLarge, {Status: 201}}})
				var decisions []retry.Decision
				p := constant(t, 10*time.Millisecond, 3, 10*time.Second)
				p.OnDecision = func(_ context.Context, d retry.Decision) { decisions = append(decisions, d) }
				start := time.Now()
				resp, err := (&retryhttp.Transport{Base: rt, Policy: p}).RoundTrip(request(t, method, "http://api.test/upload", "data"))
				if err != nil || resp.StatusCode != 201 {
					t.Fatalf("(%v, %v); want the 201", resp, err)
				}
				resp.Body.Close()
				if got := time.Since(start); got != 2*time.Second {
					t.Errorf("second attempt after %v; want 2s, as asked", got)
				}
				if len(decisions) != 2 || decisions[0].Reason != retry.ReasonRetryAfter || decisions[0].Wait != 2*time.Second {
					t.Errorf("decisions %+v; want retry_after with a 2s wait, then success", decisions)
				}
			})
		})
	}
	t.Run("without Retry-After", func(t *testing.T) {
		url, arrivals := statusServer(t, 413, nil)
		resp, err := client(t, &retryhttp.Transport{Policy: fast(t, 3)}).Post(url, "text/plain", strings.NewReader("data"))
		if err != nil || resp.StatusCode != 413 || arrivals.Load() != 1 {
			t.Fatalf("(%v, %v) after %d requests; want the 413 after 1", resp, err, arrivals.Load())
		}
		resp.Body.Close()
	})
	t.Run("with a malformed Retry-After", func(t *testing.T) {
		url, arrivals := statusServer(t, 413, http.Header{"Retry-After": {"soon"}})
		resp, err := client(t, &retryhttp.Transport{Policy: fast(t, 3)}).Get(url)
		if err != nil || resp.StatusCode != 413 || arrivals.Load() != 1 {
			t.Fatalf("(%v, %v) after %d requests; want the 413 after 1", resp, err, arrivals.Load())
		}
		resp.Body.Close()
	})
}
