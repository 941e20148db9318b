package stdobs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

type requestIDKey struct{}

// requestIDHandler adds the request ID of the record's context, as a service's handler does.
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id, ok := ctx.Value(requestIDKey{}).(string); ok {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

// TestSlogContextHook: the hook logs with the loop's context (the handler adds its request
// ID) at the levels given: here a success at Debug, below an Info handler, so only the
// failure shows (issue 17 item 5).
func TestSlogContextHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := slog.New(requestIDHandler{slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if len(groups) == 0 && a.Key == slog.TimeKey || len(groups) == 1 && a.Key != "reason" && a.Key != "attempt" {
					return slog.Attr{}
				}
				return a
			}})})
		levels := SlogLevels{Retry: slog.LevelDebug, Success: slog.LevelDebug, Failure: slog.LevelError}
		var seen []string
		own := func(ctx context.Context, d retry.Decision) {
			seen = append(seen, ctx.Value(requestIDKey{}).(string)+" "+string(d.Reason))
		}
		p := &retry.Policy{MaxAttempts: 2, Backoff: constant1s, Timeout: 10 * time.Second,
			OnDecisionContext: ChainContext(nil, SlogContextHook(l, levels), own)}
		for _, c := range []struct {
			id       string
			statuses []int
		}{{"r-1", []int{503, 200}}, {"r-2", []int{404}}} {
			ctx := context.WithValue(context.Background(), requestIDKey{}, c.id)
			i := 0
			_, final, _ := retry.Run(ctx, p, func(context.Context) (int, retry.Outcome) {
				i++
				return i, retry.Outcome{Status: c.statuses[i-1], Method: "GET", URL: "http://api.example/x"}
			}, nil)
			final.End()
		}
		want := `{"level":"ERROR","msg":"retry stop","decision":{"reason":"non_retryable_status","attempt":1},"request_id":"r-2"}
`
		if buf.String() != want {
			t.Errorf("log\n got %s\nwant %s", buf.String(), want)
		}
		if w := []string{"r-1 retryable_status", "r-1 success", "r-2 non_retryable_status"}; !reflect.DeepEqual(seen, w) {
			t.Errorf("own hook saw %v, want %v", seen, w)
		}
	})
}

// TestSlogHookDefaultLevels: SlogHook is SlogContextHook at DefaultSlogLevels.
func TestSlogHookDefaultLevels(t *testing.T) {
	if want := (SlogLevels{Retry: slog.LevelDebug, Success: slog.LevelInfo, Failure: slog.LevelWarn}); DefaultSlogLevels != want {
		t.Errorf("DefaultSlogLevels = %+v, want %+v", DefaultSlogLevels, want)
	}
	var buf bytes.Buffer
	hook := SlogHook(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	hook(retry.Decision{Attempt: 1, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess})
	hook(retry.Decision{Attempt: 3, Reason: retry.ReasonAttemptsExhausted, Err: errors.New("x")})
	if got := bytes.Count(buf.Bytes(), []byte("level=WARN")); got != 1 || bytes.Contains(buf.Bytes(), []byte("success")) {
		t.Errorf("log %q: want the failure alone, at WARN", buf.String())
	}
}

func TestChainContext(t *testing.T) {
	if ChainContext() != nil || ChainContext(nil, nil) != nil {
		t.Error("ChainContext of no hook is not nil")
	}
	n := 0
	one := func(context.Context, retry.Decision) { n++ }
	ChainContext(nil, one)(context.Background(), retry.Decision{})
	if n != 1 {
		t.Errorf("ChainContext of one hook called it %d times", n)
	}
}
