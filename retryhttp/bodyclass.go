package retryhttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/retrykit/retry"
)

// BodyVerdict is what [Transport.ClassifyBody] says of a response from the start of its
// body. The zero BodyVerdict changes nothing.
type BodyVerdict struct {
	// Class, when not retry.ClassUnspecified, is the response's class in place of the one
	// the policy gave it: retry.ClassPermanent stops the loop with the response,
	// retry.ClassRetryable retries it under the rules for writes (see the package
	// documentation), retry.ClassSuccess returns it as a success, retry.ClassUnknown stops
	// with an unknown outcome.
	Class retry.Class
	// RetryAfter, when positive, is the wait the body asks for before a retry, counted
	// from when the response arrived: the loop waits the longest of it and the headers'
	// waits, and records name it "classify-body". Zero asks for nothing.
	RetryAfter time.Duration
}

// The sources of a server's wait read from a body, as retry_after_from names them.
const (
	fromRetryInfo    = "retry-info"    // google.rpc.RetryInfo's retryDelay, as package retrygrpc names it
	fromClassifyBody = "classify-body" // Transport.ClassifyBody's BodyVerdict.RetryAfter
)

// askedWait is a wait a body asks for, and its source; from is "" when it asks for none.
type askedWait struct {
	wait time.Duration
	from string
}

// judgeBody returns the class of a response of status 400 or more, which the policy (and
// x-should-retry) made class, from the start of its body, read when that may change the
// decision (readPrefix), and the wait the body asks for:
//   - a retryable 4xx whose body is JSON (or of no declared type) is read for the signals
//     of bodySignalOf: a billing or spend-limit error makes it permanent, unless
//     x-should-retry: true says otherwise; a google.rpc.RetryInfo is a server's wait;
//   - then Transport.ClassifyBody, when set, judges every such response, and has the last
//     word on the class; of the waits, the longest is kept.
//
// An invalid BodyVerdict is an error, which fails the attempt.
func (c *call) judgeBody(resp *http.Response, class retry.Class) (retry.Class, askedWait, error) {
	known := class == retry.ClassRetryable && resp.StatusCode < 500 && jsonBody(resp.Header)
	hook := c.t.ClassifyBody
	if !known && hook == nil {
		return class, askedWait{}, nil
	}
	prefix := readPrefix(resp, maxBodyPrefix)
	var asked askedWait
	if known {
		s := bodySignalOf(prefix)
		if s.permanent && adviceOf(resp.Header) != adviseRetry {
			class = retry.ClassPermanent
		}
		if s.hasWait {
			asked = askedWait{s.wait, fromRetryInfo}
		}
	}
	if hook != nil {
		v := hook(resp.StatusCode, resp.Header, prefix)
		if v.Class > retry.ClassUnknown || v.RetryAfter < 0 {
			return class, asked, fmt.Errorf("retryhttp: Transport.ClassifyBody returned Class %v and RetryAfter %v for status %d: "+
				"want a Class from retry.ClassUnspecified to retry.ClassUnknown and a RetryAfter of 0 (none) or more",
				v.Class, v.RetryAfter, resp.StatusCode)
		}
		if v.Class != retry.ClassUnspecified {
			class = v.Class
		}
		if v.RetryAfter > 0 && (asked.from == "" || v.RetryAfter > asked.wait) {
			asked = askedWait{v.RetryAfter, fromClassifyBody}
		}
	}
	return class, asked, nil
}

// jsonBody reports whether a response with header h has a JSON body, as its Content-Type
// says (application/json, or a type ending in +json such as application/problem+json), or
// one of no declared type.
func jsonBody(h http.Header) bool {
	v := h["Content-Type"]
	if len(v) == 0 {
		return true
	}
	media, _, _ := strings.Cut(v[0], ";")
	media = strings.Trim(media, " \t")
	return strings.EqualFold(media, "application/json") ||
		len(media) > len("+json") && strings.EqualFold(media[len(media)-len("+json"):], "+json")
}

// bodySignal is what the body of an error response says by the conventions of the APIs
// bodySignalOf knows.
type bodySignal struct {
	permanent bool // no retry helps: the account is out of credit, or over a spend limit
	wait      time.Duration
	hasWait   bool
}

// permanentErrors are the error types and codes that say the account is out of credit or
// over a spend limit, which no retry fixes until somebody acts or the month ends:
//   - OpenAI's, on a 429, in error.type or error.code
//     (https://platform.openai.com/docs/guides/error-codes): insufficient_quota, and the
//     codes that name its cause;
//   - Anthropic's (https://docs.anthropic.com/en/api/errors): billing_error, error.type of
//     a 402, and enforced_spend_limit_reached, error.details.error_code of the 429 that
//     answers an organization over its monthly spend cap, which carries no retry-after.
var permanentErrors = []string{
	"insufficient_quota", "credit_balance_exhausted", "organization_spend_limit_exceeded",
	"project_spend_limit_exceeded", "organization_usage_limit_exceeded",
	"billing_error", "enforced_spend_limit_reached",
}

// retryInfoType is the type URL of google.rpc.RetryInfo in a JSON error's details
// (https://cloud.google.com/apis/design/errors), which Google's APIs, Gemini's among them,
// send on a 429 RESOURCE_EXHAUSTED with no wait header.
const retryInfoType = "type.googleapis.com/google.rpc.RetryInfo"

// errorBody is the JSON error shape of OpenAI, Anthropic and Google:
// {"error":{"type":...,"code":...,"details":...}}, where code is a string (OpenAI) or a
// number (Google), and details an object (Anthropic's {"error_code":...}) or a list
// (Google's [{"@type":...,"retryDelay":"1.84s"}]).
type errorBody struct {
	Error struct {
		Type    json.RawMessage `json:"type"`
		Code    json.RawMessage `json:"code"`
		Details json.RawMessage `json:"details"`
	} `json:"error"`
}

// bodySignalOf reads the JSON error body (or the start of one) prefix for the signals of
// permanentErrors and google.rpc.RetryInfo; Google's list form ([{"error":...}], as Vertex
// AI answers) too. A body that is not such JSON, whole within prefix, says nothing.
func bodySignalOf(prefix []byte) (s bodySignal) {
	var b errorBody
	if p := bytes.TrimLeft(prefix, " \t\r\n"); len(p) > 0 && p[0] == '[' {
		var list []errorBody
		if json.Unmarshal(p, &list) != nil || len(list) == 0 {
			return s
		}
		b = list[0]
	} else if json.Unmarshal(p, &b) != nil {
		return s
	}
	e := &b.Error
	s.permanent = slices.Contains(permanentErrors, jsonString(e.Type)) || slices.Contains(permanentErrors, jsonString(e.Code))
	switch d := bytes.TrimLeft(e.Details, " \t\r\n"); {
	case len(d) > 0 && d[0] == '{':
		var anthropic struct {
			ErrorCode string `json:"error_code"`
		}
		if json.Unmarshal(d, &anthropic) == nil && slices.Contains(permanentErrors, anthropic.ErrorCode) {
			s.permanent = true
		}
	case len(d) > 0 && d[0] == '[':
		var google []struct {
			Type       string          `json:"@type"`
			RetryDelay json.RawMessage `json:"retryDelay"`
		}
		if json.Unmarshal(d, &google) != nil {
			break
		}
		for _, detail := range google {
			if detail.Type == retryInfoType {
				if w, ok := parseProtoDuration(jsonString(detail.RetryDelay)); ok && (!s.hasWait || w > s.wait) {
					s.wait, s.hasWait = w, true
				}
			}
		}
	}
	return s
}

// jsonString returns the JSON string raw holds, or "" when it holds something else.
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// parseProtoDuration parses a non-negative google.protobuf.Duration as JSON writes it
// (https://protobuf.dev/programming-guides/json/): seconds, with up to 9 fractional digits,
// followed by "s" ("1.84s", "30s"). A sign or anything else is malformed; a wait too long for
// a time.Duration saturates.
func parseProtoDuration(v string) (time.Duration, bool) {
	number, isSeconds := strings.CutSuffix(v, "s")
	whole, frac, hasFrac := strings.Cut(number, ".")
	if !isSeconds || !allDigits(whole) || hasFrac && (!allDigits(frac) || len(frac) > 9) {
		return 0, false
	}
	return scaled(whole, frac, uint64(time.Second)), true
}
