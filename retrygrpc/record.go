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
)

// recordAttrs returns the fields an attempt that ended with code adds to its decision
// record (Outcome.Attrs): grpc_code, then passthrough and inner_retries when true. They are
// kept in c, so an attempt allocates nothing for them; the loop copies them into the
// decision before the next attempt rewrites them.
func (c *call) recordAttrs(code codes.Code, passthrough bool) []slog.Attr {
	attrs := append(c.attrs[:0], slog.String(keyGRPCCode, CodeName(code)))
	if passthrough {
		attrs = append(attrs, slog.Bool(keyPassthrough, true))
	}
	if c.inner {
		attrs = append(attrs, slog.Bool(keyInnerRetries, true))
	}
	return attrs
}
