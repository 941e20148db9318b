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
	modeHalfOpen                   // the fleet is HALF_OPEN and another replica's election holds, or none
	modeTrial                      // HALF_OPEN and this replica was elected: one trial call to start before Breaker.until
	modeTrialRunning               // this replica's trial call is in flight
)

// failureOne is one failure in Breaker.counts: failures in the upper half, calls in the lower.
const failureOne = 1<<32 + 1

// newBaseline is where a replica's Key.Counts start again from its unsent counts (a total
// that goes down is a new baseline for the store), well before a Redis script's numbers
// (float64) would lose whole units.
const newBaseline = 1 << 52

// Breaker is a circuit breaker shared by a fleet (see the package documentation): a local
// [breaker.Breaker] plus the fleet's view. It implements retry.CircuitBreaker,
// retry.RetryAfterReceiver, retry.Reporter, retry.AdmissionReporter and retry.TrialReserver. Get one from
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
	local *breaker.Breaker

	mode         atomic.Uint32
	until        atomic.Int64  // modeOpen: OPEN until; modeTrial: the trial call may start until (time since the syncer's epoch)
	counts       atomic.Uint64 // since the last exchange: failures << 32 | calls
	refused      atomic.Int64  // calls refused by the fleet since the last exchange: a trial is wanted
	pending      atomic.Uint64 // an Op to tell the fleet at the next exchange, with its election: see pack
	trial        atomic.Int64  // the election this replica last won (KeyState.Trial)
	trialSeq     atomic.Uint32 // the number of this replica's last trial call, in its token
	trialStarted atomic.Int64  // when that call started (time since the syncer's epoch)
	wait         atomic.Int64  // the server's wait of the latest failure counted here, 0 for none
	openFor      atomic.Int64  // the open time asked with the pending OpOpen or OpTrialFailure (Key.OpenFor)
	openings     atomic.Int64  // the fleet's openings in a row as this replica counts them; written under the syncer's lock

	// Guarded by the syncer's lock (one exchange at a time):
	sent        [2]int64      // Key.Counts: calls and failures since the start, or the last baseline
	unsent      [2]int64      // Key.Unsent
	known       KeyState      // the store's last word on the key
	knownAt     time.Duration // when it came (time since the syncer's epoch)
	lastOpenFor time.Duration // how long the fleet's latest OPEN lasts, as far as this replica knows
	closedAt    time.Duration // when this replica learned that the fleet closed after an OPEN
}

// pack puts an Op and its election in one word, so that they are read and written together.
func pack(op Op, trial int64) uint64 { return uint64(trial)<<3 | uint64(op) }

func unpack(w uint64) (Op, int64) { return Op(w & 7), int64(w >> 3) }

// trialToken is the token of this replica's trial call number seq. Package breaker's tokens
// are its state word's upper half (the generation in bits 63..34, the state in bits 33..32)
// with, in HALF_OPEN only, a trial call's number in the lower half: a CLOSED token (state 0)
// whose lower half is 1, as these, is never one of them.
func trialToken(seq uint32) uint64 { return uint64(seq)<<34 | 1 }

// trialOf returns the trial number of a token made by trialToken.
func trialOf(token uint64) (seq uint32, ok bool) {
	return uint32(token >> 34), token&(1<<34-1) == 1
}

// Allow asks to start a call now (retry.CircuitBreaker); see [Breaker] for the rules. It
// never waits on the store.
func (b *Breaker) Allow() (token uint64, ok bool, retryIn time.Duration) {
	if !b.g.sync.fresh.Load() {
		return b.local.Allow()
	}
	switch b.mode.Load() {
	case modeClosed:
		return b.local.Allow()
	case modeTrial:
		now := b.sinceEpoch()
		if now < time.Duration(b.until.Load()) && b.mode.CompareAndSwap(modeTrial, modeTrialRunning) {
			b.trialStarted.Store(int64(now))
			return trialToken(b.trialSeq.Load()), true, 0
		}
	}
	b.refused.Add(1)
	return 0, false, -1
}

// Done reports the result of a call Allow admitted with token (retry.CircuitBreaker). It
// counts the result for the fleet and gives it to the local breaker (whose opening starts an
// exchange at once, so the fleet counts its failures early). A throttle
// (retry.ResultThrottled) counts as a call that did not fail, here and fleet-wide, as a
// success does; an ignored result, or one of a value package breaker does not know, is not
// counted. The result of this replica's trial call is sent to the store at once (without
// waiting for it), with its election, and closes or reopens this replica's view at once; a
// trial result that comes after the trial was presumed lost (the breaker's TrialTimeout) is
// sent too, and the store applies it only if no other replica has been elected since.
func (b *Breaker) Done(token uint64, r retry.Result) { b.done(token, r, 0) }

// DoneRetryAfter is Done for a call whose answer asked for a wait of retryAfter
// (retry.RetryAfterReceiver): the local breaker learns its open time from it (see
// breaker.Breaker.DoneRetryAfter), and so does the fleet-wide OPEN that this replica asks
// the store for, when the fleet's rule is met here or this replica's trial call fails (see
// the package documentation, "Open time"). A retryAfter of 0 or less is no wait.
func (b *Breaker) DoneRetryAfter(token uint64, r retry.Result, retryAfter time.Duration) {
	b.done(token, r, max(0, retryAfter))
}

// done is Done with the wait the call's answer asked for (0 for none).
func (b *Breaker) done(token uint64, r retry.Result, wait time.Duration) {
	if seq, ok := trialOf(token); ok {
		b.trialDone(seq, r, wait)
		return
	}
	switch r {
	case retry.ResultSuccess, retry.ResultThrottled:
		b.counts.Add(1)
	case retry.ResultFailure:
		b.counts.Add(failureOne)
		b.wait.Store(int64(wait))
		if before := b.local.State(); before == breaker.StateClosed {
			b.local.DoneRetryAfter(token, r, wait)
			if b.local.State() == breaker.StateOpen {
				b.g.sync.poke() // the local breaker opened: tell the fleet now, not at the next tick
			}
			return
		}
	}
	b.local.DoneRetryAfter(token, r, wait)
}

func (b *Breaker) trialDone(seq uint32, r retry.Result, wait time.Duration) {
	current := seq == b.trialSeq.Load()
	op := OpTrialSuccess
	switch r {
	case retry.ResultSuccess, retry.ResultThrottled: // a throttle: the service answers
		b.counts.Add(1)
	case retry.ResultFailure:
		b.counts.Add(failureOne)
		op = OpTrialFailure
	default: // the caller gave up (or a result unknown here): the trial is still this replica's to make
		if current {
			b.mode.CompareAndSwap(modeTrialRunning, modeTrial)
		}
		return
	}
	if !current {
		return // a trial before the last: its election is unknown here, and long decided
	}
	openFor := time.Duration(0)
	if op == OpTrialFailure { // one more opening in a row
		openFor = b.g.cfg.Breaker.OpenTime(int(b.openings.Load())+1, wait)
		b.openFor.Store(int64(openFor))
	}
	b.pending.Store(pack(op, b.trial.Load())) // before the mode, so an exchange's reply keeps it
	if b.mode.Load() == modeTrialRunning {
		if op == OpTrialSuccess {
			b.local.Reset() // results of calls it admitted before are ignored
			b.mode.CompareAndSwap(modeTrialRunning, modeClosed)
		} else {
			b.until.Store(int64(b.sinceEpoch() + openFor))
			b.mode.CompareAndSwap(modeTrialRunning, modeOpen)
		}
	}
	b.g.sync.poke()
}

// RetryIn says, without admitting anything, how long until Allow would admit a call
// (retry.AdmissionReporter), so that a loop whose failed attempt just opened the breaker stops
// at once with circuit_open instead of waiting first: while the local breaker decides (the
// view stale, or the fleet CLOSED), the local breaker's answer; 0 for this replica's elected
// trial call; while the fleet is OPEN, the time until its open time ends (the earliest this
// replica could be elected for the trial call, 0 once it has ended); negative while the
// fleet is HALF_OPEN with a trial call elsewhere or in flight here (their results decide).
// Safe for concurrent use; it never waits on the store.
func (b *Breaker) RetryIn() time.Duration {
	if !b.g.sync.fresh.Load() {
		return b.local.RetryIn()
	}
	switch b.mode.Load() {
	case modeClosed:
		return b.local.RetryIn()
	case modeTrial:
		return 0
	case modeOpen:
		return max(0, time.Duration(b.until.Load())-b.sinceEpoch())
	}
	return -1
}

// ReserveTrial asks the local breaker for a place to wait for a trial call
// (retry.TrialReserver; see breaker.Breaker.ReserveTrial). While the fleet is OPEN or
// HALF_OPEN a loop has nothing to wait for here (Allow cannot say when this replica makes
// the trial call), so it reports true and Allow's refusal stops the loop.
func (b *Breaker) ReserveTrial() bool {
	if b.g.sync.fresh.Load() && b.mode.Load() != modeClosed {
		return true
	}
	return b.local.ReserveTrial()
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
	return b.local.State()
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

// take returns the key's part of the next exchange made at now (time since the syncer's
// epoch): its counts, its operation, and what it knows of the fleet's state.
func (b *Breaker) take(now time.Duration) Key {
	c := b.counts.Swap(0)
	add := [2]int64{int64(c & (1<<32 - 1)), int64(c >> 32)}
	b.sent = [2]int64{b.sent[0] + add[0], b.sent[1] + add[1]}
	b.unsent = [2]int64{b.unsent[0] + add[0], b.unsent[1] + add[1]}
	if b.sent[0] >= newBaseline {
		b.sent = b.unsent
	}
	op, trial := unpack(b.pending.Swap(0))
	switch m := b.mode.Load(); {
	case m == modeTrial && now >= time.Duration(b.until.Load()):
		// The election was not used in time: give it back, so another replica may make the call.
		if b.mode.CompareAndSwap(modeTrial, modeHalfOpen) && op == OpNone {
			op, trial = OpTrialRelease, b.trial.Load()
		}
	case m == modeTrialRunning && now > time.Duration(b.trialStarted.Load())+b.g.x.TrialTimeout:
		b.mode.CompareAndSwap(modeTrialRunning, modeHalfOpen) // presumed lost, as the store's election ends
	}
	if b.refused.Swap(0) > 0 && op == OpNone {
		if m := b.mode.Load(); m != modeTrial && m != modeTrialRunning {
			op = OpTrial
		}
	}
	k := Key{Name: b.key, Counts: b.sent, Unsent: b.unsent, Op: op, Trial: trial, Known: b.knownNow(now)}
	if op == OpOpen || op == OpTrialFailure {
		k.OpenFor = time.Duration(b.openFor.Load())
	}
	return k
}

// knownNow is what the replica knows of the key's fleet state, as of now: the store's last
// word, its times left counted down.
func (b *Breaker) knownNow(now time.Duration) KeyState {
	k := b.known
	passed := now - b.knownAt
	k.OpenLeft = max(0, k.OpenLeft-passed)
	if k.TrialLeft = max(0, k.TrialLeft-passed); k.TrialLeft == 0 {
		k.Trial = 0
	}
	return k
}

// giveBack keeps what a failed exchange did not deliver for the next one (the counts are
// sent again as they are: Key.Counts makes them count once).
func (b *Breaker) giveBack(k *Key) {
	switch k.Op {
	case OpNone:
	case OpTrial:
		b.refused.Add(1)
	default:
		b.pending.CompareAndSwap(0, pack(k.Op, k.Trial)) // a newer operation wins
	}
}

// apply takes the fleet's view of the key from a successful exchange that started at
// started and returned at now (both since the syncer's epoch), and applies the fleet's
// opening rule. An OPEN lasts OpenLeft from now (the store's clock read it between the two);
// a trial may start until OpenTimeout after started: the store's election, which holds
// OpenTimeout + TrialTimeout after its clock read (after started), never ends while this
// replica's trial may still be in flight. It queues the OnFleetStateChange call of a change.
func (b *Breaker) apply(k *Key, started, now time.Duration) {
	b.unsent = [2]int64{}
	from := b.known.State
	b.learn(&k.State, now)
	b.known, b.knownAt = k.State, now
	if to := k.State.State; to != from {
		b.g.changed(b.key, from, to)
	}
	if b.pending.Load() != 0 {
		return // a change made since the exchange began: the next exchange tells the fleet
	}
	switch k.State.State {
	case breaker.StateClosed:
		if b.mode.Swap(modeClosed) != modeClosed {
			b.local.Reset() // closed fleet-wide: start afresh, ignoring earlier calls' results
		}
		if b.g.cfg.OpenRule.met(k.Total) {
			openFor := b.g.cfg.Breaker.OpenTime(b.nextOpenings(now), time.Duration(b.wait.Load()))
			b.openFor.Store(int64(openFor))
			b.until.Store(int64(now + openFor))
			b.mode.Store(modeOpen)
			b.pending.Store(pack(OpOpen, 0))
			b.g.sync.poke()
		}
	case breaker.StateOpen:
		b.until.Store(int64(now + k.State.OpenLeft))
		b.mode.Store(modeOpen)
	case breaker.StateHalfOpen:
		switch m := b.mode.Load(); {
		case k.TrialWon:
			b.trial.Store(k.State.Trial)
			b.trialSeq.Add(1)
			b.until.Store(int64(started + b.g.x.OpenTimeout))
			b.mode.Store(modeTrial)
		case (m == modeTrial || m == modeTrialRunning) && k.State.Trial == b.trial.Load():
			// this replica's election holds: its trial is still to make, or in flight
		default:
			b.mode.Store(modeHalfOpen)
		}
	}
}

// learn counts the fleet's openings in a row from its state s, learned at now (the syncer's
// lock is held, b.known is the state learned before): an OPEN this replica has not seen
// before is one more opening in a row (nextOpenings); a change to CLOSED is noted.
func (b *Breaker) learn(s *KeyState, now time.Duration) {
	switch {
	case s.State == breaker.StateOpen && s.Changed != b.known.Changed:
		b.openings.Store(int64(b.nextOpenings(now)))
		b.lastOpenFor = s.OpenLeft
	case s.State == breaker.StateClosed && b.known.State != breaker.StateClosed:
		b.closedAt = now
	}
}

// nextOpenings is the number in a row of a fleet opening at now (the syncer's lock is held):
// 1 when the fleet is CLOSED and stayed so as long as its last OPEN lasted (or never
// opened), one more than the last otherwise, as package breaker counts them.
func (b *Breaker) nextOpenings(now time.Duration) int {
	n := int(b.openings.Load())
	if b.known.State == breaker.StateClosed && (n == 0 || now-b.closedAt >= b.lastOpenFor) {
		return 1
	}
	return min(n+1, 1<<16)
}
