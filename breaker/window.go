package breaker

import (
	"time"

	"github.com/retrykit/retry/internal/window"
)

// Kinds of events the failure-rate window counts.
const (
	rateCalls    = 0
	rateFailures = 1
)

// countRate counts in w a call ending at now (a failure when failed), w being width wide,
// and returns the calls and failures of the window, that call included. The breaker's lock
// guards w.
func countRate(w *window.Window, now time.Time, width time.Duration, failed bool) (calls, failures int64) {
	w.Start(now)
	w.Advance(now.Sub(w.Epoch()), width)
	w.Add(rateCalls)
	if failed {
		w.Add(rateFailures)
	}
	return w.Total(rateCalls), w.Total(rateFailures)
}
