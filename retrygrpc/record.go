package retrygrpc

import (
	"log/slog"

	"google.golang.org/grpc/codes"
)

// The decision record's fields that this package adds. Their names are pinned: logs and
// package otelretry read them.
const (
	// keyMethod labels every decision of a call's loop with the full method
	// ("/pkg.Service/Method"), a stop before any attempt included.
	keyMethod = "method"
	// keyGRPCCode is an attempt's status code, by its canonical name (CodeName).
	keyGRPCCode = "grpc_code"
	// keyPassthrough marks the opening of a client-streaming or bidirectional stream.
	keyPassthrough = "passthrough"
	// keyInnerRetries marks a call that grpc-go retries by itself (a service config's
	// retryPolicy).
	keyInnerRetries = "inner_retries"
	// keyPushback is the value of a grpc-retry-pushback-ms trailer that asks not to retry,
	// as sent ("-1"; several values joined by ","; "malformed" for one that is not a number).
	keyPushback = "grpc_retry_pushback_ms"
	// keyRetryInfoDelay says why a google.rpc.RetryInfo detail asks not to retry: its
	// retry_delay is "negative" or "invalid".
	keyRetryInfoDelay = "retry_info_delay"
	// keyCommitted marks the end of a server stream that had delivered its header: never
	// retried, whatever its code, since the caller has its messages.
	keyCommitted = "committed"
)

// recordAttrs returns the fields an attempt that ended with code adds to its decision
// record (Outcome.Attrs): grpc_code, then those of more whose key is set, then
// inner_retries when true. They are kept in st, the attempt's state, so an attempt
// allocates nothing for them; the loop copies them into the decision before the next
// attempt rewrites them.
func (c *call) recordAttrs(st *attemptState, code codes.Code, more ...slog.Attr) []slog.Attr {
	attrs := append(st.attrs[:0], slog.String(keyGRPCCode, CodeName(code)))
	for _, a := range more {
		if a.Key != "" {
			attrs = append(attrs, a)
		}
	}
	if c.inner.Load() {
		attrs = append(attrs, slog.Bool(keyInnerRetries, true))
	}
	return attrs
}
