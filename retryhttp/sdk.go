package retryhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/retrykit/retry"
)

// sdkRetryCountHeader is the header that the SDKs Stainless generates (openai-go,
// anthropic-sdk-go and their siblings in other languages) send on every attempt of their own
// retry loop: "0" on the first, n on the n-th retry. A request that carries it is retried by
// the SDK already.
const sdkRetryCountHeader = "X-Stainless-Retry-Count"

// DefaultSDKMaxRetries is the number of retries the Stainless SDKs' own loop makes by
// default (openai-go's and anthropic-sdk-go's option.WithMaxRetries): 2.
const DefaultSDKMaxRetries = 2

// Record fields of a request from an SDK's own loop. The names are pinned: keyInnerRetries
// is package retrygrpc's too.
const (
	keyInnerRetries = "inner_retries"
	keySDKAttempt   = "sdk_attempt"
)

// underSDK sets the call up for a request from an SDK's own retry loop (the SDK's attempt
// count in X-Stainless-Retry-Count, 0 for its first): the loop makes one attempt per SDK
// attempt, numbered as the SDK numbers it (retry.Operation.OuterAttempt), under the
// policy's attempt limit cut to the SDK's, so that 3 attempts of ours under the SDK's 3 do
// not make 9 requests, and the loop's decision after it is the SDK's: see handBack.
func (c *call) underSDK() {
	v := c.req.Header[sdkRetryCountHeader]
	if len(v) == 0 {
		return
	}
	n, valid := parseUint(strings.Trim(v[0], " \t"))
	if !valid || n > 1<<20 {
		n = 0
	}
	c.sdk, c.sdkAttempt = true, int32(n)
	limit := 1 + c.t.sdkMaxRetries()
	if m := c.policy.MaxAttempts; m != 0 && m != retry.NoLimit && m < limit {
		limit = m
	} else if m == 0 && retry.DefaultMaxAttempts < limit {
		limit = retry.DefaultMaxAttempts
	}
	if c.policy != &c.own {
		c.own = *c.policy
		c.policy = &c.own
	}
	c.own.MaxAttempts = limit
	if c.own.BreakerWait == 0 {
		// A breaker that admits a trial call soon lets the SDK come back then (a retry left
		// to the outer loop, retry.Operation.OuterAttempt), as its own retries would have:
		// within what the SDK alone would spend retrying, and as much again, since the
		// breaker's open time ends after the service is back, by up to that much.
		c.own.BreakerWait = 2 * sdkBackoffLeft(int(c.sdkAttempt), c.t.sdkMaxRetries())
	}
}

// sdkBackoffLeft is the longest the Stainless SDKs' own loop waits in all after its attempt
// number attempt (0 for its first), with maxRetries retries: 0.5 s × 2^n before retry n+1,
// at most 8 s each (openai-go's and anthropic-sdk-go's requestconfig).
func sdkBackoffLeft(attempt, maxRetries int) time.Duration {
	var total time.Duration
	for n := attempt; n < maxRetries && n < 32; n++ {
		total += min(500*time.Millisecond<<n, 8*time.Second)
	}
	return total
}

// sdkMaxRetries is SDKMaxRetries in force.
func (t *Transport) sdkMaxRetries() int {
	if t.SDKMaxRetries == 0 {
		return DefaultSDKMaxRetries
	}
	return max(t.SDKMaxRetries, 0)
}

// handBack returns what RoundTrip gives an SDK's loop after the loop ended with resp and
// err: the SDK decides its retries from a response's status and headers, and takes an
// error for a connection error, which it retries blindly, so the loop's decision travels in
// headers the SDKs obey. A decision to retry (retry.ErrOuterRetry) hands the response back
// with X-Should-Retry: true, and Retry-After-Ms when the server or the rate gate asks for a
// wait, so that the SDK's next attempt comes then and not after its own backoff. A stop
// hands the response back with X-Should-Retry: false; a stop without a response, a refusal
// before any attempt (a breaker OPEN, a rate gate with no time left), gets one made here
// (refusalResponse). The error of an attempt that broke without a response is the SDK's
// to judge, and goes to it as it is.
func (c *call) handBack(resp *http.Response, err error) (*http.Response, error) {
	var stop *retry.Error
	isStop := errors.As(err, &stop)
	if resp == nil {
		switch {
		case errors.Is(err, retry.ErrOuterRetry) && c.loop.Decision().NoAttempt:
			return c.deferralResponse(), nil
		case isStop && c.req.Context().Err() == nil && (c.loop.Decision().NoAttempt || ownTimeout(stop)):
			return c.refusalResponse(stop), nil
		}
		return nil, err
	}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	switch {
	case errors.Is(err, retry.ErrOuterRetry):
		resp.Header.Set("X-Should-Retry", "true")
		if d := c.loop.Decision(); d.Wait > 0 {
			setWait(resp.Header, d.Wait)
		}
	case isStop:
		resp.Header.Set("X-Should-Retry", "false")
		resp.Request = withStop(resp.Request, c.req, stop)
	}
	return resp, nil
}

// ownTimeout reports whether the loop's own deadline (Policy.Timeout, AttemptTimeout) ended
// the attempt of stop, the caller's context being alive: the SDK would take the error for a
// connection error and send the request again, which it would not have done alone.
func ownTimeout(stop *retry.Error) bool {
	return errors.Is(stop, context.DeadlineExceeded)
}

// setWait sets Retry-After-Ms, the wait the SDKs read first, to d rounded up to the
// microsecond: never shorter than d (a wait of a few nanoseconds written "0" would bring the
// SDK back before the time it was told of).
func setWait(h http.Header, d time.Duration) {
	us := (d + time.Microsecond - 1) / time.Microsecond * time.Microsecond
	h.Set("Retry-After-Ms", strconv.FormatFloat(float64(us)/float64(time.Millisecond), 'f', -1, 64))
}

// refusalResponse is the answer an SDK's loop gets for a loop that stopped before sending
// anything, or whose own deadline cut its attempt: status 429 for the rate gate's stop, 504
// for the loop's deadline, 503 for the others; X-Should-Retry:
// false, which ends the SDK's loop at once; Retry-After-Ms when the stop says when to come
// back (the breaker's trial call, the rate gate's time); and a JSON error body, in the shape
// both OpenAI's and Anthropic's SDKs read, whose type is the stop's reason. The SDK's
// caller gets the SDK's own error type; [StopOf] reads the stop back from it.
func (c *call) refusalResponse(stop *retry.Error) *http.Response {
	status := http.StatusServiceUnavailable
	switch {
	case stop.Reason == retry.ReasonRateLimitExceedsDeadline || stop.Reason == retry.ReasonRetryAfterExceedsMaxWait:
		status = http.StatusTooManyRequests
	case ownTimeout(stop):
		status = http.StatusGatewayTimeout
	}
	h := http.Header{"Content-Type": {"application/json"}, "X-Should-Retry": {"false"}}
	if wait, ok := stop.RetryAfter(); ok && wait > 0 {
		setWait(h, wait)
	}
	return made(status, h, refusalError{Type: string(stop.Reason), Code: string(stop.Reason),
		Message: RedactError(stop).Error()}, withStop(nil, c.req, stop))
}

// deferralResponse is the answer an SDK's loop gets for a loop that left it a retry before
// any attempt: a breaker that refused it admits a trial call soon, within the SDK's own
// backoff (see underSDK), or is deciding on one. Status 503, X-Should-Retry: true,
// Retry-After-Ms the breaker's time (spread; none while a trial call is in flight: the SDK's
// own backoff), and a JSON error body of type circuit_open: the SDK comes back when the
// service may be back rather than give up.
func (c *call) deferralResponse() *http.Response {
	d := c.loop.Decision()
	h := http.Header{"Content-Type": {"application/json"}, "X-Should-Retry": {"true"}}
	if d.Wait > 0 { // else the SDK's own backoff: a trial call in flight decides meanwhile
		setWait(h, d.Wait)
	}
	return made(http.StatusServiceUnavailable, h, refusalError{Type: string(retry.ReasonCircuitOpen),
		Code: string(retry.ReasonCircuitOpen), Message: "retry: circuit_open: trial call in " + d.RetryAfter.String()}, c.req)
}

// made is a response made here for an SDK's loop, with header h and the JSON error body e.
func made(status int, h http.Header, e refusalError, req *http.Request) *http.Response {
	body, _ := json.Marshal(refusalBody{Type: "error", Error: e})
	return &http.Response{Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}
}

// refusalBody is a refusal's JSON body: {"type":"error","error":{...}} as Anthropic writes
// its errors, whose "error" object has the fields OpenAI's errors have.
type refusalBody struct {
	Type  string       `json:"type"`
	Error refusalError `json:"error"`
}

type refusalError struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// stopKey is the context key under which a response handed to an SDK's loop carries the
// loop's stop, for StopOf.
type stopKey struct{}

// withStop returns a copy of the request of a response handed back to an SDK's loop
// (sent, or the call's own request when nil) whose context carries stop.
func withStop(sent, req *http.Request, stop *retry.Error) *http.Request {
	if sent == nil {
		sent = req
	}
	return sent.WithContext(context.WithValue(sent.Context(), stopKey{}, stop))
}

// StopOf returns the loop's stop behind err: the *retry.Error in err's chain, or, for an
// error of an SDK's own retry loop over a Transport (openai-go's *openai.Error,
// anthropic-sdk-go's *anthropic.Error: any error in the chain that is a struct, or a
// pointer to one, with a field of type *http.Response), the stop of the loop that answered
// the SDK's last attempt: its reason, attempts and RetryAfter. ok is false when err holds
// neither. It reads the SDK's error by reflection, without importing the SDK; it is meant
// for error paths, not hot ones.
func StopOf(err error) (stop *retry.Error, ok bool) {
	if errors.As(err, &stop) {
		return stop, true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if resp := responseIn(e); resp != nil && resp.Request != nil {
			if s, found := resp.Request.Context().Value(stopKey{}).(*retry.Error); found {
				return s, true
			}
		}
	}
	return nil, false
}

// responseIn returns the *http.Response in a field of e, a struct or a pointer to one.
func responseIn(e error) *http.Response {
	v := reflect.ValueOf(e)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	want := reflect.TypeFor[*http.Response]()
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == want && v.Type().Field(i).IsExported() {
			return f.Interface().(*http.Response)
		}
	}
	return nil
}
