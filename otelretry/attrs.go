package otelretry

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/retrykit/retry"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Attribute keys of this package that OpenTelemetry's semantic conventions do not define.
const (
	// ReasonKey holds the decision's reason, one of the stable strings of retry.Reason.
	ReasonKey = attribute.Key("retry.reason")
	// OutcomeKey holds "success", "failure" or "unknown" (retry.Decision.Outcome).
	OutcomeKey = attribute.Key("retry.outcome")
	// StatusClassKey holds the HTTP status class: "1xx" to "5xx", "none" when the attempt
	// got no response, or "other".
	StatusClassKey = attribute.Key("retry.status_class")
	// HedgeWonKey holds, on retry.hedges, whether the hedge's success was the answer its
	// loop used.
	HedgeWonKey = attribute.Key("retry.hedge.won")
)

// method returns the semantic conventions' http.request.method for m: the method itself when
// it is one of the conventions' known methods, "_OTHER" otherwise, so that a client sending
// arbitrary methods cannot blow up the number of time series.
func method(m string) attribute.KeyValue {
	switch m {
	case "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY":
		return semconv.HTTPRequestMethodKey.String(m)
	}
	return semconv.HTTPRequestMethodOther
}

// grpcMethod reports whether d is the record of a gRPC call (package retrygrpc's: it has a
// grpc_code, or a method that is a full gRPC method, "/pkg.Service/Method", as a stop before
// any attempt has), and returns its method ("" when the record has none). An HTTP method is
// a token, which never holds "/" (RFC 9110 section 9.1).
func grpcMethod(d retry.Decision) (string, bool) {
	m := stringAttr(d, "method")
	_, hasCode := d.Attr("grpc_code")
	return m, hasCode || strings.HasPrefix(m, "/")
}

// rpcMethod returns the semantic conventions' rpc.method of a full gRPC method:
// "pkg.Service/Method" for "/pkg.Service/Method", and "_OTHER" for a name not of that form
// (ok false), so that a caller passing arbitrary names cannot blow up the number of time
// series.
func rpcMethod(full string) (kv attribute.KeyValue, ok bool) {
	name, found := strings.CutPrefix(full, "/")
	service, method, two := strings.Cut(name, "/")
	if !found || !two || service == "" || method == "" || strings.Contains(method, "/") {
		return semconv.RPCMethod("_OTHER"), false
	}
	return semconv.RPCMethod(name), true
}

// statusClass returns "none" for status 0 (no response), "1xx" to "5xx" for a status from
// 100 to 599 and "other" for the rest.
func statusClass(status int) attribute.KeyValue {
	if status == 0 {
		return StatusClassKey.String("none")
	}
	if status >= 100 && status < 600 {
		return StatusClassKey.String(strconv.Itoa(status/100) + "xx")
	}
	return StatusClassKey.String("other")
}

// host returns the host name of the URL raw, "" when it has none or does not parse.
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// redactURL returns raw without its user information and with every query value replaced
// by "REDACTED", the way decision records show URLs; "" when raw does not parse (an
// unparsable URL might hold anything). Redacting the result again gives the same text.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	r := redact(u)
	if u.Host == "" {
		// Without a host, dropping the user information can leave text that reads back as
		// another URL: "//@//" would give "//", an empty authority, which redacts to "".
		// Only a redaction that reads back as itself is kept.
		again, err := url.Parse(r)
		if err != nil || redact(again) != r {
			return ""
		}
	}
	return r
}

// redact removes u's user information and fragment and replaces every query value by
// "REDACTED", and returns u's text.
func redact(u *url.URL) string {
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
