package budget

import (
	"sync"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/window"
)

// Defaults of a [RatioConfig]'s zero fields.
const (
	// DefaultRatio is the share of requests that may be retries: the SRE book's 10%.
	DefaultRatio = 0.1
	// DefaultMinRetriesPerSecond is the floor of retries a quiet client may always make.
	DefaultMinRetriesPerSecond = 1.0
	// DefaultWindow is how far back requests and retries are counted.
	DefaultWindow = 10 * time.Second
)

// buckets is how many buckets the window has; MinWindow keeps each at least 1 ms wide.
const buckets = window.Buckets

// MinWindow is the shortest RatioConfig.Window accepted: ten buckets of a millisecond.
const MinWindow = buckets * time.Millisecond

// RatioConfig configures a [Ratio] budget. The zero RatioConfig is valid and means the
// defaults above.
type RatioConfig struct {
	// Ratio is the share of the window's requests that may be retries, in (0, 1]. Zero means
	// DefaultRatio.
	Ratio float64
	// MinRetriesPerSecond is a floor: MinRetriesPerSecond × Window seconds retries are
	// allowed in any window whatever the traffic, so that a client sending few requests can
	// still retry. Zero means DefaultMinRetriesPerSecond; retry.None removes the floor: retries
	// are then allowed by the ratio alone; other
	// values must be positive and finite.
	MinRetriesPerSecond float64
	// Window is how far back requests and retries count, in ten buckets: an event counts for
	// between 0.9×Window and Window. Zero means DefaultWindow; otherwise at least MinWindow.
	Window time.Duration
}

// Validate reports whether c is usable: nil, or an error wrapping ErrInvalidConfig that
// names the field out of range, its value and what is allowed.
func (c *RatioConfig) Validate() error {
	switch {
	case !(c.Ratio >= 0 && c.Ratio <= 1):
		return invalid("Ratio %v out of range: must be in (0, 1], or 0 for the default %v", c.Ratio, DefaultRatio)
	case c.MinRetriesPerSecond != retry.None && !(c.MinRetriesPerSecond >= 0 && c.MinRetriesPerSecond <= 1e9):
		return invalid("MinRetriesPerSecond %v out of range: must be in (0, 1e9], 0 for the default %v, or retry.None (-1)",
			c.MinRetriesPerSecond, DefaultMinRetriesPerSecond)
	case c.Window < 0 || (c.Window > 0 && c.Window < MinWindow):
		return invalid("Window %v out of range: must be at least %v, or 0 for the default %v", c.Window, MinWindow, DefaultWindow)
	}
	return nil
}

// Ratio is a retry budget in the manner of the Google SRE book (chapter 22, "per-client
// retry budget") and Finagle's RetryBudget: a retry is allowed when, counting it, the
// retries allowed in the last Window stay within
//
//	Ratio × (attempts reported in the window) + MinRetriesPerSecond × Window seconds.
//
// Every attempt reported by Done counts as a request, first attempts and retries alike;
// every retry allowed by AllowRetry counts as a retry at once, so that loops asking at the
// same moment cannot all pass. The exchanges a transport re-sent by itself within an attempt
// count as requests and as retries made (Resent), since that is what they are. The result of
// an attempt does not matter: the budget bounds the extra load that retries add, whatever the
// service answers, so a throttled attempt (retry.ResultThrottled) counts as a request as a
// success or a failure does: the service received it.
//
// It implements retry.RetryBudget. Create one with [NewRatio]; the zero Ratio behaves as one
// made with the zero RatioConfig. It may be made outside a testing/synctest bubble and used
// inside: it then counts on the bubble's clock from its first use there. Safe for concurrent
// use; do not copy after first use.
type Ratio struct {
	cfg RatioConfig

	mu     sync.Mutex
	window window.Window // requests (kind 0) and retries (kind 1)
}

// Kinds of events the window counts.
const (
	kindRequests = 0
	kindRetries  = 1
)

// NewRatio returns a Ratio budget configured by cfg, or an error wrapping ErrInvalidConfig
// that names the field out of range.
func NewRatio(cfg RatioConfig) (*Ratio, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Ratio{cfg: cfg}
	b.window.Start(time.Now())
	return b, nil
}

// AllowRetry reports whether one more retry fits in the budget now, and if so counts it
// (retry.RetryBudget). It reads the monotonic clock once and takes the budget's lock.
func (b *Ratio) AllowRetry() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	// The tolerance keeps a limit meant to be whole at that whole number, though floats
	// miss it: 0.29 × 100 = 28.999999999999996 must allow the 29th retry.
	if float64(b.window.Total(kindRetries)+1) > b.cfg.ratio()*float64(b.window.Total(kindRequests))+b.cfg.floor()+1e-9 {
		return false
	}
	b.window.Add(kindRetries)
	return true
}

// Done counts an attempt that ran as a request (retry.RetryBudget); neither whether it was
// a retry nor its result (a throttle included) changes how it counts.
func (b *Ratio) Done(bool, retry.Result) {
	b.mu.Lock()
	b.advance()
	b.window.Add(kindRequests)
	b.mu.Unlock()
}

// Resent counts n exchanges that a transport re-sent by itself within an attempt
// (retry.ResendCounter) as n requests and n retries: retries already made, which later
// retries must fit beside, whatever the floor and ratio allow. n below 1 counts nothing.
func (b *Ratio) Resent(n int) {
	if n < 1 {
		return
	}
	b.mu.Lock()
	b.advance()
	b.window.AddN(kindRequests, int64(n)) // at once: n is the caller's, and may be large
	b.window.AddN(kindRetries, int64(n))
	b.mu.Unlock()
}

// advance slides the window to now, dropping the buckets that left it. It reads the clock
// as time.Since does, with the monotonic clock alone, which is cheaper than time.Now. A
// window whose epoch lies in the future was started on another clock (the Ratio was made
// outside a testing/synctest bubble and is used inside, where time starts in 2000): it
// starts again, empty, on the clock of now.
func (b *Ratio) advance() {
	if b.window.Epoch().IsZero() { // the zero Ratio
		b.window.Start(time.Now())
	}
	elapsed := time.Since(b.window.Epoch())
	if elapsed < 0 {
		b.window.Reset()
		b.window.Start(time.Now())
		elapsed = 0
	}
	b.window.Advance(elapsed, b.cfg.window())
}

func (c *RatioConfig) ratio() float64 {
	if c.Ratio == 0 {
		return DefaultRatio
	}
	return c.Ratio
}

// floor is the number of retries the floor allows in a window.
func (c *RatioConfig) floor() float64 {
	switch c.MinRetriesPerSecond {
	case retry.None:
		return 0
	case 0:
		return DefaultMinRetriesPerSecond * c.window().Seconds()
	}
	return c.MinRetriesPerSecond * c.window().Seconds()
}

func (c *RatioConfig) window() time.Duration {
	if c.Window == 0 {
		return DefaultWindow
	}
	return c.Window
}
