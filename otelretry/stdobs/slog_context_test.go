package stdobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

type requestIDKey struct{}

// capture is a slog.Handler that keeps, for each record at min or above, its level, message,
// the decision's reason and the request ID of the record's context.
type capture struct {
	min  slog.Level
	seen *[]string
}

func (h capture) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }
func (h capture) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h capture) WithGroup(string) slog.Handler                { return h }

func (h capture) Handle(ctx context.Context, r slog.Record) error {
	reason := ""
	r.Attrs(func(a slog.Attr) bool {
		if d, ok := a.Value.Any().(retry.Decision); ok {
			reason = string(d.Reason)
		}
		return true
	})
	*h.seen = append(*h.seen, fmt.Sprintf("%v %s %s %v", r.Level, r.Message, reason, ctx.Value(requestIDKey{})))
	return nil
}

// TestSlogObserver: the observer logs with the loop's context (the handler sees its request
// ID) at the levels given: here a success at Debug, below an Info handler, so only the
// failure shows (issue 17 item 5).
func TestSlogObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged []string
		l := slog.New(capture{min: slog.LevelInfo, seen: &logged})
		levels := SlogLevels{Retry: slog.LevelDebug, Success: slog.LevelDebug, Failure: slog.LevelError}
		var seen []string
		own := func(ctx context.Context, d retry.Decision) {
			seen = append(seen, ctx.Value(requestIDKey{}).(string)+" "+string(d.Reason))
		}
		p := &retry.Policy{MaxAttempts: 2, Backoff: constant1s, Timeout: 10 * time.Second,
			OnDecision: retry.Observers(nil, SlogObserver(l, levels), own)}
		for _, c := range []struct {
			id       string
			statuses []int
		}{{"r-1", []int{503, 200}}, {"r-2", []int{404}}} {
			ctx := context.WithValue(context.Background(), requestIDKey{}, c.id)
			i := 0
			_, final, _ := retry.Run(ctx, p, retry.Operation[int]{Attempt: func(context.Context) (int, retry.Outcome) {
				i++
				return i, retry.Outcome{Status: c.statuses[i-1]}
			}, Attrs: labels})
			final.End()
		}
		if w := []string{"ERROR retry stop non_retryable_status r-2"}; !reflect.DeepEqual(logged, w) {
			t.Errorf("logged %q, want %q", logged, w)
		}
		if w := []string{"r-1 retryable_status", "r-1 success", "r-2 non_retryable_status"}; !reflect.DeepEqual(seen, w) {
			t.Errorf("own hook saw %v, want %v", seen, w)
		}
	})
}

// TestDefaultSlogLevels: at DefaultSlogLevels an observer under a Warn handler logs the
// failure alone.
func TestDefaultSlogLevels(t *testing.T) {
	if want := (SlogLevels{Retry: slog.LevelDebug, Success: slog.LevelInfo, Failure: slog.LevelWarn}); DefaultSlogLevels != want {
		t.Errorf("DefaultSlogLevels = %+v, want %+v", DefaultSlogLevels, want)
	}
	var buf bytes.Buffer
	observe := SlogObserver(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})), DefaultSlogLevels)
	observe(context.Background(), retry.Decision{Attempt: 1, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess})
	observe(context.Background(), retry.Decision{Attempt: 3, Reason: retry.ReasonAttemptsExhausted, Err: errors.New("x")})
	if got := bytes.Count(buf.Bytes(), []byte("level=WARN")); got != 1 || bytes.Contains(buf.Bytes(), []byte("success")) {
		t.Errorf("log %q: want the failure alone, at WARN", buf.String())
	}
}
