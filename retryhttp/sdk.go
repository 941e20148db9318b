package retryhttp

import (
	"errors"
	"net/http"
	"strings"

	"github.com/retrykit/retry"
)

// sdkRetryCountHeader is the header that the SDKs Stainless generates (openai-go,
// anthropic-sdk-go and their siblings in other languages) send on every attempt of their own
// retry loop: "0" on the first, n on the n-th retry. A request that carries it is retried by
// the SDK already.
const sdkRetryCountHeader = "X-Stainless-Retry-Count"

// keyInnerRetries marks, in the decision records, a request that a retry loop around the
// Transport retries by itself (an SDK's). The name is pinned: package retrygrpc writes it too.
const keyInnerRetries = "inner_retries"

// underSDK sets the call up for a request from an SDK's own retry loop: one attempt per SDK
// attempt, under a copy of the policy with MaxAttempts 1, so that the SDK's retries are not
// multiplied by the policy's (3 of the SDK's over 3 of ours would make 9 requests). The
// breaker, the budget and the records still apply to each attempt; the SDK's retries (a
// count of 1 or more) are asked of the budget (retry.Operation.OuterRetry).
func (c *call) underSDK() {
	v := c.req.Header[sdkRetryCountHeader]
	if len(v) == 0 {
		return
	}
	n, valid := parseUint(strings.Trim(v[0], " \t"))
	c.sdk, c.sdkRetry = true, valid && n > 0
	single := *c.policy // one allocation, for such requests only
	single.MaxAttempts = 1
	c.full, c.policy = c.policy, &single
}

// handsBack reports whether RoundTrip returns the last response itself, rather than inside a
// ResponseError, after the loop stopped with err: always under an SDK's loop, which decides
// its retries from the status and headers (http.Client would turn a ResponseError into a
// connection error that the SDK retries blindly). When the policy would not retry there, the
// response gets X-Should-Retry: false, which the SDKs obey: see vetoes.
func (c *call) handsBack(resp *http.Response, err error) bool {
	if !c.sdk {
		return false
	}
	if c.vetoes(err) {
		if resp.Header == nil {
			resp.Header = http.Header{}
		}
		resp.Header.Set("X-Should-Retry", "false")
	}
	return true
}

// vetoes reports whether the Transport's own policy forbids the retry an SDK would make after
// the attempt that stopped with err: a write whose outcome is unknown (an SDK resends a POST
// after a 500 blindly), or a server's wait that does not fit before the deadline or exceeds
// MaxWait (an SDK waits at most 8 s, shorter than the server asked, or sleeps into the
// deadline), as the policy would decide it after that attempt ([retry.Decide]).
func (c *call) vetoes(err error) bool {
	if errors.Is(err, retry.ErrUnknownOutcome) {
		return true
	}
	d := c.loop.Decision()
	if !d.HasRetryAfter {
		return false
	}
	o := retry.Outcome{Status: d.Status, Err: d.Err, RetryAfter: d.RetryAfter, HasRetryAfter: true,
		RetryAfterFrom: d.RetryAfterFrom, Class: d.Class}
	switch retry.Decide(c.full, c.loop.State(), o).Reason {
	case retry.ReasonRetryAfterExceedsDeadline, retry.ReasonRetryAfterExceedsMaxWait:
		return true
	}
	return false
}
