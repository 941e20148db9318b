package stdobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

var constant1s = func() backoff.Strategy {
	s, err := backoff.New(backoff.Config{Kind: backoff.Constant, Base: time.Second, Jitter: backoff.NoJitter})
	if err != nil {
		panic(err)
	}
	return s
}()

// labels name the loops of these tests, as package retryhttp names a GET.
var labels = []slog.Attr{slog.String("method", "GET"), slog.String("url", "http://api.example/x")}

// run runs a loop whose attempts report the given statuses in order.
func run(p *retry.Policy, statuses ...int) error {
	i := 0
	_, final, err := retry.Run(context.Background(), p, retry.Operation[int]{Attempt: func(context.Context) (int, retry.Outcome) {
		i++
		return i, retry.Outcome{Status: statuses[i-1]}
	}, Attrs: labels})
	final.End()
	return err
}

// TestSlogObserverDefaultLevels: the observer logs a retry at Debug, a success at Info, a
// failure at Warn, each with the decision record under "decision", in the record's order.
func TestSlogObserverDefaultLevels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey && len(groups) == 0 {
					return slog.Attr{}
				}
				return a
			}}))
		var seen []retry.Reason
		own := func(_ context.Context, d retry.Decision) { seen = append(seen, d.Reason) }
		p := &retry.Policy{MaxAttempts: 2, Backoff: constant1s, Timeout: 10 * time.Second,
			OnDecision: retry.Observers(SlogObserver(l, DefaultSlogLevels), own)}
		if err := run(p, 503, 200); err != nil {
			t.Fatal(err)
		}
		if err := run(p, 404); !errors.Is(err, retry.ErrNonRetryableStatus) {
			t.Fatalf("err = %v", err)
		}
		want := `{"level":"DEBUG","msg":"retry","decision":{"attempt":1,"method":"GET","url":"http://api.example/x","status":503,"elapsed_ms":0,"remaining_ms":10000,"wait_ms":1000,"decision":"retry","reason":"retryable_status","outcome":"failure"}}
{"level":"INFO","msg":"retry stop","decision":{"attempt":2,"method":"GET","url":"http://api.example/x","status":200,"elapsed_ms":1000,"remaining_ms":9000,"decision":"stop","reason":"success","outcome":"success"}}
{"level":"WARN","msg":"retry stop","decision":{"attempt":1,"method":"GET","url":"http://api.example/x","status":404,"elapsed_ms":0,"remaining_ms":10000,"decision":"stop","reason":"non_retryable_status","outcome":"failure"}}
`
		if buf.String() != want {
			t.Errorf("log\n got %s\nwant %s", buf.String(), want)
		}
		if w := []retry.Reason{retry.ReasonRetryableStatus, retry.ReasonSuccess, retry.ReasonNonRetryableStatus}; !reflect.DeepEqual(seen, w) {
			t.Errorf("own hook saw %v, want %v", seen, w)
		}
	})
}

// TestLogValueMatchesRecord: Decision.LogValue (core, record.go) holds exactly the fields of
// the JSON decision record, for decisions with and without the optional fields.
func TestLogValueMatchesRecord(t *testing.T) {
	decisions := []retry.Decision{
		{Attempt: 1, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess},
		{Attempt: 3, Status: 503, Err: errors.New("x"), Elapsed: 1500 * time.Microsecond,
			Remaining: 2 * time.Second, HasDeadline: true, RetryAfter: time.Second, HasRetryAfter: true,
			Wait: time.Second, Retry: true, Reason: retry.ReasonRetryAfter, Class: retry.ClassRetryable, Nested: true},
		{Attempt: 2, Err: errors.New("reset"), Reason: retry.ReasonUnknownOutcome, Class: retry.ClassUnknown},
	}
	decisions[1].AddAttrs(slog.String("method", "POST"), slog.String("url", "https://h/p"))
	for _, d := range decisions {
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("m", "decision", d)
		var line struct{ Decision map[string]any }
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		raw, err := d.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var record map[string]any
		if err := json.Unmarshal(raw, &record); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(line.Decision, record) {
			t.Errorf("LogValue %v\n  record %v", line.Decision, record)
		}
	}
}

// TestSlogObserverDisabled: a level the handler drops costs no allocation.
func TestSlogObserverDisabled(t *testing.T) {
	observe := SlogObserver(slog.New(slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelInfo})), DefaultSlogLevels)
	d := retry.Decision{Attempt: 1, Retry: true, Reason: retry.ReasonRetryableError, Wait: time.Second}
	if n := testing.AllocsPerRun(100, func() { observe(context.Background(), d) }); n != 0 {
		t.Errorf("%v allocations a disabled retry log", n)
	}
}

var published atomic.Int64

// TestExpvar: the published variable is the metrics' snapshot in JSON, exactly.
func TestExpvar(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := new(retry.Metrics)
		p := &retry.Policy{MaxAttempts: 3, Backoff: constant1s, OnDecision: m.Observe}
		_ = run(p, 503, 503, 200)
		_ = run(p, 404)
		name := fmt.Sprintf("retry_test_expvar_%d", published.Add(1)) // process-wide: fresh per run
		if err := Publish(name, m); err != nil {
			t.Fatal(err)
		}
		want := `{"attempts":4,"throttled":0,"retries":2,"transport_resends":0,"successes_after_retry":1,"stops":{"non_retryable_status":1,"success":1},` +
			`"wait_buckets_ms":[0,10,50,100,250,500,1000,2500,5000,10000,30000],"wait_counts":[0,0,0,0,0,0,2,0,0,0,0,0],"wait_total_ms":2000}`
		if got := expvar.Get(name).String(); got != want {
			t.Errorf("expvar\n got %s\nwant %s", got, want)
		}
		err := Publish(name, m)
		if err == nil || !strings.Contains(err.Error(), `"`+name+`" is already published`) {
			t.Errorf("second Publish: %v", err)
		}
		if err := Publish("retry_test_nil", nil); err == nil {
			t.Error("Publish of nil metrics: no error")
		}
	})
}
