package otelretry

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// attemptCounter numbers the attempts of one request; [Observer.Requests] puts it in the
// request's context, [Observer.Transport] reads it.
type attemptCounter struct{ n atomic.Int64 }

type counterKey struct{}

// NumberAttempts returns ctx marked so that the attempts a RoundTripper made by
// [Observer.Transport] sends with it (or with a context derived from it, such as a retry
// loop's attempt context) are numbered from 1: use it around a retry loop you write
// yourself, as [Observer.Requests] does for a retrying RoundTripper. Each call starts a new
// count.
func NumberAttempts(ctx context.Context) context.Context {
	return context.WithValue(ctx, counterKey{}, new(attemptCounter))
}

// Requests wraps rt, a retrying RoundTripper (retryhttp's), so that the attempts it sends
// through a RoundTripper made by [Observer.Transport] are numbered: the second attempt's
// span gets http.request.resend_count 1, and so on. It changes nothing else; the request it
// passes on is a shallow copy with one more context value. A nil rt means
// http.DefaultTransport. Safe for concurrent use.
func (o *Observer) Requests(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return rt.RoundTrip(req.WithContext(NumberAttempts(req.Context())))
	})
}

// Transport wraps base (nil: http.DefaultTransport), the RoundTripper a retrying transport
// sends each attempt through, so that every attempt:
//   - is a client span (SpanKind client) named after the method ("GET"; "HTTP" for a method
//     the conventions do not know), child of the span in the attempt's context, that is the
//     caller's span; with http.request.method, url.full (redacted: no user information, query
//     values replaced), server.address, server.port, http.response.status_code, and
//     error.type with an error status for a transport error or a status of 400 or more;
//     when the request went through [Observer.Requests], also retry.attempt and, from the
//     second attempt on, http.request.resend_count (the number of attempts before it);
//   - adds its duration, from the call of base until its response headers or its error, to
//     the retry.attempt.duration histogram.
//
// The span's context is injected into a copy of the request's headers with the observer's
// propagator, so the server's span joins the trace. No header value, body or query value
// becomes an attribute. Safe for concurrent use.
func (o *Observer) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		ctx := req.Context()
		m := method(req.Method)
		name := m.Value.AsString()
		if name == "_OTHER" {
			name = "HTTP"
		}
		attrs := make([]attribute.KeyValue, 0, 8)
		attrs = append(attrs, m, semconv.URLFull(redactURL(req.URL.String())), semconv.ServerAddress(req.URL.Hostname()))
		if port := portOf(req); port != 0 {
			attrs = append(attrs, semconv.ServerPort(port))
		}
		if c, ok := ctx.Value(counterKey{}).(*attemptCounter); ok {
			n := c.n.Add(1)
			attrs = append(attrs, attribute.Int64("retry.attempt", n))
			if n > 1 {
				attrs = append(attrs, semconv.HTTPRequestResendCount(int(n-1)))
			}
		}
		ctx, span := o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		defer span.End()
		out := req.Clone(ctx)
		o.propagator.Inject(ctx, propagation.HeaderCarrier(out.Header))

		start := time.Now()
		resp, err := base.RoundTrip(out)
		status := 0
		if err == nil {
			status = resp.StatusCode
		}
		o.recordAttempt(ctx, time.Since(start), req.Method, req.URL.String(), status)
		switch {
		case err != nil:
			span.SetAttributes(semconv.ErrorType(err))
			span.SetStatus(codes.Error, redactError(err))
		case status >= 400:
			span.SetAttributes(semconv.HTTPResponseStatusCode(status), semconv.ErrorTypeKey.String(strconv.Itoa(status)))
			span.SetStatus(codes.Error, "")
		default:
			span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		}
		return resp, err
	})
}

// portOf returns the request's port: the URL's, or the scheme's default; 0 when unknown.
func portOf(req *http.Request) int {
	if p := req.URL.Port(); p != "" {
		n, _ := strconv.Atoi(p)
		return n
	}
	switch req.URL.Scheme {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
