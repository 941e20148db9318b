package retryhttp_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// Issue 32 item 6: bodies that say why. A 429's or another retryable 4xx's JSON body is read,
// within a bounded prefix, for the known signals: a billing or spend-limit error is
// permanent, a google.rpc.RetryInfo is the server's wait; Transport.ClassifyBody adds rules
// of one's own. The body reaches the caller unchanged; a retried one is drained and closed.

func withBody(s apiStep, body string) apiStep {
	s.body = body
	return s
}

const (
	openAIQuota = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.",` +
		`"type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	anthropicSpendCap = `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your API usage limits.",` +
		`"details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_018EeWyXxfu5pfWkrYcMdjWG"}`
	geminiRetryInfo = `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.84s"}]}}`
)

func TestBodySignals(t *testing.T) {
	const done = `{"choices":[]}`
	exact := func() *retry.Policy { return constant(t, 20*time.Millisecond, 3, time.Minute) }
	t.Run("OpenAI insufficient_quota: 1 request, the 429 returned as it came", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{withBody(answer(429), openAIQuota), ok(done)}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonNonRetryableStatus, "")
		if r.err != nil || r.status != 429 || r.body != openAIQuota || r.readErr != nil {
			t.Errorf("error %v, status %d, body %q, read error %v", r.err, r.status, r.body, r.readErr)
		}
	})
	t.Run("Anthropic's spend cap: 1 request", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: seeded()}, []apiStep{withBody(answer(429), anthropicSpendCap), ok(done)}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonNonRetryableStatus, "")
		if r.status != 429 || r.body != anthropicSpendCap {
			t.Errorf("status %d, body %q", r.status, r.body)
		}
	})
	t.Run("Anthropic billing_error, on a 402 the policy retries: 1 request", func(t *testing.T) {
		p := seeded()
		p.RetryableStatuses = []int{402, 429, 503}
		body := `{"type":"error","error":{"type":"billing_error","message":"Billing error"}}`
		r := callAPI(t, &retryhttp.Transport{Policy: p}, []apiStep{withBody(answer(402), body), ok(done)}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonNonRetryableStatus, "")
	})
	t.Run("a rate limit is no stop: rate_limit_exceeded is retried", func(t *testing.T) {
		body := `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
		r := callAPI(t, &retryhttp.Transport{Policy: exact()}, []apiStep{withBody(answer(429), body), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 20*time.Millisecond, false, retry.ReasonSuccess, "")
	})
	t.Run("x-should-retry: true is the server's word above the body", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: exact()},
			[]apiStep{withBody(answer(429, "X-Should-Retry", "true"), openAIQuota), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 20*time.Millisecond, false, retry.ReasonSuccess, "")
	})
	t.Run("Gemini's RetryInfo 1.84s, no wait header: waited exactly (today: about 20 ms)", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: exact()}, []apiStep{withBody(answer(429), geminiRetryInfo), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 1840*time.Millisecond, false, retry.ReasonSuccess, "retry-info")
		want := `{"attempt":1,"method":"POST","url":"http://pipe.test/v1/chat/completions","status":429,"elapsed_ms":0,"remaining_ms":60000,"retry_after_ms":1840,"retry_after_from":"retry-info","wait_ms":1840,"decision":"retry","reason":"retry_after","outcome":"failure","throttled":true}`
		if got := recordJSON(t, r.decisions[0]); got != want {
			t.Errorf("record\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("RetryInfo and Retry-After: the longest wins", func(t *testing.T) {
		r := callAPI(t, &retryhttp.Transport{Policy: exact()}, []apiStep{withBody(answer(429, "Retry-After", "1"), geminiRetryInfo), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 1840*time.Millisecond, false, retry.ReasonSuccess, "retry-info")
		r = callAPI(t, &retryhttp.Transport{Policy: exact()}, []apiStep{withBody(answer(429, "Retry-After", "3"), geminiRetryInfo), ok(done)}, chat(chatBody))
		checkCall(t, r, 2, 3*time.Second, false, retry.ReasonSuccess, "retry-after")
	})
	t.Run("RetryInfo beyond the deadline stops at once, with the 429", func(t *testing.T) {
		body := strings.Replace(geminiRetryInfo, "1.84s", "86400s", 1)
		r := callAPI(t, &retryhttp.Transport{Policy: exact()}, []apiStep{withBody(answer(429), body)}, chat(chatBody))
		checkCall(t, r, 1, 0, false, retry.ReasonRetryAfterExceedsDeadline, "retry-info")
		if r.status != 429 || r.body != body || !errors.Is(r.err, retry.ErrRetryAfterExceedsDeadline) {
			t.Errorf("status %d, body %q, error %v", r.status, r.body, r.err)
		}
	})
}

// slowBody gives its first bytes, then nothing until it is closed.
type slowBody struct {
	first  io.Reader
	closed chan struct{}
	once   sync.Once
}

func (b *slowBody) Read(p []byte) (int, error) {
	if n, _ := b.first.Read(p); n > 0 {
		return n, nil
	}
	<-b.closed
	return 0, errors.New("slowBody: closed")
}

func (b *slowBody) Close() error { b.once.Do(func() { close(b.closed) }); return nil }

func TestBodySignalsBounds(t *testing.T) {
	t.Run("a body not declared JSON is not read: insufficient_quota in HTML is retried", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{
				{Status: 429, Header: http.Header{"Content-Type": {"text/html"}}, Body: openAIQuota}, {Status: 200}}})
			resp, err := (&retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 3, time.Minute)}).RoundTrip(request(t, "GET", "http://api.test/", ""))
			if err != nil || rt.Requests() != 2 {
				t.Fatalf("err %v after %d requests; want 2", err, rt.Requests())
			}
			readAll(t, resp)
		})
	})
	t.Run("a retried body is drained and closed, the returned one given whole", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			json := http.Header{"Content-Type": {"application/json"}}
			rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{
				{Status: 429, Header: json, Body: geminiRetryInfo}, {Status: 429, Header: json, Body: openAIQuota}}})
			tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 3, time.Minute)}
			resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
			if err != nil || resp.StatusCode != 429 || rt.Requests() != 2 {
				t.Fatalf("err %v, %d requests", err, rt.Requests())
			}
			if open, drained := rt.Bodies(); open != 0 || drained != 2 {
				t.Errorf("open %d, drained %d: the prefix read both bodies to their end, and closed them", open, drained)
			}
			if got := readAll(t, resp); got != openAIQuota {
				t.Errorf("body %q", got)
			}
		})
	})
	t.Run("a body longer than the prefix says nothing, and comes whole", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			long := `{"error":{"type":"insufficient_quota","message":"` + strings.Repeat("x", 10<<10) + `"}}`
			json := http.Header{"Content-Type": {"application/json"}}
			rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 429, Header: json, Body: long}}})
			tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 2, time.Minute)}
			resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
			if !errors.Is(err, retry.ErrAttemptsExhausted) || rt.Requests() != 2 {
				t.Fatalf("err %v after %d requests; want attempts_exhausted after 2", err, rt.Requests())
			}
			if got := readAll(t, respOf(resp, err)); got != long {
				t.Errorf("body of %d bytes; want the %d sent", len(got), len(long))
			}
		})
	})
	t.Run("a body that trickles is given up on after 100 ms, the 429 retried", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var bodies []*slowBody
			base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if len(bodies) == 1 {
					return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
				}
				b := &slowBody{first: strings.NewReader(`{"error":{"type":"insuff`), closed: make(chan struct{})}
				bodies = append(bodies, b)
				return &http.Response{StatusCode: 429, Body: b, Header: http.Header{"Content-Type": {"application/json"}}, Request: r}, nil
			})
			start := time.Now()
			resp, err := (&retryhttp.Transport{Base: base, Policy: constant(t, time.Second, 3, time.Minute)}).RoundTrip(request(t, "GET", "http://api.test/", ""))
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("err %v", err)
			}
			readAll(t, resp)
			if elapsed := time.Since(start); elapsed != 100*time.Millisecond+time.Second {
				t.Errorf("elapsed %v; want the 100 ms bound and the backoff's 1 s", elapsed)
			}
			select {
			case <-bodies[0].closed:
			default:
				t.Error("the slow body was not closed")
			}
		})
	})
	t.Run("a stop's body that trickles: the bytes that came, then an error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				b := &slowBody{first: strings.NewReader(`{"error":`), closed: make(chan struct{})}
				return &http.Response{StatusCode: 400, Body: b, Header: http.Header{}, Request: r}, nil
			})
			tr := &retryhttp.Transport{Base: base, ClassifyBody: func(int, http.Header, []byte) retryhttp.BodyVerdict { return retryhttp.BodyVerdict{} }}
			resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
			if err != nil {
				t.Fatal(err)
			}
			got, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != `{"error":` || rerr == nil ||
				rerr.Error() != "retryhttp: the response body (status 400) gave 9 bytes within 100ms; the Transport closed it" {
				t.Errorf("body %q, read error %v", got, rerr)
			}
		})
	})
}

// Transport.ClassifyBody: rules of one's own, from the status, the header and the start of
// the body.
func TestClassifyBody(t *testing.T) {
	type call struct {
		status int
		header string
		prefix string
	}
	run := func(t *testing.T, classify func(int, http.Header, []byte) retryhttp.BodyVerdict, steps ...retrytest.Step) (
		rt *retrytest.RoundTripper, resp *http.Response, decisions []retry.Decision, err error) {
		rt = scripted(t, retrytest.Script{Steps: steps})
		tr := &retryhttp.Transport{Base: rt, Policy: constant(t, 10*time.Millisecond, 3, time.Minute), ClassifyBody: classify}
		observe(tr, &decisions)
		resp, err = tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
		return rt, resp, decisions, err
	}
	t.Run("sees every response of 400 or more, its status, header and at most 8 KiB of its body", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var calls []call
			classify := func(status int, h http.Header, prefix []byte) retryhttp.BodyVerdict {
				calls = append(calls, call{status, h.Get("X-Reason"), string(prefix)})
				return retryhttp.BodyVerdict{}
			}
			long := strings.Repeat("0123456789abcdef", 1<<10) // 16 KiB
			rt, resp, _, err := run(t, classify,
				retrytest.Step{Status: 503, Header: http.Header{"X-Reason": {"busy"}}, Body: "try later"},
				retrytest.Step{Status: 302, Header: http.Header{"Location": {"/x"}}},
				retrytest.Step{Status: 404, Body: long})
			_ = rt
			if err != nil || resp.StatusCode != 302 {
				t.Fatalf("err %v", err)
			}
			readAll(t, resp)
			if len(calls) != 1 || calls[0] != (call{503, "busy", "try later"}) {
				t.Errorf("calls %+v; want the 503 alone (the 302 is below 400)", calls)
			}
			calls = nil
			_, resp, _, err = run(t, classify, retrytest.Step{Status: 404, Body: long})
			if err != nil || len(calls) != 1 || calls[0].status != 404 || calls[0].prefix != long[:8<<10] {
				t.Fatalf("err %v, calls %d, prefix of %d bytes; want 8 KiB", err, len(calls), len(calls[0].prefix))
			}
			if got := readAll(t, resp); got != long {
				t.Errorf("the caller read %d bytes; want the 16 KiB sent, unchanged", len(got))
			}
		})
	})
	t.Run("a 503 made permanent: 1 request, the 503 returned", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			classify := func(status int, _ http.Header, prefix []byte) retryhttp.BodyVerdict {
				if strings.Contains(string(prefix), "maintenance") {
					return retryhttp.BodyVerdict{Class: retry.ClassPermanent}
				}
				return retryhttp.BodyVerdict{}
			}
			rt, resp, _, err := run(t, classify, retrytest.Step{Status: 503, Body: "down for maintenance until Monday"}, retrytest.Step{Status: 200})
			if err != nil || resp.StatusCode != 503 || rt.Requests() != 1 || readAll(t, resp) != "down for maintenance until Monday" {
				t.Fatalf("err %v, %d requests", err, rt.Requests())
			}
		})
	})
	t.Run("a 400 made retryable with a wait of 2 s, named classify-body", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			classify := func(status int, _ http.Header, prefix []byte) retryhttp.BodyVerdict {
				if status == 400 && string(prefix) == `{"error":"warming up"}` {
					return retryhttp.BodyVerdict{Class: retry.ClassRetryable, RetryAfter: 2 * time.Second}
				}
				return retryhttp.BodyVerdict{}
			}
			rt, resp, decisions, err := run(t, classify, retrytest.Step{Status: 400, Body: `{"error":"warming up"}`}, retrytest.Step{Status: 200})
			if err != nil || resp.StatusCode != 200 || rt.Requests() != 2 {
				t.Fatalf("err %v, %d requests", err, rt.Requests())
			}
			readAll(t, resp)
			rec := rt.Received()
			if gap := rec[1].At.Sub(rec[0].At); gap != 2*time.Second || decisions[0].RetryAfterFrom != "classify-body" {
				t.Errorf("waited %v, from %q; want 2s from classify-body", gap, decisions[0].RetryAfterFrom)
			}
		})
	})
	t.Run("its wait and the headers': the longest wins", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			classify := func(int, http.Header, []byte) retryhttp.BodyVerdict {
				return retryhttp.BodyVerdict{RetryAfter: time.Second}
			}
			rt, resp, decisions, err := run(t, classify, retrytest.Step{Status: 503, Header: http.Header{"Retry-After": {"3"}}}, retrytest.Step{Status: 200})
			if err != nil {
				t.Fatal(err)
			}
			readAll(t, resp)
			rec := rt.Received()
			if gap := rec[1].At.Sub(rec[0].At); gap != 3*time.Second || decisions[0].RetryAfterFrom != "retry-after" {
				t.Errorf("waited %v, from %q; want 3s from retry-after", gap, decisions[0].RetryAfterFrom)
			}
		})
	})
	t.Run("an invalid verdict fails the attempt, naming it; the body is drained and closed", func(t *testing.T) {
		for _, c := range []struct {
			verdict retryhttp.BodyVerdict
			want    string
		}{
			{retryhttp.BodyVerdict{Class: retry.Class(9)}, "retryhttp: Transport.ClassifyBody returned Class Class(9) and RetryAfter 0s for status 429: " +
				"want a Class from retry.ClassUnspecified to retry.ClassUnknown and a RetryAfter of 0 (none) or more"},
			{retryhttp.BodyVerdict{RetryAfter: -time.Second}, "retryhttp: Transport.ClassifyBody returned Class unspecified and RetryAfter -1s for status 429: " +
				"want a Class from retry.ClassUnspecified to retry.ClassUnknown and a RetryAfter of 0 (none) or more"},
		} {
			synctest.Test(t, func(t *testing.T) {
				classify := func(int, http.Header, []byte) retryhttp.BodyVerdict { return c.verdict }
				rt, resp, _, err := run(t, classify, retrytest.Step{Status: 429, Body: "slow down"})
				if resp != nil || !errors.Is(err, retry.ErrNonRetryableError) || rt.Requests() != 1 || !strings.Contains(err.Error(), c.want) {
					t.Errorf("resp %v, err %v after %d requests; want %q", resp, err, rt.Requests(), c.want)
				}
				if open, drained := rt.Bodies(); open != 0 || drained != 1 {
					t.Errorf("open %d, drained %d", open, drained)
				}
			})
		}
	})
}
