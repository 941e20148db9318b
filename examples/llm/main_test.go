package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/retrytest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// answer is how the fake API answers one request: a status and headers, and for a 200 a
// chat completion saying reply.
type answer struct {
	status int
	header map[string]string
	reply  string
}

// fakeOpenAI plays OpenAI's chat completions endpoint: its n-th request gets
// answers[min(n, len-1)]. It keeps when each request came and its Idempotency-Key.
type fakeOpenAI struct {
	answers []answer

	mu   sync.Mutex
	at   []time.Time
	keys []string
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil ||
		r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.at = append(f.at, time.Now())
	f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
	a := f.answers[min(len(f.at), len(f.answers))-1]
	f.mu.Unlock()
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if a.status != 0 && a.status != http.StatusOK {
		w.WriteHeader(a.status)
		io.WriteString(w, `{"error":{"message":"`+http.StatusText(a.status)+`"}}`)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": message{"assistant", a.reply}, "finish_reason": "stop"}}})
}

// result is what a run of the program did.
type result struct {
	err            error
	stdout, stderr string
	at             []time.Time
	keys           []string
	elapsed        time.Duration
}

// onFakeOpenAI runs f inside a synctest bubble with the fake API playing answers at url,
// reached through base, and returns the API as f left it.
func onFakeOpenAI(t *testing.T, answers []answer, f func(url string, base http.RoundTripper)) *fakeOpenAI {
	t.Helper()
	api := &fakeOpenAI{answers: answers}
	synctest.Test(t, func(t *testing.T) {
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		f(srv.URL, srv.Transport())
	})
	return api
}

// play runs the program with args against the fake API.
func play(t *testing.T, answers []answer, args ...string) result {
	t.Helper()
	var r result
	api := onFakeOpenAI(t, answers, func(url string, base http.RoundTripper) {
		env := map[string]string{"OPENAI_API_KEY": "sk-test"}
		var stdout, stderr bytes.Buffer
		start := time.Now()
		r.err = run(context.Background(), append([]string{"-base", url + "/v1"}, args...), func(k string) string { return env[k] },
			&stdout, &stderr, base)
		r.elapsed = time.Since(start)
		r.stdout, r.stderr = stdout.String(), stderr.String()
	})
	r.at, r.keys = api.at, api.keys
	return r
}

// records returns the decision records the program logged.
func (r result) records(t *testing.T) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var entry struct {
			Decision map[string]any `json:"decision"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("stderr line %q: %v", line, err)
		}
		recs = append(recs, entry.Decision)
	}
	return recs
}

// With -key, a 429 asking for 1.5 s in retry-after-ms, a 500 (retried: the request has a
// key), then the completion: 3 requests with one key, the first wait at least 1.5 s.
func TestRetriesAsTheAPIAsks(t *testing.T) {
	r := play(t, []answer{
		{status: 429, header: map[string]string{"Retry-After-Ms": "1500", "X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "1s"}},
		{status: 500},
		{reply: "Hello!"},
	}, "-key", "Say hello")
	if r.err != nil || r.stdout != "Hello!\n" {
		t.Fatalf("error %v, stdout %q; stderr %s", r.err, r.stdout, r.stderr)
	}
	if len(r.at) != 3 || r.keys[0] == "" || r.keys[0] != r.keys[1] || r.keys[1] != r.keys[2] {
		t.Fatalf("%d requests, keys %q", len(r.at), r.keys)
	}
	if wait := r.at[1].Sub(r.at[0]); wait < 1500*time.Millisecond || wait >= 2500*time.Millisecond {
		t.Errorf("waited %v after the 429; want 1.5 s plus at most the 1 s spread", wait)
	}
	recs := r.records(t)
	t.Logf("waits %v, %v; records %v", r.at[1].Sub(r.at[0]), r.at[2].Sub(r.at[1]), recs)
	if len(recs) != 3 || recs[0]["retry_after_from"] != "retry-after-ms" || recs[0]["reason"] != "retry_after" ||
		recs[1]["reason"] != "retryable_status" || recs[2]["reason"] != "success" {
		t.Errorf("records %v", recs)
	}
}

// A wait longer than the deadline stops at once, with the reason and the header.
func TestStopsWhenTheWaitPassesTheDeadline(t *testing.T) {
	r := play(t, []answer{{status: 429, header: map[string]string{"Retry-After-Ms": "20000"}}}, "-timeout", "3s", "Say hello")
	want := "error: retry_after_exceeds_deadline after 1 attempts in 0s (the server asked for 20s, in retry-after-ms), last status 429\n"
	if r.err == nil || r.stdout != want || len(r.at) != 1 || r.elapsed != 0 {
		t.Errorf("error %v, stdout %q, %d requests in %v", r.err, r.stdout, len(r.at), r.elapsed)
	}
}

// By default no key is sent (issue 32 item 8: a key does not make a generation safe to
// resend), and a POST's 500 is not resent: the completion may have been made.
func TestNoKeyByDefaultNoResend(t *testing.T) {
	r := play(t, []answer{{status: 500}, {reply: "Hello!"}}, "Say hello")
	want := "error: unknown_outcome after 1 attempts in 0s, last status 500; the completion may have been made\n"
	if r.err == nil || r.stdout != want || len(r.at) != 1 || r.keys[0] != "" {
		t.Errorf("error %v, stdout %q, %d requests, keys %q", r.err, r.stdout, len(r.at), r.keys)
	}
}

// Against an endpoint that fails for everyone, the budget bounds the retries of 30 prompts:
// without it they would make 120 requests.
func TestBudgetBoundsRetries(t *testing.T) {
	prompts := make([]string, 30)
	for i := range prompts {
		prompts[i] = "Say hello"
	}
	r := play(t, []answer{{status: 503}}, prompts...)
	exhausted := strings.Count(r.stdout, "retry_budget_exhausted")
	t.Logf("%d requests for 30 prompts; %d stopped by the budget", len(r.at), exhausted)
	if len(r.at) >= 60 || exhausted == 0 || strings.Count(r.stdout, "error: ") != 30 {
		t.Errorf("%d requests, %d stopped by the budget; stdout %s", len(r.at), exhausted, r.stdout)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"-timeout", "0s", "hi"}, {"-nope", "hi"}} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, io.Discard, &stderr, http.DefaultTransport)
		if _, ok := err.(usageError); !ok {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
}
