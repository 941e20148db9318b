package retryhttp_test

import (
	"context"
	"fmt"
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

// apiStep is how the fake LLM API answers one request.
type apiStep struct {
	status int               // 0: 200
	header map[string]string // response headers
	// at, when set, adds headers that depend on the server's clock when it answers (an
	// Anthropic reset time).
	at   func(now time.Time) map[string]string
	body string // a JSON body, when events is nil
	// events, when set, make the answer a 200 text/event-stream of these data lines; with
	// cut > 0 the connection closes after cut of them, mid-stream, else "[DONE]" ends it.
	events []string
	cut    int
}

// apiRequest is what the fake API saw of one request.
type apiRequest struct {
	at         time.Time
	method     string
	retryCount string // X-Stainless-Retry-Count
	key        string // Idempotency-Key
	body       string
}

// fakeAPI plays an LLM API, OpenAI's, Anthropic's or Azure OpenAI's, with net/http's own
// server (retrytest.PipeServer): its n-th request gets steps[min(n, len-1)].
type fakeAPI struct {
	steps []apiStep

	mu  sync.Mutex
	got []apiRequest
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, apiRequest{at: time.Now(), method: r.Method, retryCount: r.Header.Get("X-Stainless-Retry-Count"),
		key: r.Header.Get("Idempotency-Key"), body: string(body)})
	st := f.steps[min(len(f.got), len(f.steps))-1]
	f.mu.Unlock()
	for k, v := range st.header {
		w.Header().Set(k, v)
	}
	if st.at != nil {
		for k, v := range st.at(time.Now()) {
			w.Header().Set(k, v)
		}
	}
	if st.events == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(max(st.status, 200))
		io.WriteString(w, st.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	for i, e := range st.events {
		if st.cut > 0 && i == st.cut {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // mid-stream: the chunked body never ends
			}
			return
		}
		fmt.Fprintf(w, "data: %s\n\n", e)
		flusher.Flush()
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

func (f *fakeAPI) requests() []apiRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apiRequest(nil), f.got...)
}

// gapsOf returns the time between requests, in order.
func gapsOf(got []apiRequest) []time.Duration {
	var gaps []time.Duration
	for i := 1; i < len(got); i++ {
		gaps = append(gaps, got[i].at.Sub(got[i-1].at))
	}
	return gaps
}

// onFakeAPI runs f inside a synctest bubble, with tr sending to a fake API that plays steps
// at url: tr's Base is set, and its policy (a copy) appends every decision to decisions. It
// returns the requests the API received.
func onFakeAPI(t *testing.T, tr *retryhttp.Transport, steps []apiStep, decisions *[]retry.Decision, f func(url string)) []apiRequest {
	t.Helper()
	var got []apiRequest
	synctest.Test(t, func(t *testing.T) {
		api := &fakeAPI{steps: steps}
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		tr.Base = srv.Transport()
		observe(tr, decisions)
		f(srv.URL)
		got = api.requests()
	})
	return got
}

// llmResult is what came of one call to the fake API.
type llmResult struct {
	requests  []apiRequest
	gaps      []time.Duration
	decisions []retry.Decision
	status    int    // the response's, direct or inside a ResponseError; 0 without one
	body      string // what the caller read of it
	readErr   error  // the caller's error reading the body
	err       error  // RoundTrip's error
	elapsed   time.Duration
}

// callAPI sends one request made by newReq through tr, over the fake API playing steps,
// inside a synctest bubble, and reads the response's body to its end. tr's Base and its
// policy's OnDecision are set here.
func callAPI(t *testing.T, tr *retryhttp.Transport, steps []apiStep, newReq func(url string) *http.Request) llmResult {
	t.Helper()
	var res llmResult
	res.requests = onFakeAPI(t, tr, steps, &res.decisions, func(url string) {
		start := time.Now()
		resp, err := tr.RoundTrip(newReq(url))
		res.err = err
		if resp = respOf(resp, err); resp != nil {
			res.status = resp.StatusCode
			b, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			res.body, res.readErr = string(b), rerr
		}
		res.elapsed = time.Since(start)
	})
	res.gaps = gapsOf(res.requests)
	return res
}

// observe makes tr's policy (a copy of it) append every decision to decisions.
func observe(tr *retryhttp.Transport, decisions *[]retry.Decision) {
	p := retry.Policy{}
	if tr.Policy != nil {
		p = *tr.Policy
	}
	p.OnDecision = func(_ context.Context, d retry.Decision) { *decisions = append(*decisions, d) }
	tr.Policy = &p
}

// chat returns a request maker for a chat completion at OpenAI's path, with body, and
// headers as name, value pairs.
func chat(body string, header ...string) func(url string) *http.Request {
	return func(url string) *http.Request {
		req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return req
	}
}

const chatBody = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`

// last returns the last decision of r.
func (r llmResult) last(t *testing.T) retry.Decision {
	t.Helper()
	if len(r.decisions) == 0 {
		t.Fatal("no decision")
	}
	return r.decisions[len(r.decisions)-1]
}

// recordJSON returns d's record as JSON.
func recordJSON(t *testing.T, d retry.Decision) string {
	t.Helper()
	b, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
