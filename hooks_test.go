package retry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"
)

// requestIDKey is a context key a service keeps its request ID under.
type requestIDKey struct{}

// requestIDHandler is a slog.Handler that adds the request ID of the record's context, as a
// service's own handler would.
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id, ok := ctx.Value(requestIDKey{}).(string); ok {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

// OnDecision gets every decision with the loop's context (not an attempt's); Observers calls
// each observer in turn, and LogDecisions logs with that context too, so a handler can add
// the request ID (issue 17 item 5, issue 28: one hook with adapters).
func TestOnDecisionGetsLoopContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.WithValue(context.Background(), requestIDKey{}, "r-42")
		var order []string
		var buf bytes.Buffer
		logger := slog.New(requestIDHandler{slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if len(groups) == 0 && a.Key == slog.TimeKey || len(groups) == 1 && a.Key != "reason" {
					return slog.Attr{}
				}
				return a
			}})})
		p := &Policy{MaxAttempts: 2, Backoff: constantBackoff(t, time.Second), Timeout: 10 * time.Second,
			OnDecision: Observers(
				func(_ context.Context, d Decision) { order = append(order, "first "+string(d.Reason)) },
				nil,
				func(hookCtx context.Context, d Decision) {
					if hookCtx != ctx {
						t.Errorf("hook got another context than the loop's")
					}
					order = append(order, "second "+string(d.Reason)+" "+hookCtx.Value(requestIDKey{}).(string))
				},
				LogDecisions(logger)),
		}
		err := Do(ctx, p, func(context.Context) error { return errors.New("boom") })
		if !errors.Is(err, ErrAttemptsExhausted) {
			t.Fatalf("err = %v", err)
		}
		want := []string{"first retryable_error", "second retryable_error r-42", "first attempts_exhausted", "second attempts_exhausted r-42"}
		if len(order) != len(want) {
			t.Fatalf("hooks called %v, want %v", order, want)
		}
		for i := range want {
			if order[i] != want[i] {
				t.Errorf("call %d: %q, want %q", i, order[i], want[i])
			}
		}
		wantLog := `{"level":"DEBUG","msg":"retry","decision":{"reason":"retryable_error"},"request_id":"r-42"}
{"level":"INFO","msg":"retry stop","decision":{"reason":"attempts_exhausted"},"request_id":"r-42"}
`
		if buf.String() != wantLog {
			t.Errorf("log\n got %s\nwant %s", buf.String(), wantLog)
		}
	})
}

// Observers of nothing, or of nils only, is nil: the loop then skips reporting; of one, that
// one itself. LogDecisions of a nil logger is nil.
func TestObserversOfNothing(t *testing.T) {
	if Observers() != nil || Observers(nil, nil) != nil || LogDecisions(nil) != nil {
		t.Error("an observer of nothing is not nil")
	}
	calls := 0
	one := Observers(nil, func(context.Context, Decision) { calls++ })
	one(context.Background(), Decision{})
	if calls != 1 {
		t.Errorf("Observers(nil, f) called f %d times", calls)
	}
}

// A stop decided without any attempt (the caller gave up first) reaches OnDecision with the
// caller's context too.
func TestOnDecisionStopWithoutAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), requestIDKey{}, "r-7"))
	cancel()
	var got []string
	p := &Policy{OnDecision: func(ctx context.Context, d Decision) {
		got = append(got, string(d.Reason)+" "+ctx.Value(requestIDKey{}).(string))
	}}
	err := Do(ctx, p, func(context.Context) error { t.Error("attempt ran"); return nil })
	if !errors.Is(err, ErrCanceled) || len(got) != 1 || got[0] != "canceled r-7" {
		t.Errorf("err = %v, hook saw %v; want canceled, [canceled r-7]", err, got)
	}
}

// A success is reported too.
func TestOnDecisionSeesSuccess(t *testing.T) {
	var got []Reason
	p := &Policy{OnDecision: func(_ context.Context, d Decision) { got = append(got, d.Reason) }}
	if err := Do(context.Background(), p, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != ReasonSuccess {
		t.Errorf("hook saw %v, want [success]", got)
	}
}
