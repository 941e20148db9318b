package stdobs

import (
	"expvar"
	"fmt"

	"github.com/retrykit/retry"
)

// MetricsJSON is the JSON form of a retry.MetricsSnapshot that [Var] publishes. Times are
// milliseconds. WaitCounts[i] counts the waits of at most WaitBucketsMS[i] (and more than the
// bound before it: the counts are not cumulative); its last element counts the waits above
// every bound. Stops and HedgesRefused hold only the reasons that occurred; the hedging
// counts are left out while they are 0.
type MetricsJSON struct {
	Attempts            uint64                        `json:"attempts"`
	Throttled           uint64                        `json:"throttled"`
	Retries             uint64                        `json:"retries"`
	TransportResends    uint64                        `json:"transport_resends"`
	SuccessesAfterRetry uint64                        `json:"successes_after_retry"`
	Stops               map[retry.Reason]uint64       `json:"stops"`
	WaitBucketsMS       []float64                     `json:"wait_buckets_ms"`
	WaitCounts          []uint64                      `json:"wait_counts"`
	WaitTotalMS         float64                       `json:"wait_total_ms"`
	Hedges              uint64                        `json:"hedges,omitempty"`
	HedgesWon           uint64                        `json:"hedges_won,omitempty"`
	HedgesRefused       map[retry.HedgeRefusal]uint64 `json:"hedges_refused,omitempty"`
}

var waitBucketsMS = func() []float64 {
	b := make([]float64, len(retry.WaitBuckets))
	for i, w := range retry.WaitBuckets {
		b[i] = float64(w) / 1e6
	}
	return b
}()

// Snapshot returns m's counts in their JSON form.
func Snapshot(m *retry.Metrics) MetricsJSON {
	s := m.Snapshot()
	return MetricsJSON{Attempts: s.Attempts, Throttled: s.Throttled, Retries: s.Retries, TransportResends: s.TransportResends,
		SuccessesAfterRetry: s.SuccessesAfterRetry,
		Stops:               s.Stops, WaitBucketsMS: waitBucketsMS, WaitCounts: s.WaitCounts,
		WaitTotalMS: float64(s.WaitTotal) / 1e6, Hedges: s.Hedges, HedgesWon: s.HedgesWon, HedgesRefused: s.HedgesRefused}
}

// Var returns an expvar.Var whose value is m's current [Snapshot], read each time the
// variable is read (for example on /debug/vars). Safe for concurrent use.
func Var(m *retry.Metrics) expvar.Var {
	return expvar.Func(func() any { return Snapshot(m) })
}

// Publish publishes [Var](m) under name in expvar's registry, served on /debug/vars by
// programs that serve expvar.Handler (importing expvar registers it on
// http.DefaultServeMux). It returns an error, instead of expvar's panic, when the name is
// already taken. Publish once per name, at start-up: two concurrent calls with the same name
// may still reach expvar's panic.
func Publish(name string, m *retry.Metrics) error {
	if m == nil {
		return fmt.Errorf("stdobs: Publish(%q) with a nil *retry.Metrics: pass the Metrics whose Observe is the policy's OnDecision", name)
	}
	if expvar.Get(name) != nil {
		return fmt.Errorf("stdobs: expvar name %q is already published: choose another", name)
	}
	expvar.Publish(name, Var(m))
	return nil
}
