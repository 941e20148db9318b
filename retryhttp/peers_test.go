package retryhttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// The published test tables of peer libraries, their inputs and expected values, run
// against retryhttp (issue 16). Rows where this library differs by design say so and assert
// this library's behaviour.

// firstWait sends a GET through a Transport over rt and returns the first decision: its wait
// and reason. The policy's own backoff is a constant 10 ms, so a wait of 10 ms means that
// the server's wait was not taken.
func firstWait(t *testing.T, rt http.RoundTripper, method string) retry.Decision {
	t.Helper()
	var decisions []retry.Decision
	p := constant(t, 10*time.Millisecond, 2, time.Minute)
	p.MaxWait = time.Minute
	p.OnDecision = func(_ context.Context, d retry.Decision) { decisions = append(decisions, d) }
	resp, err := (&retryhttp.Transport{Base: rt, Policy: p}).RoundTrip(request(t, method, "http://api.test/", ""))
	if resp != nil {
		resp.Body.Close()
	} else if err == nil {
		t.Fatal("no response and no error")
	}
	if len(decisions) == 0 {
		t.Fatal("no decision")
	}
	return decisions[0]
}

// hashicorp/go-retryablehttp client_test.go TestParseRetryAfterHeader, its clock fixed at
// Fri, 31 Dec 1999 23:59:57 GMT (here the response's Date, which the Transport takes as the
// server's now). 9 rows: 8 agree; "past-date" differs by design: go-retryablehttp retries at
// once, this library takes a date in the past as no request and waits its backoff (SPEC
// R4.3), never retrying immediately.
func TestPeerRetryablehttpParseRetryAfterHeader(t *testing.T) {
	const backoffOnly = 10 * time.Millisecond
	tests := []struct {
		name    string
		headers []string
		want    time.Duration
	}{
		{"seconds", []string{"2"}, 2 * time.Second},
		{"date", []string{"Fri, 31 Dec 1999 23:59:59 GMT"}, 2 * time.Second},
		{"past-date (by design: the backoff, not 0)", []string{"Fri, 31 Dec 1999 23:59:00 GMT"}, backoffOnly},
		{"nil", nil, backoffOnly},
		{"two-headers", []string{"2", "3"}, 2 * time.Second},
		{"empty", []string{""}, backoffOnly},
		{"negative", []string{"-2"}, backoffOnly},
		{"bad-date", []string{"Fri, 32 Dec 1999 23:59:59 GMT"}, backoffOnly},
		{"bad-date-format", []string{"badbadbad"}, backoffOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.Header{"Date": {"Fri, 31 Dec 1999 23:59:57 GMT"}}
				if tt.headers != nil {
					h["Retry-After"] = tt.headers
				}
				rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: h}, {Status: 200}}})
				if d := firstWait(t, rt, http.MethodGet); d.Wait != tt.want {
					t.Errorf("wait %v (%s), want %v", d.Wait, d.Reason, tt.want)
				}
			})
		})
	}
}

// hashicorp/go-retryablehttp TestClient_DefaultBackoff: 429 and 503 with Retry-After in
// seconds or as a date are retryable and wait exactly 2 s. 4 rows.
func TestPeerRetryablehttpDefaultBackoff(t *testing.T) {
	for _, tt := range []struct {
		code        int
		retryHeader string
	}{
		{http.StatusTooManyRequests, "2"},
		{http.StatusTooManyRequests, "Fri, 31 Dec 1999 23:59:59 GMT"},
		{http.StatusServiceUnavailable, "2"},
		{http.StatusServiceUnavailable, "Fri, 31 Dec 1999 23:59:59 GMT"},
	} {
		t.Run(fmt.Sprintf("%d %s", tt.code, tt.retryHeader), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.Header{"Retry-After": {tt.retryHeader}, "Date": {"Fri, 31 Dec 1999 23:59:57 GMT"}}
				rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: tt.code, Header: h, Body: "test body"}, {Status: 200}}})
				if d := firstWait(t, rt, http.MethodGet); d.Reason != retry.ReasonRetryAfter || d.Wait != 2*time.Second {
					t.Errorf("decision %s, wait %v; want retry_after, 2s", d.Reason, d.Wait)
				}
			})
		})
	}
}

// hashicorp/go-retryablehttp TestClient_DefaultRetryPolicy_TLS, _redirects,
// _invalidscheme, _invalidheadername, _invalidheadervalue: each is an error after exactly
// one attempt (for a redirect loop, one attempt per hop, the loop ended by http.Client).
// 5 rows, on real servers; the server counts what reached it.
func TestPeerRetryablehttpDefaultRetryPolicy(t *testing.T) {
	var arrivals atomic.Int32
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrivals.Add(1)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/redirect", http.StatusFound)
		}
	})
	plain := httptest.NewServer(handler)
	t.Cleanup(plain.Close)
	tlsServer := httptest.NewUnstartedServer(handler)
	tlsServer.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	tlsServer.StartTLS()
	t.Cleanup(tlsServer.Close)

	tests := []struct {
		name          string
		req           func() *http.Request
		wantArrivals  int32
		wantErrorText string
	}{
		{"TLS", func() *http.Request { return request(t, http.MethodGet, tlsServer.URL, "") }, 0, "certificate"},
		{"redirects", func() *http.Request { return request(t, http.MethodGet, plain.URL+"/redirect", "") }, 10, "stopped after 10 redirects"},
		{"invalidscheme", func() *http.Request {
			return request(t, http.MethodGet, strings.Replace(plain.URL, "http", "ftp", 1), "")
		}, 0, "unsupported protocol scheme"},
		{"invalidheadername", func() *http.Request {
			r := request(t, http.MethodGet, plain.URL, "")
			r.Header.Set("Header-Name-\033", "header value")
			return r
		}, 0, "invalid header field name"},
		{"invalidheadervalue", func() *http.Request {
			r := request(t, http.MethodGet, plain.URL, "")
			r.Header.Set("Header-Name", "bad header value \033")
			return r
		}, 0, "invalid header field value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arrivals.Store(0)
			var attempts int
			p := fast(t, 3)
			p.OnDecision = func(_ context.Context, d retry.Decision) {
				if !d.NoAttempt {
					attempts++
				}
			}
			resp, err := client(t, &retryhttp.Transport{Policy: p}).Do(tt.req())
			if resp != nil {
				resp.Body.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErrorText) {
				t.Fatalf("err = %v; want one saying %q", err, tt.wantErrorText)
			}
			if got := arrivals.Load(); got != tt.wantArrivals {
				t.Errorf("%d requests reached the server; want %d", got, tt.wantArrivals)
			}
			hops := max(1, int(tt.wantArrivals))
			if tt.name != "invalidscheme" && attempts != hops { // an unsupported scheme goes to Base once, unrecorded
				t.Errorf("%d attempts; want one per hop, %d", attempts, hops)
			}
		})
	}
}

// hashicorp/go-retryablehttp TestClient_Do_fails: a POST answered 500 is retried until
// "giving up after 3 attempt(s)". By design this library does not repeat a write that may
// have been applied: 1 attempt, unknown_outcome (SPEC R3.4). 1 row.
func TestPeerRetryablehttpPostAnswered500(t *testing.T) {
	url, arrivals := statusServer(t, 500, nil)
	_, err := client(t, &retryhttp.Transport{Policy: fast(t, 3)}).Post(url, "text/plain", nil)
	if stop := stopOf(t, err); stop.Reason != retry.ReasonUnknownOutcome || arrivals.Load() != 1 {
		t.Errorf("stop = %v after %d requests; want unknown_outcome after 1", stop, arrivals.Load())
	}
}

// urllib3 test_retry.py test_parse_retry_after_invalid (4 rows) and test_parse_retry_after
// (3 rows), and urllib3 refuses "1.0", as we do.
func TestPeerUrllib3ParseRetryAfter(t *testing.T) {
	for _, v := range []string{"-1", "+1", "\xb2", "²", "1.0"} {
		if got, ok := retryhttp.ParseRetryAfter(v, now); ok {
			t.Errorf("ParseRetryAfter(%q) = %v, want invalid", v, got)
		}
	}
	for _, c := range []struct {
		value string
		want  time.Duration
	}{{"0", 0}, {"1000", 1000 * time.Second}, {"\t42 ", 42 * time.Second}} {
		if got, ok := retryhttp.ParseRetryAfter(c.value, now); !ok || got != c.want {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v", c.value, got, ok, c.want)
		}
	}
}

// urllib3 test_respect_retry_after_header_sleep, the rows that respect the header, at
// 2019-06-03 11:00 UTC: the formats of RFC 7231 section 7.1.1.1, and urllib3's lenient
// "Mon, 3 Jun 2019 12:00:00 UTC". 6 rows.
func TestPeerUrllib3RetryAfterSleep(t *testing.T) {
	at := time.Date(2019, 6, 3, 11, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"3600", time.Hour, true},
		{"Mon, 3 Jun 2019 12:00:00 UTC", time.Hour, true},
		{"Mon, 3 Jun 2019 11:00:00 UTC", 0, false}, // now: no sleep
		{"Mon, 03 Jun 2019 11:30:12 GMT", 1812 * time.Second, true},
		{"Monday, 03-Jun-19 11:30:12 GMT", 1812 * time.Second, true},
		{"Mon Jun  3 11:30:12 2019", 1812 * time.Second, true},
	} {
		if got, ok := retryhttp.ParseRetryAfter(c.header, at); got != c.want || ok != c.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", c.header, got, ok, c.want, c.ok)
		}
	}
}

// urllib3 test_status_forcelist: with the list 500-599, 200 and 400 are not retried and 500
// is; with [418], 400 is not and 418 is. 5 rows.
func TestPeerUrllib3StatusForcelist(t *testing.T) {
	var fiveHundreds []int
	for s := 500; s < 600; s++ {
		fiveHundreds = append(fiveHundreds, s)
	}
	for _, c := range []struct {
		list   []int
		status int
		want   retry.Class
	}{
		{fiveHundreds, 200, retry.ClassSuccess},
		{fiveHundreds, 400, retry.ClassPermanent},
		{fiveHundreds, 500, retry.ClassRetryable},
		{[]int{418}, 400, retry.ClassPermanent},
		{[]int{418}, 418, retry.ClassRetryable},
	} {
		p := &retry.Policy{RetryableStatuses: c.list}
		if got := p.Classify(retry.Outcome{Status: c.status}); got != c.want {
			t.Errorf("status %d with %d listed: %v, want %v", c.status, len(c.list), got, c.want)
		}
	}
}

// urllib3 test_configurable_retry_after_max: a Retry-After above retry_after_max is cut to
// it. By design this library never retries earlier than asked: it stops with
// retry_after_exceeds_max_wait and returns the response (SPEC R4.4). 1 row.
func TestPeerUrllib3RetryAfterAboveMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: http.Header{"Retry-After": {"2"}}}}})
		p := constant(t, 10*time.Millisecond, 3, time.Minute)
		p.MaxWait = time.Second
		_, err := (&retryhttp.Transport{Base: rt, Policy: p}).RoundTrip(request(t, http.MethodGet, "http://api.test/", ""))
		var rerr *retryhttp.ResponseError
		if !errors.As(err, &rerr) || stopOf(t, err).Reason != retry.ReasonRetryAfterExceedsMaxWait {
			t.Fatalf("err = %v; want retry_after_exceeds_max_wait with the response", err)
		}
		rerr.Response.Body.Close()
	})
}

// aws-sdk-go-v2 aws/retry retryable_error_test.go TestRetryHTTPStatusCodes: with the codes
// 500 and 502, a 500 (top level and nested in the SDK) and a 502 are retryable. 3 rows.
func TestPeerAWSRetryableStatusCodes(t *testing.T) {
	p := &retry.Policy{RetryableStatuses: []int{500, 502}}
	for _, status := range []int{500, 500, 502} {
		if got := p.Classify(retry.Outcome{Status: status}); got != retry.ClassRetryable {
			t.Errorf("status %d: %v, want retryable", status, got)
		}
	}
}
