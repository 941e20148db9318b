// Package requestlabel carries the method and redacted URL of a request to the retry loop
// that sends it, through the loop's context, so that a decision made before any attempt (a
// circuit breaker's refusal, a caller that gave up before the first attempt) names the
// request as every other decision of the loop does (issue 17 item 1). Package retryhttp sets
// it; package retry reads it for those decisions only.
package requestlabel

import "context"

type key struct{}

type label struct{ method, url string }

// With returns ctx carrying method and url (already redacted).
func With(ctx context.Context, method, url string) context.Context {
	return context.WithValue(ctx, key{}, label{method, url})
}

// From returns the method and URL that With put in ctx, or empty strings.
func From(ctx context.Context) (method, url string) {
	l, _ := ctx.Value(key{}).(label)
	return l.method, l.url
}
