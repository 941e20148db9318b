package hedge

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
)

// Hedger decides when a retry loop hedges an attempt, under the delay and budget of its
// [Config] (see the package documentation). It implements retry.Hedger. Create one with
// [New]; the zero Hedger is not usable. Safe for concurrent use; do not copy.
type Hedger struct {
	cfg       Config
	maxHedges int
	budget    *tokens // nil: none

	// delay is the current delay in nanoseconds, read by every attempt without a lock.
	delay atomic.Int64

	mu         sync.Mutex
	window     *latencyWindow // nil for a fixed delay
	percentile float64
	minSamples int
	sinceRead  int // latencies added since the delay was last read from the window
}

// readEvery is how many latencies the Hedger adds between two readings of its delay.
const readEvery = 32

// New returns a Hedger configured by cfg, or an error wrapping ErrInvalidConfig that names
// the field out of range.
func New(cfg Config) (*Hedger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h := &Hedger{cfg: cfg, maxHedges: cfg.maxHedges()}
	if cfg.Budget != retry.None {
		h.budget = newTokens(cfg.budget())
	}
	if cfg.Delay > 0 {
		h.delay.Store(int64(cfg.Delay))
		return h, nil
	}
	h.window = &latencyWindow{genSize: (cfg.window() + nGens - 1) / nGens}
	h.percentile, h.minSamples = cfg.percentile(), cfg.minSamples()
	h.delay.Store(int64(cfg.maxDelay()))
	return h, nil
}

// Attempt counts an attempt that is not a hedge in the budget and returns the current
// delay and MaxHedges (retry.Hedger).
func (h *Hedger) Attempt() (delay time.Duration, hedges int) {
	if h.budget != nil {
		h.budget.add()
	}
	return time.Duration(h.delay.Load()), h.maxHedges
}

// AllowHedge reports whether the budget holds a hedge (retry.Hedger); it takes none.
func (h *Hedger) AllowHedge() bool { return h.budget == nil || h.budget.allows() }

// Hedged takes a hedge from the budget (retry.Hedger).
func (h *Hedger) Hedged() {
	if h.budget != nil {
		h.budget.take()
	}
}

// Latency adds the latency of an attempt that succeeded, or the time an attempt ran before
// its hedge superseded it, to the window of an adaptive delay (retry.Hedger); a fixed
// delay ignores it. Every 32 latencies it reads the delay anew: the percentile, between
// MinDelay and MaxDelay, or MaxDelay while the window holds too few latencies.
func (h *Hedger) Latency(d time.Duration, _ bool) {
	if h.window == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.window.add(d)
	if h.sinceRead++; h.sinceRead < readEvery {
		return
	}
	h.sinceRead = 0
	delay := h.cfg.maxDelay()
	if h.window.len() >= h.minSamples {
		p, _ := h.window.percentile(h.percentile)
		delay = min(max(p, h.cfg.minDelay()), delay)
	}
	h.delay.Store(int64(delay))
}

// Delay returns the delay an attempt starting now would be hedged after.
func (h *Hedger) Delay() time.Duration { return time.Duration(h.delay.Load()) }
