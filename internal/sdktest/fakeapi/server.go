// Package fakeapi plays two LLM APIs as they behave under trouble, for tests that drive the
// official SDKs against them (issue 32): OpenAI's chat completions (POST
// /v1/chat/completions) and Anthropic's messages (POST /v1/messages). Both answer with the
// JSON bodies and error bodies of the real APIs, which the SDKs parse, and with their
// headers:
//
//   - a rate limit of Config.Limit requests in each fixed window of Config.Window, the first
//     window starting when New is called, published on every 200 and 429 in the API's own
//     fields (OpenAI's x-ratelimit-*-requests and -tokens, Anthropic's
//     anthropic-ratelimit-*), or in the IETF RateLimit and RateLimit-Policy fields, or in
//     the older X-RateLimit-* fields (Config.Headers);
//   - an outage: 503 (OpenAI) or 529 overloaded_error (Anthropic) for every request that
//     arrives within it;
//   - answers cut mid-body: the Content-Length announced, half the body written, the
//     connection closed.
//
// The Server records every request it received (Stats). It reads the time from the time
// package, so that inside a testing/synctest bubble its windows and its outage run on the
// bubble's fake clock; serve it there with retrytest.PipeServer.
package fakeapi

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// CallHeader is the request header a test sets to tell its calls apart: the Server records
// its value with every request (Request.Call).
const CallHeader = "X-Fakeapi-Call"

// RateLimitHeaders says in which fields the Server publishes its rate limit.
type RateLimitHeaders int

const (
	// APIHeaders publishes the limit in the API's own fields. OpenAI:
	// x-ratelimit-{limit,remaining,reset}-{requests,tokens}, the reset a Go duration such as
	// "451ms", and no retry-after on a 429. Anthropic:
	// anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset},
	// the reset an RFC 3339 time, and retry-after in whole seconds, rounded up, on a 429.
	APIHeaders RateLimitHeaders = iota
	// IETFHeaders publishes the limit in the fields of the IETF draft
	// draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy: "default";q=50;w=1 and
	// RateLimit: "default";r=49;t=1 (t in whole seconds to the reset, rounded up), and no
	// retry-after on a 429.
	IETFHeaders
	// XRateLimitHeaders publishes the limit in X-RateLimit-Limit, X-RateLimit-Remaining
	// and X-RateLimit-Reset, the reset in whole seconds to wait, rounded up, and no
	// retry-after on a 429.
	XRateLimitHeaders
	// XRateLimitEpochHeaders is XRateLimitHeaders with X-RateLimit-Reset as the Unix time
	// of the reset, in whole seconds, rounded up (GitHub's form).
	XRateLimitEpochHeaders
)

// Config says how a Server behaves. The zero Config answers every valid request 200.
type Config struct {
	// Limit is how many requests each window admits: request Limit+1 of a window and every
	// later one is answered 429. Zero means no rate limit, and no rate-limit fields.
	Limit int
	// Window is the length of the fixed windows of the rate limit, the first starting when
	// New is called. Zero means 1 s.
	Window time.Duration
	// Headers says in which fields the limit is published, on every 200 and 429.
	Headers RateLimitHeaders
	// OutageFrom and OutageUntil bound the outage, counted from the Server's start: a
	// request arriving in [OutageFrom, OutageUntil) is answered 503 (OpenAI) or 529
	// overloaded_error (Anthropic), without rate-limit fields, and does not count against
	// the limit. OutageUntil at or before OutageFrom means no outage.
	OutageFrom, OutageUntil time.Duration
	// CutBodies, when true, cuts every 200 mid-body: the whole body's Content-Length is
	// announced, half of it written, and the connection closed. The generation was made: it
	// is billed (Request.Billed).
	CutBodies bool
}

// Server plays both APIs under its Config. It is an http.Handler, safe for concurrent use.
type Server struct {
	cfg   Config
	start time.Time

	mu       sync.Mutex
	window   int64 // the current window's number, 0 for the first
	admitted int   // requests admitted in the current window
	requests []Request
}

// New returns a Server whose first window, and the clock of its outage, start now.
func New(cfg Config) *Server {
	if cfg.Window <= 0 {
		cfg.Window = time.Second
	}
	return &Server{cfg: cfg, start: time.Now()}
}

// Start returns the time the Server started: its first window's start.
func (s *Server) Start() time.Time { return s.start }

// Request is what the Server saw of one request, and how it answered.
type Request struct {
	// At is when the Server, having read it, decided its answer.
	At time.Time
	// Call is its CallHeader, "" without one.
	Call string
	// RetryCount is its X-Stainless-Retry-Count, "" without one.
	RetryCount string
	// Status is the status the Server answered.
	Status int
	// Billed reports that the Server made the generation: a 200, whole or cut.
	Billed bool
	// Cut reports a 200 whose body the Server cut off.
	Cut bool
}

// Requests returns every request received so far, in the order they arrived.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// answer is how the Server answers one request: a status, headers and a JSON body.
type answer struct {
	status int
	header http.Header
	body   any
	cut    bool
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	api, ok := apiOf(r.URL.Path)
	if !ok {
		api.write(w, api.errorAnswer(http.StatusNotFound, "not_found_error", "Not found: "+r.URL.Path))
		return
	}
	var params struct {
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
	}
	body, err := io.ReadAll(r.Body)
	switch {
	case err != nil:
		return // the client went away
	case r.Method != http.MethodPost:
		api.write(w, api.errorAnswer(http.StatusMethodNotAllowed, "invalid_request_error", "Method not allowed: "+r.Method))
		return
	case json.Unmarshal(body, &params) != nil || params.Model == "" || len(params.Messages) == 0:
		api.write(w, api.errorAnswer(http.StatusBadRequest, "invalid_request_error", "The request body must be JSON with a model and messages."))
		return
	case !api.authenticated(r):
		api.write(w, api.errorAnswer(http.StatusUnauthorized, "authentication_error", "Missing API key."))
		return
	}

	s.mu.Lock()
	now := time.Now() // under the lock: the requests are decided in the order of their times
	n := len(s.requests) + 1
	a := s.decide(api, now, params.Model, n)
	s.requests = append(s.requests, Request{At: now, Call: r.Header.Get(CallHeader), RetryCount: r.Header.Get("X-Stainless-Retry-Count"),
		Status: a.status, Billed: a.status == http.StatusOK, Cut: a.cut})
	s.mu.Unlock()
	a.header.Set(api.requestIDHeader, "req_"+strconv.Itoa(n))
	api.write(w, a)
}

// decide answers request number n of api, arriving at now, and counts it against the limit.
// s.mu is held.
func (s *Server) decide(api api, now time.Time, model string, n int) answer {
	since := now.Sub(s.start)
	if s.cfg.OutageFrom <= since && since < s.cfg.OutageUntil {
		return api.unavailable()
	}
	ok := answer{status: http.StatusOK, header: http.Header{}, body: api.completion(model, n, now), cut: s.cfg.CutBodies}
	if s.cfg.Limit <= 0 {
		return ok
	}
	if w := int64(since / s.cfg.Window); w != s.window {
		s.window, s.admitted = w, 0
	}
	q := quota{limit: s.cfg.Limit, window: s.cfg.Window, now: now, reset: s.start.Add(time.Duration(s.window+1) * s.cfg.Window)}
	throttled := s.admitted >= s.cfg.Limit
	a := ok
	if throttled {
		a = api.rateLimited(q)
	} else {
		s.admitted++
	}
	q.remaining = s.cfg.Limit - s.admitted
	q.publish(a.header, api, s.cfg.Headers, throttled)
	return a
}
