package fakeapi_test

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/internal/sdktest/fakeapi"
	"github.com/retrykit/retry/retrytest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	chatPath     = "/v1/chat/completions"
	messagesPath = "/v1/messages"
	params       = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
)

// got is what a client received for one request.
type got struct {
	status  int
	header  http.Header
	body    string
	readErr error
}

// rateFields are the headers a test compares: the rate-limit fields and retry-after.
func (g got) rateFields() map[string]string {
	m := map[string]string{}
	for k, v := range g.header {
		l := strings.ToLower(k)
		if strings.Contains(l, "ratelimit") || l == "retry-after" {
			m[l] = v[0]
		}
	}
	return m
}

// exchange is one request a test sends at a time after the server's start.
type exchange struct {
	at   time.Duration
	path string
	want int               // status
	rate map[string]string // the rate-limit fields and retry-after, exactly
	body string            // a substring of the body
}

// play runs the exchanges in order, each at its time, against a Server with cfg, inside a
// synctest bubble, and checks each answer.
func play(t *testing.T, cfg fakeapi.Config, exchanges []exchange) []fakeapi.Request {
	t.Helper()
	var requests []fakeapi.Request
	synctest.Test(t, func(t *testing.T) {
		api := fakeapi.New(cfg)
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		client := &http.Client{Transport: srv.Transport()}
		for i, x := range exchanges {
			time.Sleep(time.Until(api.Start().Add(x.at)))
			g := send(t, client, srv.URL+x.path, "call-"+string(rune('a'+i)))
			if g.status != x.want || !maps.Equal(g.rateFields(), x.rate) || !strings.Contains(g.body, x.body) {
				t.Errorf("exchange %d at %v: status %d, fields %v, body %s; want %d, %v, %q", i, x.at, g.status, g.rateFields(), g.body, x.want, x.rate, x.body)
			}
		}
		requests = api.Requests()
	})
	return requests
}

func send(t *testing.T, client *http.Client, url, call string) got {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(params))
	req.Header.Set("Authorization", "Bearer sk-test")
	req.Header.Set(fakeapi.CallHeader, call)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return got{status: resp.StatusCode, header: resp.Header, body: string(b), readErr: err}
}

// A limit of 2 requests a second, in OpenAI's fields: the third request of a window is
// answered 429 with no retry-after; the count starts again at each window (issue 32).
func TestOpenAIRateLimit(t *testing.T) {
	ok1 := map[string]string{"x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "1", "x-ratelimit-reset-requests": "451ms",
		"x-ratelimit-limit-tokens": "2000", "x-ratelimit-remaining-tokens": "1985", "x-ratelimit-reset-tokens": "451ms"}
	ok2 := map[string]string{"x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "451ms",
		"x-ratelimit-limit-tokens": "2000", "x-ratelimit-remaining-tokens": "1970", "x-ratelimit-reset-tokens": "451ms"}
	next := map[string]string{"x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "1", "x-ratelimit-reset-requests": "1s",
		"x-ratelimit-limit-tokens": "2000", "x-ratelimit-remaining-tokens": "1985", "x-ratelimit-reset-tokens": "1s"}
	requests := play(t, fakeapi.Config{Limit: 2}, []exchange{
		{549 * time.Millisecond, chatPath, 200, ok1, `"object":"chat.completion"`},
		{549 * time.Millisecond, chatPath, 200, ok2, `"content":"Hello!"`},
		{549 * time.Millisecond, chatPath, 429, ok2, `{"error":{"code":"rate_limit_exceeded","message":"Rate limit reached on requests per 1s: Limit 2, Used 2, Requested 1. Please try again in 451ms.","param":null,"type":"requests"}}`},
		{time.Second, chatPath, 200, next, `"usage":{"completion_tokens":3,"prompt_tokens":12,"total_tokens":15}`},
	})
	var statuses []int
	for _, r := range requests {
		statuses = append(statuses, r.Status)
	}
	if !slices.Equal(statuses, []int{200, 200, 429, 200}) || requests[2].Billed || !requests[3].Billed || requests[3].Call != "call-d" {
		t.Errorf("requests %+v", requests)
	}
}

// Anthropic's fields: the reset an RFC 3339 time rounded up to the second, and retry-after
// in whole seconds, rounded up, on a 429 only.
func TestAnthropicRateLimit(t *testing.T) {
	fields := func(remaining int, reset string) map[string]string {
		used := 1 - remaining
		m := map[string]string{}
		for _, f := range []struct {
			name         string
			limit, spent int
		}{{"requests", 1, used}, {"tokens", 1000, 15 * used}, {"input-tokens", 800, 12 * used}, {"output-tokens", 200, 3 * used}} {
			m["anthropic-ratelimit-"+f.name+"-limit"] = strconv.Itoa(f.limit)
			m["anthropic-ratelimit-"+f.name+"-remaining"] = strconv.Itoa(f.limit - f.spent)
			m["anthropic-ratelimit-"+f.name+"-reset"] = reset
		}
		return m
	}
	throttled := fields(0, "2000-01-01T00:00:02Z")
	throttled["retry-after"] = "1"
	play(t, fakeapi.Config{Limit: 1}, []exchange{
		{1200 * time.Millisecond, messagesPath, 200, fields(0, "2000-01-01T00:00:02Z"), `"content":[{"text":"Hello!","type":"text"}]`},
		{1200 * time.Millisecond, messagesPath, 429, throttled, `{"error":{"message":"This request would exceed your organization's rate limit of 1 requests per 1s. Please try again later.","type":"rate_limit_error"},"type":"error"}`},
	})
}

// The IETF fields and the older X-RateLimit ones, reset in seconds to wait or as an epoch
// time; none sends retry-after.
func TestOtherRateLimitFields(t *testing.T) {
	play(t, fakeapi.Config{Limit: 1, Window: 2 * time.Second, Headers: fakeapi.IETFHeaders}, []exchange{
		{500 * time.Millisecond, chatPath, 200, map[string]string{"ratelimit-policy": `"default";q=1;w=2`, "ratelimit": `"default";r=0;t=2`}, ""},
		{1500 * time.Millisecond, messagesPath, 429, map[string]string{"ratelimit-policy": `"default";q=1;w=2`, "ratelimit": `"default";r=0;t=1`}, "rate_limit_error"},
	})
	play(t, fakeapi.Config{Limit: 1, Headers: fakeapi.XRateLimitHeaders}, []exchange{
		{300 * time.Millisecond, chatPath, 200, map[string]string{"x-ratelimit-limit": "1", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1"}, ""},
		{2300 * time.Millisecond, chatPath, 200, map[string]string{"x-ratelimit-limit": "1", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1"}, ""},
		{2400 * time.Millisecond, chatPath, 429, map[string]string{"x-ratelimit-limit": "1", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1"}, "rate_limit_exceeded"},
	})
	epoch := strconv.Itoa(int(time.Date(2000, 1, 1, 0, 0, 1, 0, time.UTC).Unix()))
	play(t, fakeapi.Config{Limit: 1, Headers: fakeapi.XRateLimitEpochHeaders}, []exchange{
		{300 * time.Millisecond, messagesPath, 200, map[string]string{"x-ratelimit-limit": "1", "x-ratelimit-remaining": "0", "x-ratelimit-reset": epoch}, ""},
		{400 * time.Millisecond, messagesPath, 429, map[string]string{"x-ratelimit-limit": "1", "x-ratelimit-remaining": "0", "x-ratelimit-reset": epoch}, ""},
	})
}

// During the outage every request gets OpenAI's 503 or Anthropic's 529, without rate-limit
// fields, and none counts against the limit.
func TestOutage(t *testing.T) {
	none := map[string]string{}
	ok := map[string]string{"x-ratelimit-limit-requests": "1", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s",
		"x-ratelimit-limit-tokens": "1000", "x-ratelimit-remaining-tokens": "985", "x-ratelimit-reset-tokens": "1s"}
	requests := play(t, fakeapi.Config{Limit: 1, OutageFrom: time.Second, OutageUntil: 3 * time.Second}, []exchange{
		{time.Second, chatPath, 503, none, `{"error":{"code":null,"message":"The server is overloaded or not ready yet.","param":null,"type":"server_error"}}`},
		{2999 * time.Millisecond, messagesPath, 529, none, `{"error":{"message":"Overloaded","type":"overloaded_error"},"type":"error"}`},
		{3 * time.Second, chatPath, 200, ok, ""},
	})
	if len(requests) != 3 || requests[0].Billed || requests[1].Billed || !requests[2].Billed {
		t.Errorf("requests %+v", requests)
	}
}

// A cut answer announces its whole length, sends half of it and closes the connection: the
// client's read fails, and the generation is billed.
func TestCutBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := fakeapi.New(fakeapi.Config{CutBodies: true})
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		g := send(t, &http.Client{Transport: srv.Transport()}, srv.URL+messagesPath, "")
		if g.status != 200 || !errors.Is(g.readErr, io.ErrUnexpectedEOF) || !strings.HasPrefix(g.body, `{"content":[{"text":"Hello!"`) {
			t.Errorf("status %d, read error %v, body %q", g.status, g.readErr, g.body)
		}
		if r := api.Requests(); len(r) != 1 || !r[0].Billed || !r[0].Cut {
			t.Errorf("requests %+v", r)
		}
	})
}

// Requests the APIs refuse get their error bodies, and are not recorded.
func TestInvalidRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := fakeapi.New(fakeapi.Config{})
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		client := &http.Client{Transport: srv.Transport()}
		for _, c := range []struct {
			path, auth, body string
			status           int
			want             string
		}{
			{"/v1/embeddings", "Bearer k", params, 404, `"code":"unknown_url"`},
			{chatPath, "", params, 401, `"code":"invalid_api_key"`},
			{messagesPath, "", params, 401, `"type":"authentication_error"`},
			{messagesPath, "Bearer k", `{"model":"m"}`, 400, `"type":"invalid_request_error"`},
		} {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+c.path, strings.NewReader(c.body))
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) {
				t.Errorf("%s %s: %d %s; want %d %s", c.path, c.auth, resp.StatusCode, b, c.status, c.want)
			}
		}
		if r := api.Requests(); len(r) != 0 {
			t.Errorf("recorded %+v", r)
		}
	})
}
