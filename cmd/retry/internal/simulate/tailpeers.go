package simulate

import (
	"math"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/hedge"
	"github.com/retrykit/retry/internal/window"
)

// newOurHedger is the library's Hedger with the zero Config but for the budget: package
// hedge reads no clock, so the simulator runs it as it is.
func newOurHedger() (retry.Hedger, error) {
	return hedge.New(hedge.Config{Budget: tailBudgetShare})
}

// fixedHedger is the library's Hedger with a fixed delay, one hedge an attempt, and the
// hedge budget share (retry.None: none).
func fixedHedger(delay time.Duration, share float64) (retry.Hedger, error) {
	return hedge.New(hedge.Config{Delay: delay, Budget: share})
}

// failsafeHedger is failsafe-go's HedgePolicy with a quantile delay
// (hedgepolicy.NewWithDelayQuantile, github.com/failsafe-go/failsafe-go v0.9.8:
// hedgepolicy/hedge.go, internal/util/quantile.go), as a retry.Hedger: one hedge, no
// budget, the delay the moving quantile of Martin Jambon's windowless algorithm (step 1 %
// of the moving standard deviation, decay 2/(age+1)), no hedge until threshold latencies
// are in. failsafe-go has no default delay; the parameters are those of its own tests.
// failsafe-go also records the latencies of hedges; the loop reports those of attempts
// only, which a 95th percentile hardly feels.
type failsafeHedger struct {
	q, alpha         float64
	threshold, count int
	value, mean, v   float64
}

func newFailsafeHedger(q float64, age, threshold int) *failsafeHedger {
	return &failsafeHedger{q: q, alpha: 2 / (float64(age) + 1), threshold: threshold}
}

// Attempt implements retry.Hedger.
func (h *failsafeHedger) Attempt() (time.Duration, int) {
	if h.count < h.threshold {
		return -1, 1
	}
	return time.Duration(h.value), 1
}

// AllowHedge implements retry.Hedger: no budget.
func (h *failsafeHedger) AllowHedge() bool { return true }

// Hedged implements retry.Hedger.
func (h *failsafeHedger) Hedged() {}

// Latency implements retry.Hedger: the moving quantile's update.
func (h *failsafeHedger) Latency(d time.Duration, _ bool) {
	x := float64(d)
	if h.count++; h.count == 1 {
		h.value, h.mean = x, x
		return
	}
	old := h.mean
	h.mean += h.alpha * (x - h.mean)
	h.v += h.alpha * ((x-old)*(x-h.mean) - h.v)
	delta := math.Sqrt(h.v) * 0.01
	switch {
	case delta == 0:
	case x < h.value:
		h.value -= delta / h.q
	case x > h.value:
		h.value += delta / (1 - h.q)
	}
}

// finagleHedger is Finagle's BackupRequestFilter (github.com/twitter/finagle:
// finagle-core/.../client/BackupRequestFilter.scala, util/WindowedPercentileHistogram.scala)
// on virtual time, as a retry.Hedger: the delay is the (1 − maxExtraLoad) percentile of
// the latencies of the last 30 s (three buckets of 10 s, whole milliseconds, at most 2 s),
// read every 3 s, at least 1 ms, and none before the first reading or at 2 s; a backup
// budget lets backups within maxExtraLoad of the requests of the last 10 s, without a floor.
// Finagle also records the latencies of backups; the loop reports those of attempts only.
type finagleHedger struct {
	sm           *sim
	extra        float64
	buckets      [3][2001]int // latencies by millisecond
	current      int
	rotated      time.Duration // when the current bucket started
	nextRead     time.Duration
	delay        time.Duration // -1: no backup
	budget       window.Window // requests (kind 0) and backups (kind 1)
	budgetWindow time.Duration
}

func newFinagleHedger(sm *sim, maxExtraLoad float64) *finagleHedger {
	return &finagleHedger{sm: sm, extra: maxExtraLoad, nextRead: 3 * time.Second, delay: -1, budgetWindow: 10 * time.Second}
}

// Attempt implements retry.Hedger: a request deposits in the backup budget.
func (h *finagleHedger) Attempt() (time.Duration, int) {
	h.advance()
	h.budget.Add(0)
	return h.delay, 1
}

// AllowHedge implements retry.Hedger.
func (h *finagleHedger) AllowHedge() bool {
	h.advance()
	return float64(h.budget.Total(1)+1) <= h.extra*float64(h.budget.Total(0))
}

// Hedged implements retry.Hedger.
func (h *finagleHedger) Hedged() { h.budget.Add(1) }

// Latency implements retry.Hedger: successes and superseded requests, as Finagle records.
func (h *finagleHedger) Latency(d time.Duration, _ bool) {
	h.advance()
	h.buckets[h.current][min(int(d/time.Millisecond), 2000)]++
}

// advance rotates the histogram's buckets, reads the delay every 3 s, and slides the
// budget's window, to the simulator's now.
func (h *finagleHedger) advance() {
	now := h.sm.now
	for now-h.rotated >= 10*time.Second {
		h.current = (h.current + 1) % len(h.buckets)
		h.buckets[h.current] = [2001]int{}
		h.rotated += 10 * time.Second
	}
	for now >= h.nextRead {
		h.nextRead += 3 * time.Second
		h.delay = h.percentile()
	}
	t := h.sm.clock()
	h.budget.Start(t)
	h.budget.Advance(t.Sub(h.budget.Epoch()), h.budgetWindow)
}

// percentile returns the backup delay of the histogram now: -1 when it is empty or at its
// top (2 s).
func (h *finagleHedger) percentile() time.Duration {
	n := 0
	for _, b := range h.buckets {
		for _, c := range b {
			n += c
		}
	}
	if n == 0 {
		return -1
	}
	rank := int(math.Ceil((1 - h.extra) * float64(n)))
	seen := 0
	for ms := range 2001 {
		for _, b := range h.buckets {
			seen += b[ms]
		}
		if seen >= rank {
			if ms >= 2000 {
				return -1
			}
			return time.Duration(max(ms, 1)) * time.Millisecond
		}
	}
	return -1
}
