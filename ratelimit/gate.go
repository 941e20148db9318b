package ratelimit

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
)

// Gate paces the attempts sent to one destination to the rate limit it publishes, or, when
// it publishes none but throttles, to the rate AWS's adaptive retry mode finds (see the
// package doc for the rules). It implements retry.RateGate: set it as
// retry.Policy.RateGate, or keep one per destination with a [Group].
//
// Every method is told the time and none blocks, sleeps or starts a goroutine: the caller
// waits. While the gate knows of no limit, no throttle and no probe, Reserve takes no lock
// and allocates nothing. The zero Gate is ready to use with the zero Config. Safe for
// concurrent use.
type Gate struct {
	cfg     Config
	limited atomic.Bool // false: the gate knows nothing that slows an attempt (the lock-free path)
	mu      sync.Mutex
	s       state // guarded by mu, but for s.rate.word
}

// NewGate returns a gate configured by cfg, or an error wrapping ErrInvalidConfig that
// names the field out of range.
func NewGate(cfg Config) (*Gate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &Gate{cfg: cfg}
	g.limited.Store(cfg.ProbeWait > 0) // first contact
	return g, nil
}

// Reserve is ReserveN with no token cost stated (retry.RateGate).
func (g *Gate) Reserve(now, notBefore time.Time) (at time.Time, token uint64) {
	return g.ReserveN(now, notBefore, 0)
}

// ReserveN asks, at now, for a time to send an attempt at notBefore or later, whose
// expected cost in an LLM API's tokens is tokens (0 or less: not stated). It returns that
// time, never before notBefore, and a token to hand to Done, or to Cancel when the attempt
// is not sent. The cost counts against the token quotas ("tokens", "input-tokens",
// "output-tokens"); with none stated, they slow the attempt only through a throttle's hold.
//
// A gate that knows of no limit returns notBefore and token 0, which need no Done. Token 0
// with a time after notBefore reserves nothing: the first-contact probe is in flight (see
// Config.ProbeWait), or answers in flight may show room for the attempt before the
// current window's reset; the caller waits until that time and asks again.
func (g *Gate) ReserveN(now, notBefore time.Time, tokens int64) (at time.Time, token uint64) {
	if !g.limited.Load() {
		return notBefore, 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	at, token = g.s.reserve(now, notBefore, max(tokens, 0), g.cfg.ProbeWait)
	g.settle()
	return at, token
}

// Cancel gives back, at now, the reservation of token, whose attempt will not be sent
// (retry.RateGate). Any reservation may be cancelled, not only the latest: its count
// before the current window's reset, or its units of a window after it, go to the next
// attempt that asks. Unknown tokens and token 0 are ignored.
func (g *Gate) Cancel(token uint64, now time.Time) {
	if token == 0 || !g.limited.Load() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.s.cancel(now, token, g.cfg.ProbeWait)
	g.settle()
}

// Done reports, at now, the result r of the attempt sent under token and the wait its
// answer asked for (Retry-After, RFC 9110 section 10.2.3), 0 for none (retry.RateGate).
// A throttle (retry.ResultThrottled) holds every later reservation until now + retryAfter,
// or else until the exhausted quota's reset; without a request limit read, it turns on the
// adaptive rate. Call Observe with the answer's readings before Done. Token 0 is allowed.
func (g *Gate) Done(token uint64, now time.Time, r retry.Result, retryAfter time.Duration) {
	counted := g.s.rate.add(now)
	if counted && r != retry.ResultThrottled && !g.limited.Load() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !counted {
		g.s.rate.roll(now)
	}
	g.s.done(now, token, r, retryAfter, g.cfg.ProbeWait)
	g.settle()
}

// Observe takes in, at now, what an answer's headers said of the destination's quotas,
// 200s included. Fresher information wins: a lower remaining, or a later reset. The
// answer is taken to be that of the earliest attempt sent and not answered yet, which the
// server counted (the Done that follows corrects that when it names another); the
// attempts still in flight it did not, and they count against what it says is left. Call
// it before that attempt's Done.
func (g *Gate) Observe(now time.Time, readings []Reading) {
	if len(readings) == 0 && !g.limited.Load() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.s.observe(now, readings, g.cfg.ProbeWait)
	g.settle()
}

// settle sets the lock-free path on or off for the state just changed. Called with mu held.
func (g *Gate) settle() { g.limited.Store(!g.s.idle(g.cfg.ProbeWait)) }
