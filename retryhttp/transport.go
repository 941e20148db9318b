package retryhttp

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/internal/weakmap"
)

// Transport is an [http.RoundTripper] that retries requests through another one under a
// [retry.Policy]: it knows which failures are safe to retry for which methods, replays
// request bodies byte for byte, honours Retry-After, sends idempotency keys, resolves
// unknown outcomes with an optional [Reconciler] and records every decision with secrets
// redacted. See the package documentation for the rules.
//
// The zero Transport is ready to use: http.DefaultTransport under the zero retry.Policy (3
// attempts, 30 s overall). Set the fields before the first request and do not change them
// afterwards; a Transport is then safe for concurrent use by any number of goroutines, as
// long as its Base, Policy hooks and Reconciler are.
type Transport struct {
	// Base sends each attempt; nil means http.DefaultTransport.
	Base http.RoundTripper

	// Policy decides retries, waits and stops; nil means the zero retry.Policy. Its
	// RetryableStatuses (default 408, 429, 500, 502, 503, 504) say which statuses are worth
	// retrying, its OnDecision receives every decision record, with the method and the
	// redacted URL, and the errors redacted. A request may bring a policy of its own: see
	// PolicyFor.
	Policy *retry.Policy

	// PolicyFor, when set, chooses the policy of each request that brings none in its
	// context ([WithPolicy]): for example a short AttemptTimeout for GETs to one upstream and
	// a longer one for POSTs to another, on one shared client. It is called once per request,
	// before any attempt, and must not modify the request; nil, or a nil result, means
	// Policy. The order is: the context's policy, then PolicyFor's, then Policy. It must be
	// safe for concurrent use.
	PolicyFor func(req *http.Request) *retry.Policy

	// MaxBufferedBody is the largest request body, in bytes, buffered in memory to be sent
	// again when the request has no GetBody. Zero means DefaultMaxBufferedBody (1 MiB); a
	// negative value turns buffering off. A larger body is streamed and sent once: a retry
	// after it was sent is refused (see ErrBodyNotReplayable).
	MaxBufferedBody int64

	// PreloadBody, when positive, reads up to that many bytes of the body of every response
	// the Transport is about to return (a success, or a status the policy does not retry)
	// within the attempt, as urllib3's preload_content does, so that a body that breaks while
	// it is read (cut off mid-transfer, a connection reset, the attempt's deadline, which
	// bounds the read) is the attempt's failure: retried as a transport error after sending
	// is (idempotent methods and requests with an idempotency key), and an unknown outcome
	// for a write without a key, which is never sent again. The returned body then reads the
	// preloaded bytes from memory, and the rest of a longer body from the connection, as
	// usual: failures there are the caller's to handle. Zero (the default) preloads nothing;
	// a negative value is an error. Memory: up to PreloadBody bytes per request in flight.
	// The event stream (text/event-stream) of a request that is not idempotent, such as a
	// chat completion with "stream": true, is not preloaded unless ResendBrokenStreams is
	// set: it reaches the caller as it comes, and a break in it is never a reason to send
	// the request again. Nothing is preloaded under an SDK's own retry loop, whose judgment
	// a broken body is.
	PreloadBody int64

	// ResendBrokenStreams, when true, lets PreloadBody read the event stream of a request
	// that is not idempotent too, so that one that breaks within the preloaded bytes is a
	// failed attempt, retried under the usual rules: only with an idempotency key. Leave it
	// false for LLM APIs: neither OpenAI nor Anthropic documents an idempotency-key contract
	// for generation, so a resent generation may be billed twice.
	ResendBrokenStreams bool

	// AutoIdempotencyKey, when true, gives every non-idempotent request (POST, PATCH, ...)
	// that has no key a fresh one from NewIdempotencyKey, sent unchanged with a byte-identical
	// body on every attempt of that request. A key the caller set is never changed. With a
	// key the request is retried like an idempotent one: the server's
	// idempotency-key contract, which you opt into by setting this field or a key, makes a
	// repeat safe. Use it only with a server that documents such a contract: OpenAI and
	// Anthropic document none for generation, so a resent generation may be billed twice;
	// a streamed one is never resent once its response began (see ResendBrokenStreams).
	AutoIdempotencyKey bool

	// IdempotencyKeyHeader names the header carrying the key; "" means
	// DefaultIdempotencyKeyHeader ("Idempotency-Key").
	IdempotencyKeyHeader string

	// ClassifyBody, when set, is called with every response of status 400 or more, for
	// rules of your own. It gets the status, the header and the start of the body, up to
	// 8 KiB (less when the body is shorter, or slower than 100 ms to come: it is then
	// closed after the bytes that came), and may set the response's class and a server
	// wait (see BodyVerdict). It runs after the known signals of the package documentation
	// ("Bodies that say why") and has the last word on the class. It must not modify header
	// or keep prefix, and must be safe for concurrent use. Cost: the prefix, read into
	// memory, one buffer per such response; the caller still reads the body in full and
	// unchanged. An invalid verdict fails the attempt with an error naming it. Nil (the
	// default) reads a body only for the known signals.
	ClassifyBody func(status int, header http.Header, prefix []byte) BodyVerdict

	// Reconcile, when set, is asked about every write whose outcome is unknown before the loop
	// stops with retry.ReasonUnknownOutcome; see Reconciler.
	Reconcile Reconciler

	// Breakers, when set, gives every destination (scheme, host and port: breaker.Key) a
	// circuit breaker of its own, in place of Policy.Breaker, so one failing host does not
	// stop requests to the others: a *breaker.Group, or a *fleet.BreakerGroup
	// shared by a fleet of processes. The group bounds how many destinations it keeps.
	Breakers BreakerGroup

	// Budgets, when set, gives every destination (breaker.Key, as Breakers) a retry budget
	// of its own, in place of Policy.Budget, so that one sick host does not spend the
	// retries of the others and a storm against it stays bounded: a *budget.Group,
	// which bounds how many destinations it keeps. When it is nil and the policy's Budget
	// is nil too, every destination has a default budget of the Transport's (a
	// budget.Quota with its defaults, in a group of budget.DefaultMaxKeys destinations):
	// the requests of one Transport value to one host share it, and a copy of a Transport
	// is a new value with budgets of its own. Set the policy's Budget to retry.NoBudget to
	// turn it off.
	Budgets BudgetGroup

	// SDKMaxRetries is how many retries the retry loop of the SDK above this Transport makes
	// at most (option.WithMaxRetries of openai-go and anthropic-sdk-go), for requests that
	// carry X-Stainless-Retry-Count: the loop under such a request stops, and tells the SDK
	// to, once the SDK's or the policy's attempts are spent, whichever come first. Zero
	// means DefaultSDKMaxRetries (2, the SDKs' default); negative means none.
	SDKMaxRetries int

	// RateGates, when set, gives every destination (breaker.Key, as Breakers) a rate gate of
	// its own, in place of Policy.RateGate: a *ratelimit.Group, or package fleet's, shared
	// by a fleet. When it is nil and the policy's RateGate is nil too, every destination has
	// a default gate of the Transport's (package ratelimit's), which learns the
	// destination's limit from the rate-limit headers of its answers and paces the requests
	// to it, and costs nothing until an answer tells of a limit; the requests of an SDK's
	// loop use gates that also probe a destination that has never answered (SDKProbeWait).
	// Set the policy's RateGate to retry.NoRateGate to turn them off. See the package
	// documentation, "Rate limits".
	RateGates RateGateGroup

	// Hedges, when set, gives every destination (breaker.Key, as Breakers) a Hedger of its
	// own, in place of Policy.Hedge, so that each destination's hedge delay follows its own
	// latencies and its own hedge budget: a *hedge.Group. Either way only a request that
	// may be sent again (an idempotent method, or an idempotency key) whose body can be
	// replayed (none, GetBody, or buffered) is hedged: see the package documentation,
	// "Hedging".
	Hedges HedgeGroup
}

// HedgeGroup gives each destination a Hedger of its own (see Transport.Hedges). Package
// hedge's *Group implements it; implementations must be safe for concurrent use.
type HedgeGroup interface {
	// Hedger returns the Hedger of the destination key, as breaker.Key names it
	// ("https://example.com:443"), creating it when needed; nil means none, and the
	// policy's own Hedge applies (a nil *hedge.Group returns nil). It must not block.
	Hedger(key string) retry.Hedger
}

// defaultBudgets holds the default budgets of each Transport value that has needed them,
// one per destination (see Transport.Budgets), sized by its Policy (budget.QuotaFor); an
// entry goes when its Transport is collected.
var defaultBudgets = weakmap.Map[Transport, budget.Group]{New: func(t *Transport) *budget.Group {
	quota := budget.QuotaFor(t.Policy)
	g, err := budget.NewGroup(budget.GroupConfig{Quota: &quota})
	if err != nil {
		panic(err) // QuotaFor's config is valid
	}
	return g
}}

// BudgetGroup gives each destination a retry budget of its own (see Transport.Budgets).
// Package budget's *Group implements it; implementations must be safe for concurrent use.
type BudgetGroup interface {
	// Budget returns the retry budget of the destination key, as breaker.Key names it
	// ("https://example.com:443"), creating it when needed; nil means none, and the
	// policy's own Budget applies (a nil *budget.Group returns nil). It must not block.
	Budget(key string) retry.RetryBudget
}

// BreakerGroup gives each destination a circuit breaker of its own (see
// Transport.Breakers). Package breaker's *Group and package fleet's *BreakerGroup implement
// it; implementations must be safe for concurrent use.
type BreakerGroup interface {
	// Breaker returns the circuit breaker of the destination key, as breaker.Key names it
	// ("https://example.com:443"), creating it when needed; nil means none, and the
	// policy's own Breaker applies (a nil *breaker.Group or *fleet.BreakerGroup returns
	// nil). It must not block.
	Breaker(key string) retry.CircuitBreaker
}

// NewClient returns an *http.Client whose Transport is a [Transport] with policy p (nil
// means the zero retry.Policy) over http.DefaultTransport. The client has no Timeout of its
// own: p.Timeout bounds every request, attempts and waits together. The client follows
// redirects as usual; each hop is one retried request.
func NewClient(p *retry.Policy) *http.Client {
	return &http.Client{Transport: &Transport{Policy: p}}
}

// zeroPolicy stands for a nil Transport.Policy.
var zeroPolicy retry.Policy

// RoundTrip sends req, retrying as the policy allows, and returns the final response.
//
// It returns (resp, nil) for a success and for a status the policy does not retry (404,
// 422, ...), as any RoundTripper does. When the loop stops for another reason it returns an
// error that errors.As turns into a *retry.Error (reason, attempts, elapsed, the last
// attempt's redacted error); when it had a response in hand that error is a *ResponseError
// holding it. Closing the returned body (or the ResponseError's) ends the last attempt's
// context. RoundTrip always closes req.Body and never modifies req. When the request's
// context ends before the first attempt, even while a streamed body is being buffered, the
// error is a *retry.Error with reason retry.ReasonCanceled or retry.ReasonDeadlineExceeded,
// recorded like any stop. Errors found before the loop starts (no URL, no host, a bad
// IdempotencyKeyHeader, a body that fails to read) are plain errors, and nothing is sent.
//
// A request whose URL scheme is neither http nor https is passed to Base once, without
// retries (http.Transport serves other schemes only through RegisterProtocol).
//
// A request that carries X-Stainless-Retry-Count comes from the retry loop of an SDK
// (openai-go, anthropic-sdk-go): it gets one attempt per SDK attempt, and a response,
// never a ResponseError, whose headers carry the loop's decision to the SDK; a refusal
// before any attempt gets a response made for it. See the package documentation, "Under an
// SDK's retries", and [StopOf].
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil {
		closeRequestBody(req)
		return nil, errors.New("retryhttp: request has no URL")
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return t.base().RoundTrip(req)
	}
	if req.URL.Host == "" {
		closeRequestBody(req)
		return nil, fmt.Errorf("retryhttp: request URL %q has no host", RedactURL(req.URL))
	}
	c, err := t.newCall(req)
	if err != nil {
		if c != nil && req.Context().Err() != nil {
			// The caller gave up while the request body was being buffered: the loop, started
			// with the ended context, runs no attempt and records the stop, canceled or
			// deadline_exceeded, as for every other way a call ends.
			_, _, err = retry.Run(req.Context(), c.policy, retry.Operation[*http.Response]{Attempt: c.attempt, Attrs: c.labels})
		}
		return nil, err
	}
	ctx := req.Context()
	var resp *http.Response
	var final retry.Final
	// Two literals, not one variable: the attempt function of RunIn's stays on the stack, where
	// RunConcurrentIn's, which a hedge's goroutine runs, cannot.
	if c.hedged { // each attempt carries its own probe (call.attempt)
		resp, final, err = retry.RunConcurrentIn(ctx, &c.loop, c.policy, retry.Operation[*http.Response]{
			Attempt: c.attempt, Discard: discardResponse, Attrs: c.labels, OuterAttempt: c.outerAttempt()})
	} else {
		if c.traced { // every attempt's context derives from this one: the probe sees every exchange
			ctx = httptrace.WithClientTrace(ctx, &c.probe.trace)
		}
		resp, final, err = retry.RunIn(ctx, &c.loop, c.policy, retry.Operation[*http.Response]{Attempt: c.attempt,
			Discard: discardResponse, Attrs: c.labels, OuterAttempt: c.outerAttempt()})
	}
	c.flagApplied(err)
	if c.attempts == 0 {
		c.body.closeUnsent()
	}
	if resp == nil {
		final.End()
		if c.sdk {
			return c.handBack(nil, err)
		}
		return nil, err
	}
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	resp.Body = c.final.wrap(resp.Body, final)
	if c.sdk {
		return c.handBack(resp, err)
	}
	if err == nil || errors.Is(err, retry.ErrNonRetryableStatus) {
		return resp, nil
	}
	// The body of a stop's response is read ahead, up to maxDrain for at most maxDrainTime:
	// a small one (a 503's page) then holds no connection and no attempt context when the
	// caller ignores the error, as Go code does with http.Client's; a body trickling in
	// never holds RoundTrip up.
	readAhead(resp)
	return nil, &ResponseError{Response: resp, Err: err}
}

// CloseIdleConnections closes the idle connections of Base when it has that method, as
// *http.Transport does; http.Client.CloseIdleConnections calls it.
func (t *Transport) CloseIdleConnections() {
	if ci, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// policyFor returns the policy of req's loop: the context's ([WithPolicy]), PolicyFor's or
// the Transport's, in that order, given the destination's breaker, budget, Hedger and rate
// gate when Breakers, Budgets, Hedges or RateGates are set, and the destination's default
// budget and rate gate when the policy has none of its own and no group gives one; the copy
// goes in c.own, its rate gate wrapped to take the request's token cost when it states one
// (WithTokenCost: one allocation). A policy with a Budget and a RateGate of its own and no
// group returns as it is.
func (t *Transport) policyFor(req *http.Request, c *call) *retry.Policy {
	p := policyFrom(req.Context())
	if p == nil && t.PolicyFor != nil {
		p = t.PolicyFor(req)
	}
	if p == nil {
		p = t.Policy
	}
	if p == nil {
		p = &zeroPolicy
	}
	tokens := tokenCost(req.Context())
	if t.Breakers == nil && t.Budgets == nil && t.Hedges == nil && t.RateGates == nil && p.Budget != nil &&
		p.RateGate != nil && tokens == 0 {
		return p
	}
	own := &c.own
	*own = *p // the policy with the destination's gates
	key := destinationKey(req.URL)
	if t.Breakers != nil {
		if b := t.Breakers.Breaker(key); b != nil {
			own.Breaker = b
		}
	}
	if t.Budgets != nil {
		if b := t.Budgets.Budget(key); b != nil {
			own.Budget = b
		}
	}
	if t.Hedges != nil {
		if h := t.Hedges.Hedger(key); h != nil {
			own.Hedge = h
		}
	}
	if own.Budget == nil {
		own.Budget = defaultBudgets.Get(t, true).Budget(key)
	}
	_, sdk := req.Header[sdkRetryCountHeader]
	own.RateGate = t.rateGateFor(p, key, sdk)
	c.gate, _ = own.RateGate.(limitObserver)
	if r, ok := own.RateGate.(tokenReserver); ok && tokens > 0 {
		own.RateGate = &costedGate{gate: r, tokens: tokens, RateGate: own.RateGate}
	}
	return own
}

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

func (t *Transport) keyHeader() (string, error) {
	h := t.IdempotencyKeyHeader
	if h == "" {
		return DefaultIdempotencyKeyHeader, nil
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; c <= ' ' || c >= 0x7f || c == ':' || c == '"' || c == '(' || c == ')' || c == ',' ||
			c == '/' || c == ';' || c == '<' || c == '=' || c == '>' || c == '?' || c == '@' || c == '[' ||
			c == '\\' || c == ']' || c == '{' || c == '}' {
			return "", fmt.Errorf("retryhttp: IdempotencyKeyHeader %q is not a header name: use letters, digits and !#$%%&'*+-.^_`|~", h)
		}
	}
	return http.CanonicalHeaderKey(h), nil
}

func (t *Transport) maxBufferedBody() int64 {
	if t.MaxBufferedBody == 0 {
		return DefaultMaxBufferedBody
	}
	return t.MaxBufferedBody
}

// loopDeadline is the deadline a loop starting now gets from p alone (the core's rule);
// zero when p removes it.
func loopDeadline(p *retry.Policy) time.Time {
	switch p.Timeout {
	case retry.NoLimit:
		return time.Time{}
	case 0:
		return time.Now().Add(retry.DefaultTimeout)
	}
	return time.Now().Add(p.Timeout)
}

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
