package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/retrykit/retry/retryhttp"
)

// RequestIDHeader carries the caller's request ID; the service makes one when it is absent
// or not of the allowed form.
const RequestIDHeader = "X-Request-ID"

type requestIDKey struct{}

// WithRequestID returns ctx carrying id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request ID of ctx; "" when none.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// RequestIDs is middleware that puts the request's ID in its context: the X-Request-ID
// header when it is 1 to 64 letters, digits, '-' or '_', a fresh random one otherwise.
func RequestIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !validID(id) {
			id = retryhttp.NewIdempotencyKey()
		}
		w.Header().Set(RequestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(WithRequestID(r.Context(), id)))
	})
}

func validID(id string) bool {
	if len(id) < 1 || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// NewLogger returns a JSON logger writing to w at level that adds the request ID of each
// record's context as "request_id": the retry decisions logged with the loop's context
// (stdobs.SlogObserver) carry it too.
func NewLogger(w io.Writer, level slog.Level, replace func([]string, slog.Attr) slog.Attr) *slog.Logger {
	return slog.New(requestIDHandler{slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: replace})})
}

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
