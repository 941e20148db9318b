package retryhttp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/ratelimit"
)

// call is one logical request on its way through the retry loop: what every attempt needs.
type call struct {
	t      *Transport
	base   http.RoundTripper
	policy *retry.Policy
	req    *http.Request // what each attempt copies: the caller's, or a copy with a key or a buffered body
	body   replay

	// repeatable: a failure after sending may be retried (idempotent method, or a key).
	repeatable bool
	keyed      bool
	// sdk: the request comes from an SDK's own retry loop (X-Stainless-Retry-Count), which
	// retries it: the loop makes one attempt, the SDK's attempt number sdkAttempt (0 for its
	// first, at most 1<<20), and hands the SDK its decision (see underSDK, handBack).
	sdk bool
	// traced: the call's context carries the probe's trace. It does when the probe's answers
	// are read: whether a write was sent, and the re-sends that records, metrics and a budget
	// count. A GET under a policy that nobody watches skips its cost (4 allocations).
	traced bool
	// hedged: the call may be hedged (the policy has a Hedger, the request may be sent again
	// and its body replayed), so its attempts may run concurrently: each carries its own
	// probe on its context, a hedge's in hedgeProbes (made with the call, each probe set up
	// when its hedge first runs).
	hedged bool
	// mayHaveApplied: an attempt of a keyed write reached the server without a decisive
	// answer, so the write may exist whatever the later attempts say (see flagApplied). An
	// atomic, as the attempts of a hedged call run concurrently.
	mayHaveApplied atomic.Bool
	sdkAttempt     int32
	// labels name the request in decision records, method and redacted URL, and
	// inner_retries and sdk_attempt under an SDK's loop, when somebody records them.
	labels []slog.Attr
	// deadline bounds a Reconciler's lookup: the loop's own deadline from the policy.
	deadline time.Time

	attempts int
	// probe follows every attempt through net/http/httptrace, when traced.
	probe       sendProbe
	hedgeProbes *[retry.MaxHedges]sendProbe
	// final wraps the returned response's body; a field, so that it costs no allocation.
	final releasingBody
	// loop holds the retry loop's state, so that a request waiting between attempts keeps
	// only small frames on its goroutine's stack (retry.RunIn).
	loop retry.Loop
	// own is the request's policy when the Transport gives it the destination's gates
	// (policyFor): a field, so that it costs no allocation.
	own retry.Policy
	// gate is the destination's rate gate when it learns from the rate-limit headers of
	// every answer (policyFor).
	gate limitObserver
}

func (t *Transport) newCall(req *http.Request) (*call, error) {
	if t.PreloadBody < 0 {
		closeRequestBody(req)
		return nil, fmt.Errorf("retryhttp: Transport.PreloadBody %d is negative: want 0 (no preload) or a number of bytes", t.PreloadBody)
	}
	c := &call{t: t, base: t.base(), req: req}
	c.policy = pastGates(req.Context(), t.policyFor(req, c))
	c.underSDK()
	if c.traced = !idempotentMethod(req.Method) || watched(c.policy); c.traced {
		c.probe.init()
	}
	if c.policy.OnDecision != nil {
		method := req.Method
		if method == "" {
			method = http.MethodGet
		}
		c.labels = make([]slog.Attr, 2, 4)
		c.labels[0], c.labels[1] = slog.String("method", method), slog.String("url", RedactURL(req.URL))
		if c.sdk {
			c.labels = append(c.labels, slog.Bool(keyInnerRetries, true), slog.Int(keySDKAttempt, int(c.sdkAttempt)))
		}
	}
	c.repeatable = idempotentMethod(req.Method)
	var key string
	if !c.repeatable {
		header, err := t.keyHeader()
		if err != nil {
			closeRequestBody(req)
			return nil, err
		}
		if req.Header.Get(header) != "" {
			c.keyed = true
		} else if t.AutoIdempotencyKey {
			c.keyed, key = true, header
		}
		c.repeatable = c.keyed
	}
	var err error
	if c.body, err = prepareBody(req, t.maxBufferedBody()); err != nil {
		return c, err // c's policy still records the stop when the caller gave up
	}
	if key != "" || c.body.kind == buffered {
		c.req = req.WithContext(req.Context()) // a shallow copy: never modify the caller's request
		if key != "" {
			c.req.Header = req.Header.Clone()
			if c.req.Header == nil {
				c.req.Header = http.Header{}
			}
			c.req.Header.Set(key, NewIdempotencyKey())
		}
		if c.body.kind == buffered {
			c.req.GetBody = c.body.getBuffered
		}
	}
	if t.Reconcile != nil {
		c.deadline = loopDeadline(c.policy)
	}
	if c.hedged = c.policy.Hedge != nil && c.repeatable && c.body.kind != once; c.hedged {
		c.hedgeProbes = new([retry.MaxHedges]sendProbe)
	}
	return c, nil
}

// watched reports whether anything reads p's decisions or counts its load: then the
// attempts' transport re-sends must be known.
func watched(p *retry.Policy) bool {
	_, counts := p.Budget.(retry.ResendCounter)
	return p.OnDecision != nil || counts
}

// attempt sends the request once with the attempt's context and says what happened. The
// attempts of a hedged call run concurrently: a hedge (retry.HedgeOf) has a probe and a
// body of its own, and never the first attempt's body, which that attempt is sending.
func (c *call) attempt(ctx context.Context) (*http.Response, retry.Outcome) {
	probe, n, hedge := &c.probe, 0, 0
	if c.hedged {
		if n, hedge = retry.HedgeOf(ctx); hedge > 0 {
			probe = c.hedgeProbe(hedge)
		}
		if c.traced {
			ctx = httptrace.WithClientTrace(ctx, &probe.trace)
		}
	}
	if hedge == 0 {
		c.attempts++ // attempts of a call follow one another; only hedges run beside them
		n = c.attempts
	}
	start := probe.begin()
	r := c.req.WithContext(ctx)
	if c.body.kind != noBody {
		b, err := c.body.open(n, hedge > 0)
		if err != nil {
			return nil, retry.Outcome{Err: err, Class: retry.ClassPermanent}
		}
		r.Body = b
	}
	resp, err := c.base.RoundTrip(r)
	if resp == nil && err == nil {
		err = retry.Permanent(errNoResponse)
	}
	if err != nil {
		return c.failed(resp, err, probe, start)
	}
	return c.answered(resp, probe.resends(start))
}

// failed judges an attempt whose transport returned err (and resp, which a RoundTripper
// should not return beside an error): whether the request was sent, whether a proxy refused
// the tunnel, whether a retry can help, the rules of writes. probe followed the attempt,
// whose exchanges it counted from start. A function of its own, as answered is.
//
//go:noinline
func (c *call) failed(resp *http.Response, err error, probe *sendProbe, start int32) (*http.Response, retry.Outcome) {
	discardResponse(resp) // a RoundTripper must not return both; never leak one that does
	err = probe.cause(err)
	o := retry.Outcome{Err: redactFor(err, c.req),
		TransportResends: probe.resends(start)}
	class, sent := retry.ClassPermanent, probe.sent(err)
	if proxy := proxyRefusal(err); proxy != nil {
		// The tunnel was refused: the request never reached the origin. The proxy's
		// status decides, like any status.
		sent = false
		class = c.policy.Classify(retry.Outcome{Status: proxy.Status})
		if class == retry.ClassSuccess {
			class = retry.ClassPermanent // no tunnel is no success, whatever the status
		}
		if class == retry.ClassRetryable {
			o.RetryAfter, o.RetryAfterFrom, o.HasRetryAfter = proxy.RetryAfter, proxy.RetryAfterFrom, proxy.HasRetryAfter
		}
	} else if unprocessed(err) {
		// Not processed, so not applied: retried like a request never sent.
		sent, o.Err = false, &notProcessed{cause: o.Err}
		class = c.policy.Classify(o)
	} else if !permanentTransportError(err) && !refusedRequest(err) {
		class = c.policy.Classify(o)
	}
	// A dial that failed sent nothing, as an untraced call's probe cannot tell.
	o.NeverReached = !sent || dialFailed(err)
	return c.settle(nil, o, class, sent)
}

// answered judges the response an attempt got, which it had sent resends times more: its
// status, the server's wait, what its body says, the rules of writes. A function of its own,
// called once net/http's RoundTrip has returned, so that its frame (the readings of the
// rate-limit headers among it) never adds to the deepest stack of an attempt: a goroutine
// whose stack grew past 8 KiB keeps 16 KiB while its loop waits (bench/, "A waiting loop").
//
//go:noinline
func (c *call) answered(resp *http.Response, resends int) (*http.Response, retry.Outcome) {
	received := time.Now()
	o := retry.Outcome{Status: resp.StatusCode, TransportResends: resends, Ended: received}
	if err := invalidStatus(resp.StatusCode); err != nil {
		discardResponse(resp) // not a response to return: never a success
		o.Err = err
		return c.settle(nil, o, c.policy.Classify(o), true)
	}
	buf := readingBuffers.Get().(*[limitsOnStack]ratelimit.Reading)
	defer putReadings(buf)
	limits := readLimits(resp.Header, received, buf[:0])
	if len(limits) > 0 && c.gate != nil {
		c.gate.Observe(received, limits) // before the loop hears of the attempt (ratelimit.Gate.Observe)
	}
	tooLarge := resp.StatusCode == http.StatusRequestEntityTooLarge
	if tooLarge {
		o.RetryAfter, o.RetryAfterFrom, o.HasRetryAfter = serverWait(resp.Header, limits, received) // decides the class
	}
	var class retry.Class
	if c.keyed && resp.StatusCode == http.StatusConflict {
		class = retry.ClassRetryable // the original request is still in progress
	} else {
		class = c.policy.Classify(o)
	}
	if class == retry.ClassPermanent && resp.StatusCode >= 400 && adviceOf(resp.Header) == adviseRetry {
		class = retry.ClassRetryable // the server asks for a retry (x-should-retry: true)
	}
	var asked askedWait
	if resp.StatusCode >= 400 {
		var err error
		if class, asked, err = c.judgeBody(resp, class); err != nil {
			discardResponse(resp)
			o.Err = err
			return c.settle(nil, o, retry.ClassPermanent, true)
		}
	}
	if class == retry.ClassRetryable {
		if !tooLarge {
			o.RetryAfter, o.RetryAfterFrom, o.HasRetryAfter = serverWait(resp.Header, limits, received)
		}
		if asked.from != "" && (!o.HasRetryAfter || asked.wait > o.RetryAfter) {
			o.RetryAfter, o.RetryAfterFrom, o.HasRetryAfter = asked.wait, asked.from, true
		}
	} else if c.t.PreloadBody > 0 && !c.sdk && c.preloads(resp) {
		if err := preload(resp, c.t.PreloadBody); err != nil {
			o = retry.Outcome{Err: redactFor(err, c.req), TransportResends: o.TransportResends}
			return c.settle(nil, o, c.policy.Classify(o), true)
		}
	}
	return c.settle(resp, o, class, true)
}

// outerAttempt is the number of the SDK's attempt the call is, 1 for its first, for
// retry.Operation.OuterAttempt; 0 outside an SDK's loop.
func (c *call) outerAttempt() int {
	if !c.sdk {
		return 0
	}
	return int(c.sdkAttempt) + 1
}

// hedgeProbe returns the probe of hedge number hedge, set up on its first use: only that
// hedge's goroutine uses it while it runs.
func (c *call) hedgeProbe(hedge int) *sendProbe {
	p := &c.hedgeProbes[hedge-1]
	if c.traced && p.trace.GetConn == nil {
		p.init()
	}
	return p
}

// settle applies the rules of writes and bodies to an attempt whose policy class is class:
// a retryable failure of a non-repeatable request after it was sent is an unknown outcome
// (unless the server declined it, or a Reconciler resolves it), and one whose body cannot be
// sent again is permanent.
func (c *call) settle(resp *http.Response, o retry.Outcome, class retry.Class, sent bool) (*http.Response, retry.Outcome) {
	o.Class = class
	if class != retry.ClassRetryable {
		return resp, o
	}
	word := noAdvice
	if resp != nil {
		word = adviceOf(resp.Header)
	}
	// reached: the server may have processed the request (it did not decline it, by its
	// status or with x-should-retry: true). A keyed request's 409 declines this attempt only:
	// the original with the key is in progress, so the write may exist.
	declined := resp != nil && (declinedStatus(resp.StatusCode) || word == adviseRetry) &&
		!(c.keyed && resp.StatusCode == http.StatusConflict)
	reached := sent && !declined
	if reached && c.keyed {
		c.mayHaveApplied.Store(true) // the key makes a resend safe; it does not undo this one
	}
	if reached && !c.repeatable {
		res, applied := c.reconcile(resp, o.Err)
		switch {
		case res == Applied && applied != nil:
			if applied != resp {
				discardResponse(resp)
			}
			return applied, retry.Outcome{Status: applied.StatusCode, Class: retry.ClassSuccess, TransportResends: o.TransportResends}
		case res != NotApplied:
			o.Class = retry.ClassUnknown
			return resp, o
		}
	}
	if word == adviseStop {
		o.Class = retry.ClassPermanent // the server asks not to retry (x-should-retry: false)
		return resp, o
	}
	if c.body.kind == once {
		o.Err, o.Class = &notReplayable{cause: o.Err}, retry.ClassPermanent
		if sent && resp == nil && !idempotentMethod(c.req.Method) {
			// A keyed write that got no answer may have been applied, and its body cannot be
			// sent again to let the key settle it: the outcome is unknown.
			o.Class = retry.ClassUnknown
		}
	}
	return resp, o
}

// reconcile asks the Transport's Reconciler, if any, about an unknown outcome. The lookup's
// context ends when the Reconciler returns, or, when it returns a response as Applied, when
// that response's body is closed (the response may come from the lookup itself).
func (c *call) reconcile(resp *http.Response, err error) (Resolution, *http.Response) {
	if c.t.Reconcile == nil {
		return StillUnknown, nil
	}
	ctx, cancel := c.req.Context(), context.CancelFunc(func() {})
	if !c.deadline.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, c.deadline)
	}
	ctx = withLookup(ctx, c.policy) // sent through this Transport, it passes the write's breaker and budget
	lookup := c.req.Clone(ctx)
	lookup.Body, lookup.GetBody, lookup.ContentLength = nil, nil, 0
	res, applied := c.t.Reconcile(ctx, lookup, resp, err)
	if res != Applied || applied == nil {
		cancel()
		return res, nil
	}
	if applied.Body == nil {
		applied.Body = http.NoBody
	}
	applied.Body = new(releasingBody).wrap(applied.Body, endFunc(cancel))
	return res, applied
}
