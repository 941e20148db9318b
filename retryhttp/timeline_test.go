package retryhttp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// TestTimelineR45 is SPEC R4.5's worked timeline over HTTP: deadline 10 s from t = 0,
// attempt 1 fails, attempt 2 starts at t = 3 s and gets a 503 with Retry-After.
func TestTimelineR45(t *testing.T) {
	steps := func(retryAfter string) []retrytest.Step {
		return []retrytest.Step{{Status: 500},
			{Status: 503, Header: http.Header{"Retry-After": {retryAfter}}, Body: "busy"},
			{Status: 200, Body: "done"}}
	}
	t.Run("Retry-After 120 exceeds the deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rt := scripted(t, retrytest.Script{Steps: steps("120")})
			tr := &retryhttp.Transport{Base: rt, Policy: constant(t, 3*time.Second, 3, 10*time.Second)}
			start := time.Now()
			resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/x", ""))
			if resp != nil || !errors.Is(err, retry.ErrRetryAfterExceedsDeadline) {
				t.Fatalf("RoundTrip = %v, %v; want nil and retry_after_exceeds_deadline", resp, err)
			}
			stop := stopOf(t, err)
			if stop.Attempts != 2 || stop.Elapsed != 3*time.Second || stop.Status != 503 {
				t.Errorf("stop = %+v; want 2 attempts, 3s elapsed, status 503", stop)
			}
			got := respOf(resp, err)
			if got == nil || got.StatusCode != 503 || readAll(t, got) != "busy" {
				t.Fatalf("the 503 and its body must come back with the error; got %v", got)
			}
			rec := rt.Received()
			if len(rec) != 2 || rec[1].At.Sub(start) != 3*time.Second {
				t.Errorf("requests = %d, second at %v; want 2, the second at 3s", len(rec), rec[1].At.Sub(start))
			}
		})
	})
	t.Run("Retry-After 3 fits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rt := scripted(t, retrytest.Script{Steps: steps("3")})
			tr := &retryhttp.Transport{Base: rt, Policy: constant(t, 3*time.Second, 3, 10*time.Second)}
			start := time.Now()
			resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/x", ""))
			if err != nil || readAll(t, resp) != "done" {
				t.Fatalf("RoundTrip error %v", err)
			}
			rec := rt.Received()
			if len(rec) != 3 {
				t.Fatalf("requests = %d; want 3", len(rec))
			}
			if at := rec[2].At.Sub(start); at != 6*time.Second {
				t.Errorf("attempt 3 at %v; want 6s", at)
			}
			if left := rec[2].Deadline.Sub(rec[2].At); left != 4*time.Second {
				t.Errorf("attempt 3 had %v before its deadline; want 4s", left)
			}
		})
	})
}

// A wait too long for any deadline (20 digits of seconds) is honoured, not ignored: the loop
// stops at once instead of retrying after its own short backoff (SPEC R4.3, R4.4).
func TestHugeRetryAfterStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: http.Header{"Retry-After": {"99999999999999999999"}}}, {Status: 200}}})
		tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 2, 30*time.Second)}
		_, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
		var rerr *retryhttp.ResponseError
		if !errors.Is(err, retry.ErrRetryAfterExceedsDeadline) || !errors.As(err, &rerr) || len(rt.Received()) != 1 {
			t.Fatalf("err %v after %d requests", err, len(rt.Received()))
		}
		readAll(t, rerr.Response)
	})
}

// TestServerWait checks the wait between attempt 1 (a 503) and attempt 2 for each form of
// Retry-After and RateLimit, and the longest of them (issue 32 item 7); the policy's own wait
// is 1 s.
func TestServerWait(t *testing.T) {
	fixed := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC) // far from the bubble's clock: skew
	cases := []struct {
		name   string
		header func(now time.Time) http.Header
		want   time.Duration
	}{
		{"seconds", func(time.Time) http.Header { return http.Header{"Retry-After": {"2"}} }, 2 * time.Second},
		{"zero seconds keep the backoff", func(time.Time) http.Header { return http.Header{"Retry-After": {"0"}} }, time.Second},
		{"IMF-fixdate against Date", func(time.Time) http.Header {
			return http.Header{"Date": {fixed.Format(http.TimeFormat)}, "Retry-After": {fixed.Add(5 * time.Second).Format(http.TimeFormat)}}
		}, 5 * time.Second},
		{"RFC 850 date against Date", func(time.Time) http.Header {
			return http.Header{"Date": {fixed.Format(http.TimeFormat)}, "Retry-After": {"Sunday, 06-Nov-94 08:49:44 GMT"}}
		}, 7 * time.Second},
		{"asctime date against Date", func(time.Time) http.Header {
			return http.Header{"Date": {fixed.Format(http.TimeFormat)}, "Retry-After": {"Sun Nov  6 08:49:46 1994"}}
		}, 9 * time.Second},
		{"date against the local clock", func(now time.Time) http.Header {
			return http.Header{"Retry-After": {now.Add(4 * time.Second).UTC().Format(http.TimeFormat)}}
		}, 4 * time.Second},
		{"RateLimit", func(time.Time) http.Header { return http.Header{"Ratelimit": {`"default";r=0;t=7`}} }, 7 * time.Second},
		{"the longest wins: RateLimit's t over Retry-After (issue 32 item 7)", func(time.Time) http.Header {
			return http.Header{"Retry-After": {"2"}, "Ratelimit": {`"default";r=0;t=7`}}
		}, 7 * time.Second},
		{"the longest wins: Retry-After over RateLimit's t", func(time.Time) http.Header {
			return http.Header{"Retry-After": {"9"}, "Ratelimit": {`"default";r=0;t=7`}}
		}, 9 * time.Second},
		{"a malformed Retry-After shortens nothing (issue 32 item 7)", func(time.Time) http.Header {
			return http.Header{"Retry-After": {"soon"}, "Ratelimit": {`"default";r=0;t=7`}}
		}, 7 * time.Second},
		{"malformed", func(time.Time) http.Header { return http.Header{"Retry-After": {"abc"}} }, time.Second},
		{"negative", func(time.Time) http.Header { return http.Header{"Retry-After": {"-1"}} }, time.Second},
		{"a fraction is malformed (SPEC R4.3)", func(time.Time) http.Header { return http.Header{"Retry-After": {"1.5"}} }, time.Second},
		{"a fraction without digits before the point", func(time.Time) http.Header { return http.Header{"Retry-After": {".5"}} }, time.Second},
		{"past date", func(time.Time) http.Header {
			return http.Header{"Date": {fixed.Format(http.TimeFormat)}, "Retry-After": {fixed.Add(-time.Hour).Format(http.TimeFormat)}}
		}, time.Second},
		{"two-digit year IMF", func(time.Time) http.Header { return http.Header{"Retry-After": {"Sun, 06 Nov 94 08:49:37 GMT"}} }, time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: c.header(start)}, {Status: 200}}})
				tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 2, 30*time.Second)}
				resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
				if err != nil {
					t.Fatal(err)
				}
				readAll(t, resp)
				if rec := rt.Received(); rec[1].At.Sub(rec[0].At) != c.want {
					t.Errorf("waited %v; want %v", rec[1].At.Sub(rec[0].At), c.want)
				}
			})
		})
	}
}

// TestRetryAfterExceedsMaxWait: a wait above MaxWait stops with its own reason, response kept.
func TestRetryAfterExceedsMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 429, Header: http.Header{"Retry-After": {"60"}}, Body: "slow down"}}})
		p := constant(t, time.Second, 3, time.Hour)
		p.MaxWait = 10 * time.Second
		resp, err := (&retryhttp.Transport{Base: rt, Policy: p}).RoundTrip(request(t, "GET", "http://api.test/", ""))
		if !errors.Is(err, retry.ErrRetryAfterExceedsMaxWait) {
			t.Fatalf("err = %v; want retry_after_exceeds_max_wait", err)
		}
		if got := respOf(resp, err); got == nil || readAll(t, got) != "slow down" {
			t.Fatalf("response lost")
		}
	})
}

// TestAttemptTimeout: the attempt's deadline cancels a slow answer; a GET is retried, a POST
// without a key becomes an unknown outcome.
func TestAttemptTimeout(t *testing.T) {
	for _, method := range []string{"GET", "POST"} {
		t.Run(method, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Delay: time.Minute}, {Status: 200}}})
				p := constant(t, time.Second, 3, 30*time.Second)
				p.AttemptTimeout = 2 * time.Second
				start := time.Now()
				resp, err := (&retryhttp.Transport{Base: rt, Policy: p}).RoundTrip(request(t, method, "http://api.test/", "x"))
				if method == "POST" {
					if !errors.Is(err, retry.ErrUnknownOutcome) || rt.Requests() != 1 {
						t.Fatalf("err = %v after %d requests; want unknown_outcome after 1", err, rt.Requests())
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				readAll(t, resp)
				if rec := rt.Received(); len(rec) != 2 || rec[1].At.Sub(start) != 3*time.Second {
					t.Errorf("second attempt at %v; want 3s (2s timeout + 1s wait)", rec[1].At.Sub(start))
				}
			})
		})
	}
}

// TestCanceledDuringWait: the caller's context stops the loop at once during a wait (R2.8).
func TestCanceledDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: http.Header{"Retry-After": {"20"}}}}})
		req := request(t, "GET", "http://api.test/", "")
		ctx, cancel := contextWithCancelAfter(req, 5*time.Second)
		defer cancel()
		start := time.Now()
		_, err := (&retryhttp.Transport{Base: rt}).RoundTrip(req.WithContext(ctx))
		if !errors.Is(err, retry.ErrCanceled) || time.Since(start) != 5*time.Second {
			t.Fatalf("err = %v after %v; want canceled after 5s", err, time.Since(start))
		}
		if open, _ := rt.Bodies(); open != 0 {
			t.Errorf("%d response bodies left open", open)
		}
	})
}

// TestDemoScenarioOne is the CLI demo's first scenario under synctest: 503 with
// Retry-After: 1, a connection reset, then 200.
func TestDemoScenarioOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{
			{Status: 503, Header: http.Header{"Retry-After": {"1"}}}, {Action: retrytest.Reset}, {Status: 200, Body: "ok"}}})
		var waits []time.Duration
		p := constant(t, 500*time.Millisecond, 4, 10*time.Second)
		p.OnDecision = func(_ context.Context, d retry.Decision) { waits = append(waits, d.Wait) }
		resp, err := (&retryhttp.Transport{Base: rt, Policy: p}).RoundTrip(request(t, "GET", "http://api.test/", ""))
		if err != nil || readAll(t, resp) != "ok" {
			t.Fatalf("err = %v", err)
		}
		if want := []time.Duration{time.Second, 500 * time.Millisecond, 0}; !equalDurations(waits, want) {
			t.Errorf("waits = %v; want %v", waits, want)
		}
	})
}

func equalDurations(a, b []time.Duration) bool {
	return strings.Join(durations(a), ",") == strings.Join(durations(b), ",")
}

func durations(ds []time.Duration) []string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return s
}
