package retry

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// resendBudget is a countingBudget that also counts re-sends, and notes the order of calls.
type resendBudget struct {
	countingBudget
	calls []string
}

func (b *resendBudget) AllowRetry() bool {
	b.calls = append(b.calls, "allow")
	return b.countingBudget.AllowRetry()
}

func (b *resendBudget) Done(retry bool, r Result) {
	b.calls = append(b.calls, "done")
	b.countingBudget.Done(retry, r)
}

func (b *resendBudget) Resent(n int) {
	b.calls = append(b.calls, "resent "+string(rune('0'+n)))
}

// The exchanges a transport re-sent within an attempt count in the metrics and in a budget
// that counts re-sends (before it is asked about the next retry), and never reach the
// breaker: a breaker hears one result per attempt (issue 15 item 3).
func TestTransportResendsCountWhereLoadIsCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &scriptedBreaker{}
		bud := &resendBudget{countingBudget: countingBudget{allow: 5}}
		m := new(Metrics)
		var records []Decision
		p := &Policy{MaxAttempts: 2, Backoff: constantBackoff(t, time.Second), Breaker: b, Budget: bud,
			OnDecision: Observers(m.Observe, func(_ context.Context, d Decision) { records = append(records, d) })}
		resends := []int{2, 0}
		calls := 0
		_, final, err := Run(context.Background(), p, Operation[int]{Attempt: func(context.Context) (int, Outcome) {
			calls++
			return calls, Outcome{Err: errTransient, TransportResends: resends[calls-1]}
		}})
		final.End()
		if !errors.Is(err, ErrAttemptsExhausted) {
			t.Fatalf("err = %v", err)
		}
		if got := m.Snapshot(); got.Attempts != 2 || got.TransportResends != 2 || got.Retries != 1 {
			t.Errorf("metrics: attempts %d, transport re-sends %d, retries %d; want 2, 2, 1", got.Attempts, got.TransportResends, got.Retries)
		}
		if got, want := strings.Join(bud.calls, ","), "done,resent 2,allow,done"; got != want {
			t.Errorf("budget calls %s, want %s", got, want)
		}
		if len(b.results) != 2 {
			t.Errorf("breaker told %v; want one result per attempt", b.results)
		}
		if len(records) != 2 || records[0].TransportResends != 2 || records[1].TransportResends != 0 {
			t.Errorf("records %+v", records)
		}
	})
}

// A stop made without an attempt repeats the last attempt's fields, re-sends included, but
// the metrics count them once.
func TestTransportResendsCountedOnceAcrossNoAttemptStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := new(Metrics)
		_, final, _ := Run(context.Background(), &Policy{MaxAttempts: 1, OnDecision: m.Observe}, Operation[int]{Attempt: func(context.Context) (int, Outcome) {
			return 0, Outcome{Err: errTransient, TransportResends: 3}
		}})
		final.End()
		l, _ := NewLoop(&Policy{Backoff: constantBackoff(t, time.Second)}, time.Now(), time.Time{}, false)
		l.Next(time.Now())
		d := l.Done(time.Now(), Outcome{Err: errTransient, TransportResends: 1}, nil)
		m.Observe(context.Background(), d)
		stop := l.Interrupt(time.Now(), context.Canceled)
		m.Observe(context.Background(), stop)
		if stop.TransportResends != 1 || !stop.NoAttempt {
			t.Errorf("stop without attempt = %+v", stop)
		}
		if got := m.Snapshot().TransportResends; got != 4 {
			t.Errorf("metrics count %d transport re-sends, want 4 (3 + 1, the stop without an attempt not again)", got)
		}
	})
}

// The record names are DESIGN's: transport_resends, omitted when zero, and an attribute
// added by the code around the loop (the command line's resumed_from) after the own fields.
func TestRecordResumeAndResendFields(t *testing.T) {
	d := Decision{Attempt: 2, Reason: ReasonSuccess, Class: ClassSuccess, TransportResends: 1}
	d.AddAttrs(slog.Int64("resumed_from", 4096))
	b, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["resumed_from"] != 4096.0 || got["transport_resends"] != 1.0 {
		t.Errorf("record %s: want resumed_from 4096 and transport_resends 1", b)
	}
	var text strings.Builder
	slog.New(slog.NewTextHandler(&text, nil)).Info("r", "d", d)
	if !strings.Contains(text.String(), "d.transport_resends=1 d.resumed_from=4096") {
		t.Errorf("slog: %s", text.String())
	}
	d = Decision{Attempt: 2, Reason: ReasonSuccess, Class: ClassSuccess}
	b, _ = d.MarshalJSON()
	if strings.Contains(string(b), "resumed_from") || strings.Contains(string(b), "transport_resends") {
		t.Errorf("zero fields not omitted: %s", b)
	}
}
