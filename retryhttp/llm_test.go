package retryhttp_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/retryhttp"
)

// The conventions of the LLM APIs that seed 004 is written for (issue 22), against a fake
// API served by net/http over in-memory connections, on synctest's clock: the waits below
// are exact. seeded is the default policy with a fixed seed: 3 attempts within 30 s,
// exponential backoff from 100 ms with full jitter, and a spread on a server's wait of a
// tenth of it, at least 1 s.
func seeded() *retry.Policy { return &retry.Policy{Random: backoff.NewSource(1)} }

// spreadOf bounds the default spread on a server's wait of w: max(1 s, w/10), at most w.
func spreadOf(w time.Duration) time.Duration { return min(w, max(time.Second, w/10)) }

// checkCall checks the requests the API received, the wait before each retry (at least
// the server's wait, less than it plus the default spread when spread, else exactly it; with
// no server wait and spread, within the default backoff's ceilings, 100 and 200 ms), the
// last decision's reason and the header the wait came from.
func checkCall(t *testing.T, r llmResult, requests int, wait time.Duration, spread bool, reason retry.Reason, from string) {
	t.Helper()
	t.Logf("%d requests, waits %v, %s, status %d, retry_after_from %q", len(r.requests), r.gaps, r.last(t).Reason, r.status,
		r.decisions[0].RetryAfterFrom)
	if len(r.requests) != requests {
		t.Errorf("%d requests, want %d", len(r.requests), requests)
	}
	for i, g := range r.gaps {
		if wait == 0 && spread {
			if g > 100*time.Millisecond<<i {
				t.Errorf("waited %v before retry %d; want the default backoff's", g, i+1)
			}
			continue
		}
		if spread && (g < wait || g >= wait+spreadOf(wait)) || !spread && g != wait {
			t.Errorf("waited %v; want %v (spread %v)", g, wait, spread)
		}
	}
	if got := r.last(t).Reason; got != reason {
		t.Errorf("reason %s, want %s", got, reason)
	}
	if got := r.decisions[0].RetryAfterFrom; got != from {
		t.Errorf("retry_after_from %q, want %q", got, from)
	}
}

func ok(body string) apiStep { return apiStep{body: body} }

func answer(status int, header ...string) apiStep {
	h := map[string]string{}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return apiStep{status: status, header: h, body: `{"error":{"message":"` + http.StatusText(status) + `"}}`}
}

// Issue 22 item 1: retry-after-ms (OpenAI, Anthropic) and x-ms-retry-after-ms (Azure) are
// server waits under the rules of Retry-After (SPEC R4.4).
func TestLLMRetryAfterMilliseconds(t *testing.T) {
	const done = `{"choices":[]}`
	t.Run("429 retry-after-ms 1500 waits 1.5 s or more", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(429, "Retry-After-Ms", "1500"), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 1500*time.Millisecond, true, retry.ReasonSuccess, "retry-after-ms")
	})
	t.Run("exactly 1.5 s without the spread", func(t *testing.T) {
		p := constant(t, 10*time.Millisecond, 3, time.Minute)
		r := callAPI(t, &retryhttp.Transport{Policy: p}, []apiStep{answer(429, "Retry-After-Ms", "1500"), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 1500*time.Millisecond, false, retry.ReasonSuccess, "retry-after-ms")
	})
	t.Run("retry-after 2 and retry-after-ms 2500 wait 2.5 s", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()},
			[]apiStep{answer(429, "Retry-After", "2", "Retry-After-Ms", "2500"), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 2500*time.Millisecond, true, retry.ReasonSuccess, "retry-after-ms")
	})
	t.Run("retry-after 2 and retry-after-ms 1500 wait 2 s: the longer ask", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()},
			[]apiStep{answer(429, "Retry-After", "2", "Retry-After-Ms", "1500"), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 2*time.Second, true, retry.ReasonSuccess, "retry-after")
	})
	t.Run("Azure x-ms-retry-after-ms 1200", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(429, "X-Ms-Retry-After-Ms", "1200"), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 1200*time.Millisecond, true, retry.ReasonSuccess, "x-ms-retry-after-ms")
	})
	t.Run("retry-after-ms 20000 under a 3 s deadline stops at once", func(t *testing.T) {
		p := seeded()
		p.Timeout = 3 * time.Second
		r := callAPI(t, &retryhttp.Transport{Policy: p}, []apiStep{answer(429, "Retry-After-Ms", "20000")}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonRetryAfterExceedsDeadline, "retry-after-ms")
		if r.status != 429 || !errors.Is(r.err, retry.ErrRetryAfterExceedsDeadline) || r.elapsed != 0 {
			t.Errorf("status %d, error %v, after %v: want the 429 kept, at once", r.status, r.err, r.elapsed)
		}
		if got, ok := retry.RetryAfter(r.err); !ok || got != 20*time.Second {
			t.Errorf("RetryAfter = %v, %v", got, ok)
		}
		if from := stopOf(t, r.err).RetryAfterFrom(); from != "retry-after-ms" {
			t.Errorf("RetryAfterFrom %q", from)
		}
	})
	t.Run("a malformed retry-after-ms leaves the backoff", func(t *testing.T) {
		p := constant(t, 10*time.Millisecond, 3, time.Minute)
		r := callAPI(t, &retryhttp.Transport{Policy: p}, []apiStep{answer(429, "Retry-After-Ms", "soon"), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 10*time.Millisecond, false, retry.ReasonSuccess, "")
	})
	t.Run("the record names the header", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: constant(t, 10*time.Millisecond, 3, time.Minute)},
			[]apiStep{answer(429, "Retry-After-Ms", "1500"), ok(done)}, chat(chatBody))
		want := `{"attempt":1,"method":"POST","url":"http://pipe.test/v1/chat/completions","status":429,"elapsed_ms":0,"remaining_ms":60000,"retry_after_ms":1500,"retry_after_from":"retry-after-ms","wait_ms":1500,"decision":"retry","reason":"retry_after","outcome":"failure","throttled":true}`
		if got := recordJSON(t, r.decisions[0]); got != want {
			t.Errorf("record\n%s\nwant\n%s", got, want)
		}
	})
}

// Issue 22 item 2: x-should-retry: false stops at once with the response; true retries a
// request as a declined one, a POST without a key included, and says nothing was applied.
func TestLLMShouldRetry(t *testing.T) {
	t.Run("false on a 503 GET: 1 request, the 503 returned", func(t *testing.T) {
		get := func(url string) *http.Request { return request(t, http.MethodGet, url+"/v1/models", "") }
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(503, "X-Should-Retry", "false", "Retry-After", "1")}, get)
		checkCall(t, r, 1, 0, false, retry.ReasonNonRetryableStatus, "retry-after")
		if r.status != 503 || r.err != nil {
			t.Errorf("status %d, error %v: want the 503 as the response", r.status, r.err)
		}
	})
	t.Run("false on a 429 POST: 1 request", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(429, "X-Should-Retry", "false"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonNonRetryableStatus, "")
		if r.status != 429 || r.err != nil {
			t.Errorf("status %d, error %v", r.status, r.err)
		}
	})
	t.Run("false on a keyed POST's 500: 1 request", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded(), AutoIdempotencyKey: true},
			[]apiStep{answer(500, "X-Should-Retry", "false"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonNonRetryableStatus, "")
	})
	t.Run("false on a POST's 500 without a key: still an unknown outcome", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(500, "X-Should-Retry", "false")}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonUnknownOutcome, "")
		if r.status != 500 || !stopOf(t, r.err).MayHaveApplied {
			t.Errorf("status %d, error %v", r.status, r.err)
		}
	})
	t.Run("true on a POST's 500 without a key: retried", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(500, "X-Should-Retry", "true"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 2, 0, true, retry.ReasonSuccess, "")
	})
	t.Run("true until the attempts run out: nothing applied", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(500, "X-Should-Retry", "true")}, chat(chatBody))
		checkCall(t, r, 3, 0, true, retry.ReasonAttemptsExhausted, "")
		if stop := stopOf(t, r.err); stop.MayHaveApplied || r.status != 500 {
			t.Errorf("MayHaveApplied %v, status %d", stop.MayHaveApplied, r.status)
		}
	})
	t.Run("true on a keyed POST: nothing applied", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded(), AutoIdempotencyKey: true},
			[]apiStep{answer(502, "X-Should-Retry", "true")}, chat(chatBody))
		checkCall(t, r, 3, 0, true, retry.ReasonAttemptsExhausted, "")
		if stopOf(t, r.err).MayHaveApplied {
			t.Error("MayHaveApplied")
		}
	})
	t.Run("true on a 400: retried, as asked", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{answer(400, "X-Should-Retry", "true"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 2, 0, true, retry.ReasonSuccess, "")
	})
	t.Run("true on a 200: a success", func(t *testing.T) {
		step := ok("{}")
		step.header = map[string]string{"X-Should-Retry": "true"}
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{step}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonSuccess, "")
	})
}

// Issue 22 item 3: 529 (Anthropic's overloaded_error) is an overload refusal like 503, and
// so is any status whose definition says the request was not processed, once the policy
// retries it: a write is retried, and what exhausts the attempts applied nothing.
func TestLLMOverloadRefusals(t *testing.T) {
	messages := chat(`{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		name     string
		policy   func() *retry.Policy
		status   int
		keyed    bool
		requests int
		reason   retry.Reason
	}{
		{"529 then 200", seeded, 529, false, 2, retry.ReasonSuccess},
		{"529 until exhausted", seeded, 529, false, 3, retry.ReasonAttemptsExhausted},
		{"529 keyed until exhausted", seeded, 529, true, 3, retry.ReasonAttemptsExhausted},
		{"503 keyed until exhausted", seeded, 503, true, 3, retry.ReasonAttemptsExhausted},
		{"529 in RetryableStatuses", func() *retry.Policy {
			p := seeded()
			p.RetryableStatuses = []int{429, 529}
			return p
		}, 529, false, 2, retry.ReasonSuccess},
		{"529 by a Classifier, no status listed", func() *retry.Policy {
			p := seeded()
			p.RetryableStatuses = []int{}
			p.Classifier = func(o retry.Outcome) retry.Class {
				if o.Status == 529 {
					return retry.ClassRetryable
				}
				return retry.ClassUnspecified
			}
			return p
		}, 529, false, 2, retry.ReasonSuccess},
		{"425 Too Early in RetryableStatuses", func() *retry.Policy {
			p := seeded()
			p.RetryableStatuses = []int{425, 429, 503}
			return p
		}, 425, false, 2, retry.ReasonSuccess},
		{"421 Misdirected Request in RetryableStatuses", func() *retry.Policy {
			p := seeded()
			p.RetryableStatuses = []int{421, 429, 503}
			return p
		}, 421, false, 2, retry.ReasonSuccess},
		{"500: not a refusal, the outcome is unknown", seeded, 500, false, 1, retry.ReasonUnknownOutcome},
	} {
		t.Run(c.name, func(t *testing.T) {
			steps := []apiStep{answer(c.status), ok(`{"type":"message"}`)}
			if c.reason != retry.ReasonSuccess {
				steps = steps[:1]
			}
			r := callAPI(t, &retryhttp.Transport{Policy: c.policy(), AutoIdempotencyKey: c.keyed}, steps, messages)
			checkCall(t, r, c.requests, 0, true, c.reason, "")
			if c.reason == retry.ReasonAttemptsExhausted && stopOf(t, r.err).MayHaveApplied {
				t.Error("MayHaveApplied after refusals only")
			}
		})
	}
}

// Issue 22 item 4: the reset of an exhausted quota is the server's wait: OpenAI's
// x-ratelimit-reset-* (Go durations), Anthropic's anthropic-ratelimit-*-reset (RFC 3339
// times, on the server's clock: its Date). Issue 32 item 7: on any retryable status, and the
// longest of all the waits the headers ask wins.
func TestLLMQuotaResets(t *testing.T) {
	openAI := func(status int, header ...string) apiStep {
		return answer(status, append([]string{"X-Ratelimit-Limit-Requests", "500", "X-Ratelimit-Limit-Tokens", "30000"}, header...)...)
	}
	t.Run("OpenAI requests at 0, reset 2s", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{openAI(429,
			"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "2s",
			"X-Ratelimit-Remaining-Tokens", "29000", "X-Ratelimit-Reset-Tokens", "6m0s"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 2, 2*time.Second, true, retry.ReasonSuccess, "x-ratelimit-reset-requests")
	})
	t.Run("OpenAI tokens at 0, reset 6m0s, under a 30 s deadline", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{openAI(429,
			"X-Ratelimit-Remaining-Requests", "499", "X-Ratelimit-Reset-Requests", "120ms",
			"X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "6m0s")}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonRetryAfterExceedsDeadline, "x-ratelimit-reset-tokens")
		if r.status != 429 || r.elapsed != 0 || r.decisions[0].RetryAfter != 6*time.Minute {
			t.Errorf("status %d after %v, wait %v: want the 429 kept, at once", r.status, r.elapsed, r.decisions[0].RetryAfter)
		}
	})
	t.Run("Anthropic requests at 0, reset 2 s after the server's now", func(t *testing.T) {
		step := answer(429, "Anthropic-Ratelimit-Requests-Limit", "50", "Anthropic-Ratelimit-Requests-Remaining", "0")
		step.at = func(now time.Time) map[string]string {
			return map[string]string{"Anthropic-Ratelimit-Requests-Reset": now.Add(2 * time.Second).UTC().Format(time.RFC3339)}
		}
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{step, ok("{}")}, chat(chatBody))
		checkCall(t, r, 2, 2*time.Second, true, retry.ReasonSuccess, "anthropic-ratelimit-requests-reset")
	})
	t.Run("Anthropic output tokens at 0, reset in 5 minutes", func(t *testing.T) {
		step := answer(429, "Anthropic-Ratelimit-Output-Tokens-Remaining", "0",
			"Anthropic-Ratelimit-Requests-Remaining", "49", "Anthropic-Ratelimit-Requests-Reset", "2000-01-01T00:00:01Z")
		step.at = func(now time.Time) map[string]string {
			return map[string]string{"Anthropic-Ratelimit-Output-Tokens-Reset": now.Add(5 * time.Minute).UTC().Format(time.RFC3339)}
		}
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{step, ok("{}")}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonRetryAfterExceedsDeadline, "anthropic-ratelimit-output-tokens-reset")
	})
	t.Run("the longest wins: a reset of 20 s over retry-after 1 (issue 32 item 7)", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{openAI(429, "Retry-After", "1",
			"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "20s"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 2, 20*time.Second, true, retry.ReasonSuccess, "x-ratelimit-reset-requests")
	})
	t.Run("the longest wins: retry-after 30 over a reset of 20 s", func(t *testing.T) {
		p := seeded()
		p.Timeout = time.Minute
		r := callAPI(t, &retryhttp.Transport{Policy: p}, []apiStep{openAI(429, "Retry-After", "30",
			"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "20s"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 2, 30*time.Second, true, retry.ReasonSuccess, "retry-after")
	})
	t.Run("a quota left leaves the backoff", func(t *testing.T) {
		p := constant(t, 10*time.Millisecond, 3, time.Minute)
		r := callAPI(t, &retryhttp.Transport{Policy: p}, []apiStep{openAI(429,
			"X-Ratelimit-Remaining-Requests", "3", "X-Ratelimit-Reset-Requests", "20s"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 2, 10*time.Millisecond, false, retry.ReasonSuccess, "")
	})
	t.Run("on any retryable status: a 503 with requests at 0 waits the reset (issue 32 item 7)", func(t *testing.T) {
		p := constant(t, 10*time.Millisecond, 3, time.Minute)
		get := func(url string) *http.Request { return request(t, http.MethodGet, url+"/v1/models", "") }
		r := callAPI(t, &retryhttp.Transport{Policy: p}, []apiStep{openAI(503,
			"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "20s"), ok("{}")}, get)
		checkCall(t, r, 2, 20*time.Second, false, retry.ReasonSuccess, "x-ratelimit-reset-requests")
	})
	t.Run("a status the policy does not retry stays permanent", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{openAI(403,
			"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "2s"), ok("{}")}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonNonRetryableStatus, "")
	})
}

// Issue 22 item 6: a POST's event stream that breaks is never sent again unless the caller
// opts in, key or no key; a GET's is, as any body under PreloadBody.
func TestLLMBrokenStreams(t *testing.T) {
	broken := apiStep{events: []string{`{"delta":"Hel"}`, `{"delta":"lo"}`, `{"delta":"!"}`}, cut: 2}
	whole := apiStep{events: []string{`{"delta":"Hel"}`, `{"delta":"lo"}`, `{"delta":"!"}`}}
	stream := chat(`{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	t.Run("keyed, preloaded: 1 request, the caller reads the break", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded(), AutoIdempotencyKey: true, PreloadBody: 64 << 10},
			[]apiStep{broken, whole}, stream)
		checkCall(t, r, 1, 0, false, retry.ReasonSuccess, "")
		if r.err != nil || r.status != 200 || r.readErr == nil || !strings.HasSuffix(r.body, "data: {\"delta\":\"lo\"}\n\n") {
			t.Errorf("error %v, status %d, body %q, read error %v: want the stream as far as it came, and its break",
				r.err, r.status, r.body, r.readErr)
		}
	})
	t.Run("keyed, preloaded, opted in: resent", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded(), AutoIdempotencyKey: true, PreloadBody: 64 << 10, ResendBrokenStreams: true},
			[]apiStep{broken, whole}, stream)
		checkCall(t, r, 2, 0, true, retry.ReasonSuccess, "")
		if r.readErr != nil || !strings.HasSuffix(r.body, "data: [DONE]\n\n") || r.requests[0].key != r.requests[1].key {
			t.Errorf("body %q, read error %v, keys %q %q", r.body, r.readErr, r.requests[0].key, r.requests[1].key)
		}
	})
	t.Run("opted in without a key: an unknown outcome", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded(), PreloadBody: 64 << 10, ResendBrokenStreams: true},
			[]apiStep{broken, whole}, stream)
		checkCall(t, r, 1, 0, false, retry.ReasonUnknownOutcome, "")
	})
	t.Run("a GET's stream is resent", func(t *testing.T) {
		get := func(url string) *http.Request {
			return request(t, http.MethodGet, url+"/v1/responses/resp_1?stream=true", "")
		}
		r := callAPI(t, &retryhttp.Transport{Policy: seeded(), PreloadBody: 64 << 10}, []apiStep{broken, whole}, get)
		checkCall(t, r, 2, 0, true, retry.ReasonSuccess, "")
	})
}

// Issue 32 item 7, header gaps, each a kind: every header that asks for a wait counts, on
// any retryable status, and the longest wins (SPEC R4.4); a value that does not parse asks
// for nothing and shortens nothing, and alone leaves the policy's backoff (R4.3).
func TestLLMHeaderGaps(t *testing.T) {
	exact := func() *retry.Policy { return constant(t, 11*time.Millisecond, 3, time.Minute) }
	get := func(url string) *http.Request { return request(t, http.MethodGet, url+"/v1/models", "") }
	for _, c := range []struct {
		name string
		step apiStep
		wait time.Duration
		from string
	}{
		{"RateLimit-Remaining: 0 with RateLimit-Reset: 2 waits 2 s (was 11 ms)",
			answer(429, "RateLimit-Limit", "50", "RateLimit-Remaining", "0", "RateLimit-Reset", "2"), 2 * time.Second, "ratelimit-reset"},
		{"X-RateLimit-* at 0 on a 503",
			answer(503, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "2"), 2 * time.Second, "x-ratelimit-reset"},
		{"X-RateLimit-Reset a Unix time (GitHub's), on the server's clock: its Date, not ours (the bubble's is in 2000)",
			answer(429, "Date", "Sun, 29 Nov 2026 12:00:00 GMT", "X-RateLimit-Remaining", "0",
				"X-RateLimit-Reset", strconv.FormatInt(time.Date(2026, 11, 29, 12, 0, 3, 0, time.UTC).Unix(), 10)), 3 * time.Second, "x-ratelimit-reset"},
		{"a quota left is no wait", answer(429, "RateLimit-Remaining", "1", "RateLimit-Reset", "2"), 11 * time.Millisecond, ""},
		{"Retry-After: 1.5 is malformed: the backoff (RFC 9110 section 10.2.3, SPEC R4.3)", answer(429, "Retry-After", "1.5"), 11 * time.Millisecond, ""},
		{"a malformed Retry-After shortens nothing: the reset's 2 s",
			answer(429, "Retry-After", "soon", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "2"), 2 * time.Second, "x-ratelimit-reset"},
		{"a malformed Retry-After alone leaves the backoff", answer(429, "Retry-After", "soon"), 11 * time.Millisecond, ""},
		{`Retry-After: 1 and RateLimit: "default";r=0;t=3 wait 3 s (was 1 s)`,
			answer(429, "Retry-After", "1", "RateLimit", `"default";r=0;t=3`), 3 * time.Second, "ratelimit"},
		{"retry-after-ms 500 and an Anthropic reset 2 s away: 2 s",
			apiStep{status: 429, header: map[string]string{"Retry-After-Ms": "500", "Anthropic-Ratelimit-Tokens-Remaining": "0"},
				at: func(now time.Time) map[string]string {
					return map[string]string{"Anthropic-Ratelimit-Tokens-Reset": now.Add(2 * time.Second).UTC().Format(time.RFC3339)}
				}}, 2 * time.Second, "anthropic-ratelimit-tokens-reset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := callAPI(t, &retryhttp.Transport{Policy: exact()}, []apiStep{c.step, ok("{}")}, get)
			checkCall(t, r, 2, c.wait, false, retry.ReasonSuccess, c.from)
		})
	}
}
