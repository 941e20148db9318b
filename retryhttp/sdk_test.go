package retryhttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// stainlessLoop plays the retry loop of openai-go and anthropic-sdk-go
// (internal/requestconfig/requestconfig.go, Execute): up to 3 attempts, each with
// X-Stainless-Retry-Count 0, 1, 2 (unless noHeader: the caller deleted it); it retries a
// connection error, x-should-retry: true, 408, 409, 429 and 5xx, unless x-should-retry:
// false; it waits retry-after-ms or Retry-After, at most 8 s, else 0.5 s × 2^n (the SDK takes
// up to a quarter off at random; not here). It returns how many attempts it made, the last
// response and the last error.
func stainlessLoop(ctx context.Context, client *http.Client, newReq func(url string) *http.Request, url string, noHeader bool) (int, *http.Response, error) {
	var resp *http.Response
	var err error
	attempts := 0
	for n := 0; n <= 2; n++ {
		req := newReq(url).WithContext(ctx)
		if !noHeader {
			req.Header.Set("X-Stainless-Retry-Count", strconv.Itoa(n))
		}
		attempts++
		resp, err = client.Do(req)
		var rerr *retryhttp.ResponseError
		if errors.As(err, &rerr) {
			// Only without the header does the Transport return a response inside an error:
			// the SDK sees a connection error, and never closes that body.
			rerr.Response.Body.Close()
		}
		if ctx.Err() != nil {
			return attempts, resp, ctx.Err()
		}
		if !sdkRetries(resp, err) || n == 2 {
			break
		}
		wait := 500 * time.Millisecond << n
		if resp != nil {
			if ms, perr := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); perr == nil {
				wait = min(time.Duration(ms*float64(time.Millisecond)), 8*time.Second)
			} else if s, perr := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); perr == nil {
				wait = min(time.Duration(s*float64(time.Second)), 8*time.Second)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return attempts, nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	return attempts, resp, err
}

// sdkRetries is the SDKs' shouldRetry.
func sdkRetries(resp *http.Response, err error) bool {
	if resp == nil {
		return err != nil
	}
	switch resp.Header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	s := resp.StatusCode
	return s == 408 || s == 409 || s == 429 || s >= 500
}

// sdkResult is what came of a call made by the SDK's loop over a Transport.
type sdkResult struct {
	requests    []apiRequest
	decisions   []retry.Decision
	sdkAttempts int
	status      int // of the response the SDK got last; 0 for an error
	shouldRetry string
	err         error
	elapsed     time.Duration
}

// callUnderSDK runs stainlessLoop over tr (its Base and OnDecision set here) against the
// fake API playing steps, in a synctest bubble; ctx is given the timeout when not zero.
func callUnderSDK(t *testing.T, tr *retryhttp.Transport, steps []apiStep, timeout time.Duration, noHeader bool) sdkResult {
	t.Helper()
	var res sdkResult
	res.requests = onFakeAPI(t, tr, steps, &res.decisions, func(url string) {
		ctx := context.Background()
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		start := time.Now()
		n, resp, err := stainlessLoop(ctx, &http.Client{Transport: tr}, chat(chatBody), url, noHeader)
		res.elapsed, res.err, res.sdkAttempts = time.Since(start), err, n
		if resp != nil {
			res.status, res.shouldRetry = resp.StatusCode, resp.Header.Get("X-Should-Retry")
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	return res
}

func (r sdkResult) reasons() []retry.Reason {
	var reasons []retry.Reason
	for _, d := range r.decisions {
		reasons = append(reasons, d.Reason)
	}
	return reasons
}

// Issue 22 item 5: under an SDK's loop, one attempt per SDK attempt; breaker, budget and
// records still apply; the records say inner_retries (SPEC R7.3).
func TestUnderSDKLoop(t *testing.T) {
	t.Run("503 always: 3 requests, not 9", func(t *testing.T) {
		r := callUnderSDK(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(503)}, 0, false)
		t.Logf("%d requests in %v for %d SDK attempts; reasons %v", len(r.requests), r.elapsed, r.sdkAttempts, r.reasons())
		if len(r.requests) != 3 || r.sdkAttempts != 3 || r.status != 503 || r.err != nil {
			t.Errorf("%d requests, %d SDK attempts, status %d, error %v: want 3, 3, the 503 as a response", len(r.requests), r.sdkAttempts, r.status, r.err)
		}
		// One decision an SDK attempt, numbered as the SDK numbers it; one stop a call
		// (issue 32 item 4).
		want := []retry.Reason{retry.ReasonRetryableStatus, retry.ReasonRetryableStatus, retry.ReasonAttemptsExhausted}
		for i, d := range r.decisions {
			inner, _ := d.Attr("inner_retries")
			sdk, _ := d.Attr("sdk_attempt")
			if d.Attempt != i+1 || d.Reason != want[i] || !inner.Bool() || sdk.Int64() != int64(i) {
				t.Errorf("decision %d: %s", i, recordJSON(t, d))
			}
		}
		if got, want := recordJSON(t, r.decisions[2]), `{"attempt":3,"method":"POST","url":"http://pipe.test/v1/chat/completions","inner_retries":true,"sdk_attempt":2,"status":503,"elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"attempts_exhausted","outcome":"failure"}`; got != want {
			t.Errorf("record\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("without the header: 9 requests", func(t *testing.T) {
		r := callUnderSDK(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(503)}, 0, true)
		t.Logf("%d requests in %v for %d SDK attempts", len(r.requests), r.elapsed, r.sdkAttempts)
		if len(r.requests) != 9 {
			t.Errorf("%d requests, want 9 (3 SDK attempts of 3)", len(r.requests))
		}
	})
	t.Run("the SDK's retries are asked of the budget, whose refusal ends the SDK's loop", func(t *testing.T) {
		b, err := budget.NewRatio(budget.RatioConfig{Ratio: 0.1, MinRetriesPerSecond: retry.None})
		if err != nil {
			t.Fatal(err)
		}
		p := seeded()
		p.Budget = b
		r := callUnderSDK(t, &retryhttp.Transport{Policy: p}, []apiStep{answer(503)}, 0, false)
		t.Logf("%d requests for %d SDK attempts; reasons %v", len(r.requests), r.sdkAttempts, r.reasons())
		want := []retry.Reason{retry.ReasonRetryBudgetExhausted}
		if len(r.requests) != 1 || r.sdkAttempts != 1 || !slices.Equal(r.reasons(), want) || r.status != 503 || r.shouldRetry != "false" {
			t.Errorf("%d requests, %d SDK attempts, reasons %v, status %d, x-should-retry %q", len(r.requests), r.sdkAttempts,
				r.reasons(), r.status, r.shouldRetry)
		}
	})
	t.Run("the breaker that the SDK's second attempt opens ends the SDK's loop", func(t *testing.T) {
		br, err := breaker.New(breaker.Config{ConsecutiveFailures: 2, OpenTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		p := seeded()
		p.Breaker = br
		r := callUnderSDK(t, &retryhttp.Transport{Policy: p}, []apiStep{answer(503)}, 0, false)
		t.Logf("%d requests for %d SDK attempts; reasons %v", len(r.requests), r.sdkAttempts, r.reasons())
		want := []retry.Reason{retry.ReasonRetryableStatus, retry.ReasonCircuitOpen}
		if len(r.requests) != 2 || r.sdkAttempts != 2 || !slices.Equal(r.reasons(), want) || r.shouldRetry != "false" {
			t.Errorf("%d requests, %d SDK attempts, reasons %v, x-should-retry %q", len(r.requests), r.sdkAttempts, r.reasons(), r.shouldRetry)
		}
	})
	t.Run("a POST's 500: the SDK is told not to resend it", func(t *testing.T) {
		r := callUnderSDK(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(500)}, 0, false)
		t.Logf("%d requests for %d SDK attempts; x-should-retry %q", len(r.requests), r.sdkAttempts, r.shouldRetry)
		if len(r.requests) != 1 || r.status != 500 || r.shouldRetry != "false" {
			t.Errorf("%d requests, status %d, x-should-retry %q", len(r.requests), r.status, r.shouldRetry)
		}
	})
	t.Run("retry-after-ms 20000 under a 3 s deadline: the SDK is told not to retry", func(t *testing.T) {
		r := callUnderSDK(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(429, "Retry-After-Ms", "20000")}, 3*time.Second, false)
		t.Logf("%d requests in %v; x-should-retry %q", len(r.requests), r.elapsed, r.shouldRetry)
		if len(r.requests) != 1 || r.status != 429 || r.shouldRetry != "false" || r.elapsed != 0 {
			t.Errorf("%d requests in %v, status %d, x-should-retry %q", len(r.requests), r.elapsed, r.status, r.shouldRetry)
		}
	})
	t.Run("retry-after-ms 1500: the SDK waits it, and the spread", func(t *testing.T) {
		r := callUnderSDK(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(429, "Retry-After-Ms", "1500"), ok("{}")}, 0, false)
		gaps := gapsOf(r.requests)
		t.Logf("%d requests, waits %v", len(r.requests), gaps)
		if len(r.requests) != 2 || r.status != 200 || gaps[0] < 1500*time.Millisecond || gaps[0] >= 1650*time.Millisecond ||
			r.requests[1].retryCount != "1" {
			t.Errorf("%d requests, status %d, waits %v: want one in [1.5 s, 1.65 s)", len(r.requests), r.status, gaps)
		}
	})
	t.Run("the breaker OPEN: the SDK gets a refusal it obeys at once, with the breaker's time", func(t *testing.T) {
		br, err := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		p := seeded()
		p.Breaker = br
		tr := &retryhttp.Transport{Policy: p}
		callUnderSDK(t, tr, []apiStep{answer(503)}, 0, false) // opens it
		r := callUnderSDK(t, tr, []apiStep{answer(503)}, 0, false)
		if len(r.requests) != 0 || r.sdkAttempts != 1 || r.status != 503 || r.shouldRetry != "false" || r.elapsed != 0 ||
			len(r.decisions) != 1 || r.decisions[0].Reason != retry.ReasonCircuitOpen {
			t.Errorf("%d requests, %d SDK attempts in %v, status %d, x-should-retry %q, reasons %v", len(r.requests),
				r.sdkAttempts, r.elapsed, r.status, r.shouldRetry, r.reasons())
		}
	})
}

// sdkError has the shape of *openai.Error and *anthropic.Error.
type sdkError struct {
	StatusCode int
	Response   *http.Response
}

func (e *sdkError) Error() string { return "the API answered " + strconv.Itoa(e.StatusCode) }

// The refusal an SDK gets reads back as the loop's stop, through the SDK's own error type,
// which holds the response (issue 32 item 3).
func TestStopOf(t *testing.T) {
	br, err := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := seeded()
	p.Breaker = br
	var resp *http.Response
	tr := &retryhttp.Transport{Policy: p}
	var records []retry.Decision
	onFakeAPI(t, tr, []apiStep{answer(503)}, &records, func(url string) {
		client := &http.Client{Transport: tr}
		for range 2 {
			req := chat(chatBody)(url)
			req.Header.Set("X-Stainless-Retry-Count", "0")
			if resp, err = client.Do(req); err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	wrapped := fmt.Errorf("calling the API: %w", &sdkError{StatusCode: resp.StatusCode, Response: resp})
	stop, ok := retryhttp.StopOf(wrapped)
	wait, hasWait := stop.RetryAfter()
	if !ok || stop.Reason != retry.ReasonCircuitOpen || !hasWait || wait <= 0 || wait > 30*time.Second ||
		resp.Header.Get("Retry-After-Ms") == "" {
		t.Errorf("StopOf: %v %v, RetryAfter %v %v, headers %v", stop, ok, wait, hasWait, resp.Header)
	}
	if _, ok := retryhttp.StopOf(errors.New("plain")); ok {
		t.Error("StopOf found a stop in a plain error")
	}
}

// An SDK attempt that our Policy.Timeout cuts ends the SDK's loop: the SDK would take the
// error for a connection error and send the generation again, which alone, without our
// Timeout, it would not have done (issue 32 item 3: our layer adds no resend). It gets a 504
// with X-Should-Retry: false, and the stop (a POST cut mid-answer: unknown_outcome).
func TestUnderSDKOwnTimeoutEndsTheSDKsLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var requests atomic.Int32
		release := make(chan struct{})
		srv := retrytest.NewPipeServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			select {
			case <-release: // the generation outlives the test
			case <-r.Context().Done():
			}
		}))
		defer srv.Close()
		defer close(release)
		tr := &retryhttp.Transport{Base: srv.Transport(), Policy: &retry.Policy{Timeout: time.Second}}
		n, resp, err := stainlessLoop(context.Background(), &http.Client{Transport: tr}, chat(chatBody), srv.URL, false)
		if err != nil || resp == nil {
			t.Fatalf("the SDK got %v", err)
		}
		defer resp.Body.Close()
		stop, ok := retryhttp.StopOf(&sdkError{StatusCode: resp.StatusCode, Response: resp})
		if requests.Load() != 1 || n != 1 || resp.StatusCode != http.StatusGatewayTimeout || resp.Header.Get("X-Should-Retry") != "false" ||
			!ok || stop.Reason != retry.ReasonUnknownOutcome || !errors.Is(stop, context.DeadlineExceeded) {
			t.Errorf("%d requests, %d SDK attempts, status %d, x-should-retry %q, stop %v", requests.Load(), n, resp.StatusCode,
				resp.Header.Get("X-Should-Retry"), stop)
		}
	})
}

// A call that the breaker refuses while its trial call comes soon (within what the SDK alone
// would spend retrying, and as much again) is left to the SDK as a retry after the trial's
// time: a 503 made here with X-Should-Retry: true and Retry-After-Ms, so that the SDK comes
// back when the service may be back, as its own retries would have (issue 32: never worse
// than the SDK alone). Here the call's own 503 opens the breaker for 1 s; its second SDK
// attempt, 0.5 s later, is deferred to the trial; its third is the trial, and succeeds.
func TestUnderSDKBreakerDefersToTheTrial(t *testing.T) {
	br, err := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := seeded()
	p.Breaker = br
	r := callUnderSDK(t, &retryhttp.Transport{Policy: p}, []apiStep{answer(503), ok("{}")}, 0, false)
	t.Logf("%d requests, %d SDK attempts in %v, status %d; records %v", len(r.requests), r.sdkAttempts, r.elapsed, r.status, r.reasons())
	if len(r.requests) != 2 || r.status != 200 || r.sdkAttempts != 3 || r.elapsed < time.Second || r.elapsed >= 2*time.Second {
		t.Errorf("%d requests, %d SDK attempts in %v, status %d: want the trial call 1-2 s later, a success", len(r.requests),
			r.sdkAttempts, r.elapsed, r.status)
	}
	if d := r.decisions[1]; !d.Retry || !d.NoAttempt || d.RetryAfterFrom != "circuit-breaker" || d.Wait < 500*time.Millisecond {
		t.Errorf("the deferral's record: %s", recordJSON(t, d))
	}
}
