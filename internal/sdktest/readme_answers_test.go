package sdktest

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// The README's table "what each SDK does with each of our answers", through each SDK over
// the README's wiring (readmeWiring): what the API saw, what the SDK's caller got, and what
// retryhttp.StopOf reads back (issue 32 items 3 and 8).

// answerCase is one row of the table: how the API answers, and what a call through each
// SDK makes of it.
type answerCase struct {
	name string
	// openAI and anthropic are the API's answers (anthropic: the same as openAI when nil);
	// first, when set, makes one call before the measured one (to open the breaker, or to
	// tell the rate gate of a limit).
	openAI, anthropic []step
	first             bool
	// timeout is the measured call's deadline, 0 for none.
	timeout time.Duration
	// delay holds every answer that long; refuse fails every exchange before a response, as
	// a connection that broke does.
	delay  time.Duration
	refuse bool
	// want is what the call makes of it through openai-go, and through anthropic-sdk-go
	// v1 and v2 unless anthropicWant says otherwise.
	want, anthropicWant *got
}

// got is what a call made of the API's answers.
type got struct {
	// requests is how many requests of the call reached the API; waits bound the SDK's
	// waits between them.
	requests int
	waits    []within
	// status is the status of the SDK's own error (0: no such error), reason our stop that
	// StopOf reads from the error ("": none), wait its RetryAfter (0: none).
	status int
	reason retry.Reason
	wait   within
	// urlError: the caller gets http.Client's *url.Error, not the SDK's error type.
	urlError bool
	// atOnce: the call returns without any wait.
	atOnce bool
}

// rateLimitSpent returns the headers of an answer that leaves no request of the API's
// quota before a reset 20 s after now.
func rateLimitSpent(anthropic bool) func(now time.Time) map[string]string {
	return func(now time.Time) map[string]string {
		if anthropic {
			return map[string]string{"Anthropic-Ratelimit-Requests-Limit": "50", "Anthropic-Ratelimit-Requests-Remaining": "0",
				"Anthropic-Ratelimit-Requests-Reset": now.Add(20 * time.Second).UTC().Format(time.RFC3339)}
		}
		return map[string]string{"X-Ratelimit-Limit-Requests": "50", "X-Ratelimit-Remaining-Requests": "0",
			"X-Ratelimit-Reset-Requests": "20s"}
	}
}

var answerCases = []answerCase{
	{name: "200: returned", openAI: []step{{}}, want: &got{requests: 1, atOnce: true}},
	{name: "409, which the SDKs alone retry: returned at once",
		openAI: []step{{status: 409}},
		want:   &got{requests: 1, status: 409, reason: retry.ReasonNonRetryableStatus, atOnce: true}},
	{name: "503 every time: retried by the SDK after its backoff, until its last attempt",
		openAI: []step{{status: 503}},
		want:   &got{requests: 3, waits: []within{backoff(0), backoff(1)}, status: 503, reason: retry.ReasonAttemptsExhausted}},
	{name: "529 every time: the same",
		openAI: []step{{status: 529}},
		want:   &got{requests: 3, waits: []within{backoff(0), backoff(1)}, status: 529, reason: retry.ReasonAttemptsExhausted}},
	{name: "a 429 with retry-after-ms 1500, then 200: the SDK waits the time we hand it",
		openAI: []step{{status: 429, header: map[string]string{"Retry-After-Ms": "1500"}}, {}},
		want:   &got{requests: 2, waits: []within{{1500 * time.Millisecond, 1650 * time.Millisecond}}}},
	{name: "a POST's 500: not sent again",
		openAI: []step{{status: 500}},
		want:   &got{requests: 1, status: 500, reason: retry.ReasonUnknownOutcome, atOnce: true}},
	{name: "a 429 for billing: not retried",
		openAI:    []step{{status: 429, body: `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`}},
		anthropic: []step{{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"spend limit","details":{"error_code":"enforced_spend_limit_reached"}}}`}},
		want:      &got{requests: 1, status: 429, reason: retry.ReasonNonRetryableStatus, atOnce: true}},
	{name: "a 429 asking for 20 s under a 3 s deadline: returned at once",
		openAI: []step{{status: 429, header: map[string]string{"Retry-After-Ms": "20000"}}}, timeout: 3 * time.Second,
		want: &got{requests: 1, status: 429, reason: retry.ReasonRetryAfterExceedsDeadline, wait: exactly(20 * time.Second), atOnce: true}},
	{name: "the breaker OPEN: our refusal, nothing sent",
		openAI: []step{{status: 503}}, first: true,
		want: &got{requests: 0, status: 503, reason: retry.ReasonCircuitOpen, wait: exactly(30 * time.Second), atOnce: true}},
	{name: "no request left before the reset, under a 3 s deadline: our refusal, nothing sent",
		openAI: []step{{at: rateLimitSpent(false)}}, anthropic: []step{{at: rateLimitSpent(true)}}, first: true, timeout: 3 * time.Second,
		want: &got{requests: 0, status: 429, reason: retry.ReasonRateLimitExceedsDeadline, wait: within{19 * time.Second, 20 * time.Second}, atOnce: true}},
	{name: "a connection that fails: the SDK's to judge, and it retries",
		refuse: true,
		want:   &got{requests: 3, waits: []within{backoff(0), backoff(1)}, reason: retry.ReasonUnknownOutcome, urlError: true}},
	{name: "an answer slower than Policy.Timeout (10 min): cut, and the SDK's loop ends (openai-go); anthropic-sdk-go's own 10 min cuts it too, and it sends it again as alone",
		openAI: []step{{}}, delay: 11 * time.Minute,
		want:          &got{requests: 1, status: 504, reason: retry.ReasonUnknownOutcome},
		anthropicWant: &got{requests: 3, waits: []within{after(10*time.Minute, backoff(0)), after(10*time.Minute, backoff(1))}}},
	{name: "a 200 whose JSON body breaks: the SDK's to judge",
		openAI:        []step{{cut: true}},
		want:          &got{requests: 1},
		anthropicWant: &got{requests: 3, waits: []within{backoff(0), backoff(1)}}},
}

// after returns w later by d.
func after(d time.Duration, w within) within { return within{d + w.lo, d + w.hi} }

// answerRun is what came of the measured call.
type answerRun struct {
	requests int
	waits    []time.Duration
	err      error
	elapsed  time.Duration
}

func runAnswer(t *testing.T, s sdk, c answerCase) answerRun {
	steps := c.openAI
	if s.api == "Anthropic" && c.anthropic != nil {
		steps = c.anthropic
	}
	api := &stepsAPI{steps: steps, delay: c.delay}
	var r answerRun
	onREADMEWiring(t, api, c.refuse, func(rm readme) {
		call := s.connect(rm.url, rm.llm)
		if c.first {
			call(context.Background(), "first")
		}
		before := len(api.times())
		if c.refuse {
			before = len(rm.refused.at)
		}
		ctx := context.Background()
		if c.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.timeout)
			defer cancel()
		}
		start := time.Now()
		r.err = call(ctx, "measured")
		r.elapsed = time.Since(start)
		at := api.times()
		if c.refuse {
			at = rm.refused.at
		}
		r.requests = len(at) - before
		for i := before + 1; i < len(at); i++ {
			r.waits = append(r.waits, at[i].Sub(at[i-1]))
		}
	})
	return r
}

func TestREADMEAnswers(t *testing.T) {
	for _, c := range answerCases {
		for _, s := range sdks {
			t.Run(c.name+"/"+s.name(), func(t *testing.T) {
				want := c.want
				if s.api == "Anthropic" && c.anthropicWant != nil {
					want = c.anthropicWant
				}
				r := runAnswer(t, s, c)
				st, hasStop := retryhttp.StopOf(r.err)
				status, shouldRetry := 0, ""
				if resp := s.response(r.err); resp != nil {
					status, shouldRetry = resp.StatusCode, resp.Header.Get("X-Should-Retry")
				}
				var wait time.Duration
				if hasStop {
					wait, _ = st.RetryAfter()
				}
				var uerr *url.Error
				isURLError := errors.As(r.err, &uerr)
				t.Logf("%d requests, waits %v, in %v; status %d; stop %v; error %v", r.requests, r.waits, r.elapsed, status, st, r.err)
				if r.requests != want.requests || len(r.waits) != len(want.waits) {
					t.Errorf("%d requests, waits %v; want %d, %v", r.requests, r.waits, want.requests, want.waits)
				}
				for i := range min(len(want.waits), len(r.waits)) {
					if r.waits[i] < want.waits[i].lo || r.waits[i] > want.waits[i].hi {
						t.Errorf("wait %d: %v, want %v", i, r.waits[i], want.waits[i])
					}
				}
				if status != want.status || isURLError != want.urlError {
					t.Errorf("SDK error of status %d (a *url.Error: %v); want %d (%v)", status, isURLError, want.status, want.urlError)
				}
				if status != 0 && shouldRetry != "false" {
					t.Errorf("the response in the SDK's error says X-Should-Retry %q; want false: every stop of ours says so", shouldRetry)
				}
				if want.reason != "" && (!hasStop || st.Reason != want.reason) || want.reason == "" && hasStop && st.Reason != retry.ReasonSuccess {
					t.Errorf("StopOf: %v, %v; want reason %q", st, hasStop, want.reason)
				}
				if wait < want.wait.lo || wait > want.wait.hi {
					t.Errorf("RetryAfter %v; want %v", wait, want.wait)
				}
				if want.atOnce && r.elapsed != 0 {
					t.Errorf("returned after %v; want at once", r.elapsed)
				}
			})
		}
	}
}
