package fleet

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// What a replica knows of its key's fleet state (Breaker.mode).
const (
	modeClosed       uint32 = iota // the fleet is CLOSED (or not known yet): the local breaker decides
	modeOpen                       // the fleet is OPEN until Breaker.until
	modeHalfOpen                   // the fleet is HALF_OPEN and another replica makes the trial call
	modeTrial                      // HALF_OPEN and this replica was elected: one trial call to make
	modeTrialRunning               // this replica's trial call is in flight
)

// trialToken is the token of the fleet's trial call. Package breaker's tokens are its state
// word's upper half (the generation in bits 63..34, the state in bits 33..32) with, in
// HALF_OPEN only, a trial call's number in the lower half: a CLOSED token (state 0) with a
// nonzero lower half, as this one, is never one of them.
const trialToken = 1

// failureOne is one failure in Breaker.counts: failures in the upper half, calls in the lower.
const failureOne = 1<<32 + 1

// Breaker is a circuit breaker shared by a fleet (see the package documentation): a local
// [breaker.Breaker] plus the fleet's view. It implements retry.CircuitBreaker,
// retry.Reporter and retry.AdmissionReporter. Get one from
// [NewBreaker] or [BreakerGroup.Get]. Safe for concurrent use.
//
// While the fleet view is fresh and the fleet is CLOSED, the local breaker decides and a call
// costs it one atomic addition more; while the fleet is OPEN or HALF_OPEN every call is
// refused at once, except this replica's elected trial call. A fleet-wide refusal's retryIn
// is -1: which replica makes the next trial call is not known in advance. While the view is
// stale, the local breaker alone decides.
type Breaker struct {
	g     *BreakerGroup
	key   string
	owner bool // made by NewBreaker: Close closes the group

	local   atomic.Pointer[breaker.Breaker]
	mode    atomic.Uint32
	until   atomic.Int64  // modeOpen: OPEN until; modeTrial: elected until (time since the syncer's epoch)
	counts  atomic.Uint64 // since the last exchange: failures << 32 | calls
	refused atomic.Int64  // calls refused by the fleet since the last exchange: a trial is wanted
	op      atomic.Uint32 // an Op to tell the fleet at the next exchange

	used int64 // the group's tick of the last Get; guarded by the group's lock
}

// Allow asks to start a call now (retry.CircuitBreaker); see [Breaker] for the rules. It
// never waits on the store.
func (b *Breaker) Allow() (token uint64, ok bool, retryIn time.Duration) {
	if !b.g.sync.fresh.Load() {
		return b.local.Load().Allow()
	}
	switch b.mode.Load() {
	case modeClosed:
		return b.local.Load().Allow()
	case modeTrial:
		if b.sinceEpoch() < time.Duration(b.until.Load()) && b.mode.CompareAndSwap(modeTrial, modeTrialRunning) {
			return trialToken, true, 0
		}
	}
	b.refused.Add(1)
	return 0, false, -1
}

// Done reports the result of a call Allow admitted with token (retry.CircuitBreaker). It
// counts the result for the fleet and gives it to the local breaker (whose opening starts an
// exchange at once, so the fleet counts its failures early); the result of the fleet's trial
// call is sent to the store at once (without waiting for it) and closes or reopens this
// replica's view at once.
func (b *Breaker) Done(token uint64, r retry.Result) {
	if token == trialToken {
		b.trialDone(r)
		return
	}
	local := b.local.Load()
	switch r {
	case retry.ResultSuccess:
		b.counts.Add(1)
	case retry.ResultFailure:
		b.counts.Add(failureOne)
		if before := local.State(); before == breaker.StateClosed {
			local.Done(token, r)
			if local.State() == breaker.StateOpen {
				b.g.sync.poke() // the local breaker opened: tell the fleet now, not at the next tick
			}
			return
		}
	}
	local.Done(token, r)
}

func (b *Breaker) trialDone(r retry.Result) {
	switch r {
	case retry.ResultIgnored: // the caller gave up: the trial is still this replica's
		b.mode.CompareAndSwap(modeTrialRunning, modeTrial)
		return
	case retry.ResultSuccess:
		b.counts.Add(1)
		b.local.Load().Reset() // results of calls it admitted before are ignored
		b.op.Store(uint32(OpTrialSuccess))
		b.mode.Store(modeClosed)
	case retry.ResultFailure:
		b.counts.Add(failureOne)
		b.until.Store(int64(b.sinceEpoch() + b.g.x.OpenTimeout))
		b.op.Store(uint32(OpTrialFailure))
		b.mode.Store(modeOpen)
	}
	b.g.sync.poke()
}

// RetryIn says, without admitting anything, how long until Allow would admit a call
// (retry.AdmissionReporter), so that a loop whose failed attempt just opened the breaker stops
// at once with circuit_open instead of waiting first: while the local breaker decides (the
// view stale, or the fleet CLOSED), the local breaker's answer; 0 for this replica's elected
// trial call; while the fleet is OPEN, the time until its open timeout ends (the earliest this
// replica could be elected for the trial call, 0 once it has ended); negative while the
// fleet is HALF_OPEN with a trial call elsewhere or in flight here (their results decide).
// Safe for concurrent use; it never waits on the store.
func (b *Breaker) RetryIn() time.Duration {
	if !b.g.sync.fresh.Load() {
		return b.local.Load().RetryIn()
	}
	switch b.mode.Load() {
	case modeClosed:
		return b.local.Load().RetryIn()
	case modeTrial:
		return 0
	case modeOpen:
		return max(0, time.Duration(b.until.Load())-b.sinceEpoch())
	}
	return -1
}

// State returns the state calls meet now: the fleet's while the view is fresh and the fleet
// is not CLOSED, else the local breaker's.
func (b *Breaker) State() breaker.State {
	if b.g.sync.fresh.Load() {
		switch b.mode.Load() {
		case modeOpen:
			return breaker.StateOpen
		case modeHalfOpen, modeTrial, modeTrialRunning:
			return breaker.StateHalfOpen
		}
	}
	return b.local.Load().State()
}

// RecordAttrs returns the breaker's fields of a decision record at now (retry.Reporter):
// "breaker", its state's name, and the fleet view's "fleet_age_ms" and "fleet_stale" (see
// [Breaker.FleetStatus]).
func (b *Breaker) RecordAttrs(now time.Time) [4]slog.Attr {
	age, stale := b.g.sync.recordAttrs(now)
	return [4]slog.Attr{slog.String("breaker", b.State().String()), age, stale}
}

// FleetStatus returns the fleet view's age at now (ok false when there has never been one)
// and whether it is stale: the store is out of reach and decisions are local only.
func (b *Breaker) FleetStatus(now time.Time) (age time.Duration, ok, stale bool) {
	return b.g.sync.status(now)
}

// SyncNow makes one exchange now for the breaker's group; see [BreakerGroup.SyncNow].
func (b *Breaker) SyncNow(ctx context.Context) error { return b.g.SyncNow(ctx) }

// Stats returns the exchange counts of the breaker's group.
func (b *Breaker) Stats() Stats { return b.g.Stats() }

// Close closes the syncer of a breaker made by [NewBreaker] (see [BreakerGroup.Close]); for a
// breaker of a group, close the group instead: Close then does nothing and returns nil.
func (b *Breaker) Close() error {
	if !b.owner {
		return nil
	}
	return b.g.Close()
}

func (b *Breaker) sinceEpoch() time.Duration { return time.Since(b.g.sync.epoch) }

// take returns the key's part of the next exchange, taking its counts and operation.
func (b *Breaker) take() Key {
	c := b.counts.Swap(0)
	k := Key{Name: b.key, Add: [2]int64{int64(c & (1<<32 - 1)), int64(c >> 32)}, Op: Op(b.op.Swap(uint32(OpNone)))}
	if b.refused.Swap(0) > 0 && k.Op == OpNone {
		if m := b.mode.Load(); m != modeTrial && m != modeTrialRunning {
			k.Op = OpTrial
		}
	}
	return k
}

// giveBack keeps what a failed exchange did not deliver for the next one.
func (b *Breaker) giveBack(k *Key) {
	b.counts.Add(uint64(k.Add[1])<<32 | uint64(k.Add[0]))
	switch k.Op {
	case OpTrial:
		b.refused.Add(1)
	case OpNone:
	default:
		b.op.CompareAndSwap(uint32(OpNone), uint32(k.Op)) // a newer operation wins
	}
}

// apply takes the fleet's view of the key from a successful exchange that started at
// started and returned at now (both since the syncer's epoch), and applies the fleet's
// failure-rate rule. An OPEN lasts OpenLeft from now (the store's clock read it between the
// two); a trial election, from started: the store's election ends OpenTimeout after its
// clock read, which is after started, so this replica's never outlasts it and no other
// replica is elected while this one may still make its trial call.
func (b *Breaker) apply(k *Key, started, now time.Duration) {
	if b.op.Load() != uint32(OpNone) {
		return // a change made since the exchange began: the next exchange tells the fleet
	}
	cfg := &b.g.cfg
	switch k.State {
	case breaker.StateClosed:
		if b.mode.Swap(modeClosed) != modeClosed {
			b.local.Load().Reset() // closed fleet-wide: start afresh, ignoring earlier calls' results
		}
		if k.Total[0] >= cfg.minCalls() && float64(k.Total[1]) >= cfg.failureRate()*float64(k.Total[0]) {
			b.until.Store(int64(now + b.g.x.OpenTimeout))
			b.mode.Store(modeOpen)
			b.op.Store(uint32(OpOpen))
			b.g.sync.poke()
		}
	case breaker.StateOpen:
		b.until.Store(int64(now + k.OpenLeft))
		b.mode.Store(modeOpen)
	case breaker.StateHalfOpen:
		switch m := b.mode.Load(); {
		case k.TrialWon:
			b.until.Store(int64(started + b.g.x.OpenTimeout))
			b.mode.Store(modeTrial)
		case m == modeTrialRunning, m == modeTrial && now < time.Duration(b.until.Load()):
		default:
			b.mode.Store(modeHalfOpen)
		}
	}
}
