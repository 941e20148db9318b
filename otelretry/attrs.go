package otelretry

import (
	"net/url"
	"strconv"

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
// by "REDACTED", the way decision records show URLs; "" when raw does not parse
// (an unparsable URL might hold anything).
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
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
