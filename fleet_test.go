package retry

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry/backoff"
)

// fleetBreaker admits everything and reports a fixed fleet status.
type fleetBreaker struct {
	age       time.Duration
	ok, stale bool
}

func (fleetBreaker) Allow() (uint64, bool, time.Duration) { return 0, true, 0 }
func (fleetBreaker) Done(uint64, Result)                  {}
func (b fleetBreaker) FleetStatus(time.Time) (time.Duration, bool, bool) {
	return b.age, b.ok, b.stale
}

type fleetBudget struct{ fleetBreaker }

func (fleetBudget) AllowRetry() bool  { return true }
func (fleetBudget) Done(bool, Result) {}

// The fleet's view goes into every record (DESIGN's record section: fleet_age_ms,
// fleet_stale), the older view and either staleness winning when breaker and budget both
// report.
func TestRecordCarriesFleetStatus(t *testing.T) {
	for _, tc := range []struct {
		name     string
		breaker  CircuitBreaker
		budget   RetryBudget
		contains []string
		absent   []string
	}{
		{"fresh breaker", fleetBreaker{age: 250 * time.Millisecond, ok: true}, nil,
			[]string{`"fleet_age_ms":250`}, []string{"fleet_stale"}},
		{"stale budget, never synced", nil, fleetBudget{fleetBreaker{stale: true}},
			[]string{`"fleet_stale":true`}, []string{"fleet_age_ms"}},
		{"both: older view and staleness win",
			fleetBreaker{age: 100 * time.Millisecond, ok: true},
			fleetBudget{fleetBreaker{age: 3 * time.Second, ok: true, stale: true}},
			[]string{`"fleet_age_ms":3000`, `"fleet_stale":true`}, nil},
		{"no fleet", nil, nil, nil, []string{"fleet_age_ms", "fleet_stale"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zero, err := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter})
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			p := &Policy{MaxAttempts: 2, Backoff: zero, Breaker: tc.breaker, Budget: tc.budget,
				OnDecision: func(d Decision) {
					b, err := json.Marshal(d)
					if err != nil {
						t.Fatal(err)
					}
					lines = append(lines, string(b))
				}}
			_ = Do(t.Context(), p, func(context.Context) error { return errors.New("down") })
			if len(lines) != 2 {
				t.Fatalf("records %q", lines)
			}
			for _, l := range lines {
				for _, c := range tc.contains {
					if !strings.Contains(l, c) {
						t.Errorf("record %s lacks %s", l, c)
					}
				}
				for _, a := range tc.absent {
					if strings.Contains(l, a) {
						t.Errorf("record %s has %s", l, a)
					}
				}
			}
		})
	}
}
