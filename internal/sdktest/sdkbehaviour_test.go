package sdktest

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	anthropic1 "github.com/anthropics/anthropic-sdk-go"
	anthropic2 "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/retrykit/retry/retrytest"
)

// What each SDK alone does with each answer, as SDKS.md states it from their code: these
// tests keep SDKS.md true when an SDK is upgraded (issue 32 item 3, "what the SDK does with
// each of our answers").

// step is how the scripted API answers one request: every request gets the same.
type step struct {
	status int
	header map[string]string
	// at, when set, adds headers that depend on the time of the answer.
	at   func(now time.Time) map[string]string
	body string // "" means a JSON body of the API's error shape, or of a completion for 200
	cut  bool   // a 200 whose body stops halfway, the connection closed
}

// scriptedAPI answers every request with its step, and records when requests came.
type scriptedAPI struct {
	step step
	mu   sync.Mutex
	at   []time.Time
}

func (a *scriptedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	a.mu.Lock()
	a.at = append(a.at, time.Now())
	a.mu.Unlock()
	for k, v := range a.step.header {
		w.Header().Set(k, v)
	}
	if a.step.at != nil {
		for k, v := range a.step.at(time.Now()) {
			w.Header().Set(k, v)
		}
	}
	body := a.step.body
	if body == "" && a.step.status == 0 {
		body = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
		if r.URL.Path == "/v1/chat/completions" {
			body = `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}]}`
		}
	} else if body == "" {
		body = `{"type":"error","error":{"type":"api_error","message":"m"}}`
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(max(a.step.status, http.StatusOK))
	if !a.step.cut {
		io.WriteString(w, body)
		return
	}
	io.WriteString(w, body[:len(body)/2])
	rc := http.NewResponseController(w)
	rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close()
	}
}

// failing is a RoundTripper whose every exchange fails before a response, as a refused
// connection does; it records when.
type failing struct {
	mu sync.Mutex
	at []time.Time
}

func (f *failing) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	f.mu.Lock()
	f.at = append(f.at, time.Now())
	f.mu.Unlock()
	return nil, errors.New("dial tcp: connection refused")
}

// sdkRun is what came of one call of an SDK alone.
type sdkRun struct {
	at  []time.Time // when each request reached the API (or the failing transport)
	err error
}

// waits returns the time between the requests.
func (r sdkRun) waits() []time.Duration {
	var w []time.Duration
	for i := 1; i < len(r.at); i++ {
		w = append(w, r.at[i].Sub(r.at[i-1]))
	}
	return w
}

// callAlone makes one call of s alone, against a scripted API answering st, or through a
// transport whose every exchange fails when refuse is set, inside a synctest bubble.
func callAlone(t *testing.T, s sdk, st step, refuse bool) sdkRun {
	t.Helper()
	var r sdkRun
	synctest.Test(t, func(t *testing.T) {
		api := &scriptedAPI{step: st}
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		var base http.RoundTripper = srv.Transport()
		f := &failing{}
		if refuse {
			base = f
		}
		r.err = s.connect(srv.URL, &http.Client{Transport: base})(t.Context(), "pin")
		r.at = api.at
		if refuse {
			r.at = f.at
		}
	})
	return r
}

// within is a range of waits, inclusive.
type within struct{ lo, hi time.Duration }

func exactly(d time.Duration) within { return within{d, d} }

// backoff is the SDKs' wait before retry n (0 for the first): 0.5 s × 2^n, less up to 25 %.
func backoff(n int) within {
	d := 500 * time.Millisecond << n
	return within{d - d/4, d}
}

// pinCase is one answer, and what each API's SDKs do with it.
type pinCase struct {
	name   string
	step   step
	refuse bool
	openAI []within // the waits between the requests: one per retry
	claude []within // anthropic-sdk-go's, v1 and v2
}

func TestSDKRetries(t *testing.T) {
	twice := func(w within) []within { return []within{w, w} }
	var none []within
	retried := []within{backoff(0), backoff(1)}
	for _, c := range []pinCase{
		{name: "408", step: step{status: 408}, openAI: retried, claude: retried},
		{name: "409", step: step{status: 409}, openAI: retried, claude: retried},
		{name: "429", step: step{status: 429}, openAI: retried, claude: retried},
		{name: "500", step: step{status: 500}, openAI: retried, claude: retried},
		{name: "503", step: step{status: 503}, openAI: retried, claude: retried},
		{name: "529", step: step{status: 529}, openAI: retried, claude: retried},
		{name: "400", step: step{status: 400}, openAI: none, claude: none},
		{name: "404", step: step{status: 404}, openAI: none, claude: none},
		{name: "503, x-should-retry: false", step: step{status: 503, header: map[string]string{"X-Should-Retry": "false"}}, openAI: none, claude: none},
		{name: "400, x-should-retry: true", step: step{status: 400, header: map[string]string{"X-Should-Retry": "true"}}, openAI: retried, claude: retried},
		{name: "429, retry-after-ms: 1500", step: step{status: 429, header: map[string]string{"Retry-After-Ms": "1500"}},
			openAI: twice(exactly(1500 * time.Millisecond)), claude: twice(exactly(1500 * time.Millisecond))},
		{name: "429, retry-after-ms: 1500 and retry-after: 5: retry-after-ms wins", step: step{status: 429, header: map[string]string{"Retry-After-Ms": "1500", "Retry-After": "5"}},
			openAI: twice(exactly(1500 * time.Millisecond)), claude: twice(exactly(1500 * time.Millisecond))},
		{name: "429, retry-after: 1.5", step: step{status: 429, header: map[string]string{"Retry-After": "1.5"}},
			openAI: twice(exactly(1500 * time.Millisecond)), claude: twice(exactly(1500 * time.Millisecond))},
		{name: "429, retry-after: an HTTP-date 3 s ahead", step: step{status: 429, at: func(now time.Time) map[string]string {
			return map[string]string{"Retry-After": now.Add(3 * time.Second).UTC().Format(http.TimeFormat)}
		}}, openAI: twice(exactly(3 * time.Second)), claude: twice(exactly(3 * time.Second))},
		{name: "429, retry-after: 0", step: step{status: 429, header: map[string]string{"Retry-After": "0"}},
			openAI: twice(exactly(0)), claude: twice(exactly(0))},
		{name: "429, retry-after: -1: openai-go ignores it, anthropic-sdk-go retries at once", step: step{status: 429, header: map[string]string{"Retry-After": "-1"}},
			openAI: retried, claude: twice(exactly(0))},
		{name: "429, retry-after: 120 (openai-go's cap, waited)", step: step{status: 429, header: map[string]string{"Retry-After": "120"}},
			openAI: twice(exactly(2 * time.Minute)), claude: twice(exactly(2 * time.Minute))},
		{name: "429, retry-after-ms: 150000 (beyond openai-go's cap: no retry)", step: step{status: 429, header: map[string]string{"Retry-After-Ms": "150000"}},
			openAI: none, claude: twice(exactly(150 * time.Second))},
		{name: "429, retry-after: 1e20 (overflows a time.Duration: anthropic-sdk-go retries at once)", step: step{status: 429, header: map[string]string{"Retry-After": "1e20"}},
			openAI: none, claude: twice(exactly(0))},
		{name: "429, retry-after: soon (unparsable: the backoff)", step: step{status: 429, header: map[string]string{"Retry-After": "soon"}},
			openAI: retried, claude: retried},
		{name: "a connection error", refuse: true, openAI: retried, claude: retried},
		{name: "a 200 whose JSON body breaks: anthropic-sdk-go sends it again", step: step{cut: true}, openAI: none, claude: retried},
		{name: "a 200 whose JSON body breaks, x-should-retry: false", step: step{cut: true, header: map[string]string{"X-Should-Retry": "false"}}, openAI: none, claude: none},
	} {
		for _, s := range sdks {
			t.Run(c.name+"/"+s.name(), func(t *testing.T) {
				want := c.openAI
				if s.api == "Anthropic" {
					want = c.claude
				}
				r := callAlone(t, s, c.step, c.refuse)
				waits := r.waits()
				ok := len(waits) == len(want)
				for i := 0; ok && i < len(waits); i++ {
					ok = want[i].lo <= waits[i] && waits[i] <= want[i].hi
				}
				if !ok {
					t.Errorf("%d requests, waits %v, error %v; want waits %v", len(r.at), waits, r.err, want)
				}
			})
		}
	}
}

// What the caller gets of an error answer: the SDK's error type with the response, its
// fields from the JSON body, and its Error() text.
func TestSDKErrors(t *testing.T) {
	openAIBody := `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	anthropicBody := `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}`
	noRetry := map[string]string{"X-Should-Retry": "false", "Request-Id": "req_1"}
	for _, c := range []struct {
		name string
		sdk  sdk
		body string
		want string // the error's text, the URL replaced by URL
		// check reads the SDK's error type
		check func(t *testing.T, err error)
	}{
		{"OpenAI's body", sdks[0], openAIBody, "OpenAI API error: 429 Too Many Requests", func(t *testing.T, err error) {
			var e *openai.Error
			if !errors.As(err, &e) || e.Code != "rate_limit_exceeded" || e.Type != "requests" || e.Message != "Rate limit reached" ||
				e.StatusCode != 429 || e.Response.Header.Get("X-Should-Retry") != "false" {
				t.Errorf("%#v", e)
			}
		}},
		{"Anthropic's body, to openai-go: the fields it knows", sdks[0], anthropicBody, "OpenAI API error: 429 Too Many Requests", func(t *testing.T, err error) {
			var e *openai.Error
			if !errors.As(err, &e) || e.Type != "rate_limit_error" || e.Message != "Rate limited" || e.Code != "" {
				t.Errorf("%#v", e)
			}
		}},
		{"a body without an error object, to openai-go: still an *openai.Error, its fields empty", sdks[0], `{"reason":"circuit_open"}`, "OpenAI API error: 429 Too Many Requests", func(t *testing.T, err error) {
			var e *openai.Error
			if !errors.As(err, &e) || e.Type != "" || e.Message != "" {
				t.Errorf("%#v", e)
			}
		}},
		{"a text body, to openai-go", sdks[0], `circuit open`, "OpenAI API error: 429 Too Many Requests", func(t *testing.T, err error) {
			var e *openai.Error
			if !errors.As(err, &e) {
				t.Errorf("%T", err)
			}
		}},
		{"Anthropic's body, to anthropic-sdk-go v1: the raw body in the text", sdks[1], anthropicBody,
			`POST "URL/v1/messages": 429 Too Many Requests (Request-ID: req_1) ` + anthropicBody, func(t *testing.T, err error) {
				var e *anthropic1.Error
				if !errors.As(err, &e) || e.Type() != "rate_limit_error" || e.RequestID != "req_1" || e.Response.StatusCode != 429 {
					t.Errorf("%#v", e)
				}
			}},
		{"a text body, to anthropic-sdk-go v1", sdks[1], `circuit open`, `POST "URL/v1/messages": 429 Too Many Requests (Request-ID: req_1) circuit open`, func(t *testing.T, err error) {
			var e *anthropic1.Error
			if !errors.As(err, &e) || e.Type() != "" {
				t.Errorf("%#v", e)
			}
		}},
		{"Anthropic's body, to anthropic-sdk-go v2: Message too", sdks[2], anthropicBody,
			`POST "URL/v1/messages": 429 Too Many Requests (Request-ID: req_1) ` + anthropicBody, func(t *testing.T, err error) {
				var e *anthropic2.Error
				if !errors.As(err, &e) || e.Type() != "rate_limit_error" || e.Message != "Rate limited" || e.RequestID != "req_1" {
					t.Errorf("%#v", e)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := callAlone(t, c.sdk, step{status: 429, header: noRetry, body: c.body}, false)
			if r.err == nil {
				t.Fatal("no error")
			}
			if got := strings.ReplaceAll(r.err.Error(), "http://pipe.test", "URL"); got != c.want {
				t.Errorf("error %q; want %q", got, c.want)
			}
			c.check(t, r.err)
		})
	}
}
