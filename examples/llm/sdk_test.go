package main

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// The official openai-go SDK (v3.100.0), whose own loop makes 3 attempts, over retryhttp
// (issue 22 item 5), against the fake API: what the API saw, and what the SDK's caller got.

// sdkRun is what came of one chat completion made with openai-go.
type sdkRun struct {
	requests int
	waits    []time.Duration
	status   int // of the *openai.Error, 0 without one
	err      error
	elapsed  time.Duration
}

// viaSDK makes one chat completion with openai-go over rt(base) in a synctest bubble, with
// ctx given timeout when not zero.
func viaSDK(t *testing.T, answers []answer, timeout time.Duration, rt func(base http.RoundTripper) http.RoundTripper, opts ...option.RequestOption) sdkRun {
	t.Helper()
	var r sdkRun
	api := onFakeOpenAI(t, answers, func(url string, base http.RoundTripper) {
		client := openai.NewClient(append([]option.RequestOption{option.WithBaseURL(url + "/v1"), option.WithAPIKey("sk-test"),
			option.WithHTTPClient(&http.Client{Transport: rt(base)})}, opts...)...)
		ctx := context.Background()
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		start := time.Now()
		_, r.err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: openai.ChatModelGPT5_4Mini, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}})
		r.elapsed = time.Since(start)
	})
	var apiErr *openai.Error
	if errors.As(r.err, &apiErr) {
		r.status = apiErr.StatusCode
	}
	r.requests = len(api.at)
	for i := 1; i < len(api.at); i++ {
		r.waits = append(r.waits, api.at[i].Sub(api.at[i-1]))
	}
	return r
}

func alone(base http.RoundTripper) http.RoundTripper { return base }

func underRetryhttp(p *retry.Policy) func(http.RoundTripper) http.RoundTripper {
	return func(base http.RoundTripper) http.RoundTripper { return &retryhttp.Transport{Base: base, Policy: p} }
}

// closingResponseErrors closes the body of the response inside a *retryhttp.ResponseError.
// The SDK takes that error for a connection error and never closes it: the connection would
// stay in use. Only a request without X-Stainless-Retry-Count gets one under the SDK.
type closingResponseErrors struct{ rt http.RoundTripper }

func (c closingResponseErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	var rerr *retryhttp.ResponseError
	if errors.As(err, &rerr) {
		rerr.Response.Body.Close()
	}
	return resp, err
}

func underRetryhttpWithoutTheHeader(base http.RoundTripper) http.RoundTripper {
	return closingResponseErrors{underRetryhttp(nil)(base)}
}

func TestOpenAIGoOverRetryhttp(t *testing.T) {
	unavailable := []answer{{status: 503}}
	for _, c := range []struct {
		name     string
		answers  []answer
		timeout  time.Duration
		rt       func(http.RoundTripper) http.RoundTripper
		opts     []option.RequestOption
		requests int
		status   int  // of the SDK's error; 0 for success or another error
		deadline bool // the SDK's error is the context's deadline
	}{
		{"503, the SDK alone", unavailable, 0, alone, nil, 3, 503, false},
		{"503, over retryhttp: one attempt per SDK attempt", unavailable, 0, underRetryhttp(nil), nil, 3, 503, false},
		{"503, over retryhttp without the SDK's header: 3 x 3", unavailable, 0, underRetryhttpWithoutTheHeader,
			[]option.RequestOption{option.WithHeaderDel("X-Stainless-Retry-Count")}, 9, 0, false},
		{"a POST's 500, the SDK alone: resent", []answer{{status: 500}}, 0, alone, nil, 3, 500, false},
		{"a POST's 500, over retryhttp: not resent", []answer{{status: 500}}, 0, underRetryhttp(nil), nil, 1, 500, false},
		{"retry-after-ms 20000 under 3 s, the SDK alone: sleeps into the deadline",
			[]answer{{status: 429, header: map[string]string{"Retry-After-Ms": "20000"}}}, 3 * time.Second, alone, nil, 1, 0, true},
		{"retry-after-ms 20000 under 3 s, over retryhttp: the 429 at once",
			[]answer{{status: 429, header: map[string]string{"Retry-After-Ms": "20000"}}}, 3 * time.Second, underRetryhttp(nil), nil, 1, 429, false},
		{"retry-after-ms 20000, the SDK alone: waited in full, twice",
			[]answer{{status: 429, header: map[string]string{"Retry-After-Ms": "20000"}}}, 0, alone, nil, 3, 429, false},
		{"the policy's loop instead of the SDK's: retry-after-ms 1500, then 200",
			[]answer{{status: 429, header: map[string]string{"Retry-After-Ms": "1500"}}, {reply: "Hello!"}}, 0, underRetryhttp(nil),
			[]option.RequestOption{option.WithMaxRetries(0), option.WithHeaderDel("X-Stainless-Retry-Count")}, 2, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := viaSDK(t, c.answers, c.timeout, c.rt, c.opts...)
			t.Logf("%d requests, waits %v, in %v; error %v", r.requests, r.waits, r.elapsed, r.err)
			if r.requests != c.requests || r.status != c.status || errors.Is(r.err, context.DeadlineExceeded) != c.deadline {
				t.Errorf("%d requests, status %d, error %v; want %d, %d (deadline %v)", r.requests, r.status, r.err, c.requests, c.status, c.deadline)
			}
		})
	}
}
