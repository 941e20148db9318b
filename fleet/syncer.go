package fleet

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is returned by SyncNow after Close: a closed fleet object makes no more
// exchanges, and its decisions are local.
var ErrClosed = errors.New("fleet: closed: no more exchanges, decisions are local")

// Stats counts a fleet object's exchanges with its store: the metric that says whether the
// fleet is shared or local only.
type Stats struct {
	// Exchanges is how many exchanges succeeded; Failures how many failed or timed out.
	Exchanges, Failures uint64
	// Stale reports that decisions are local only now: no exchange has succeeded within
	// StaleAfter (or none yet).
	Stale bool
	// LastError is the last exchange's error, nil when it succeeded.
	LastError error
}

// syncer runs one fleet object's exchanges: on its own goroutine every tick, and on demand
// (SyncNow, Close). Exchanges never overlap.
type syncer struct {
	cfg      Config
	replica  string
	epoch    time.Time                                   // viewAt is counted from it, by the monotonic clock
	exchange func(ctx context.Context, final bool) error // the owner's: build, Store.Exchange, apply

	viewAt    atomic.Int64 // time since epoch of the last successful exchange's start; -1 none
	fresh     atomic.Bool  // the fleet view may be used: an exchange succeeded within StaleAfter
	exchanges atomic.Uint64
	failures  atomic.Uint64

	mu        sync.Mutex // serialises exchanges; guards announced and closed
	announced bool       // OnStale(true) was called last
	closed    bool       // close made its last exchange: no more

	errMu   sync.Mutex // guards lastErr, never held during an exchange
	lastErr error

	// notifyMu guards the hook calls due (OnStale's and the owner's, queued in order under
	// mu) and whether a goroutine is making them; never held during an exchange or while a
	// hook runs, so that a hook may call SyncNow (the calls that this brings about are then
	// made by the goroutine already making calls, right after it returns).
	notifyMu  sync.Mutex
	due       []func()
	notifying bool

	// freshMu orders a success's fresh view against staleTimer, which marks the view stale
	// StaleAfter after its exchange began even while the next exchange still waits on a
	// frozen store. Never held during an exchange.
	freshMu    sync.Mutex
	staleTimer *time.Timer // nil until the first success

	wake chan struct{}
	stop chan struct{}
	// loopCtx is the loop's exchanges' context; close cancels it, so that an exchange in
	// flight gives up at once (its counts kept for Close's flush) and Close waits one
	// Timeout at most on a frozen store, not two.
	loopCtx    context.Context
	cancelLoop context.CancelFunc
	done       chan struct{}
	closeOnce  sync.Once
	closeErr   error
}

func newSyncer(cfg Config, exchange func(ctx context.Context, final bool) error) *syncer {
	s := &syncer{cfg: cfg, replica: cfg.replica(), epoch: time.Now(), exchange: exchange,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.loopCtx, s.cancelLoop = context.WithCancel(context.Background())
	s.viewAt.Store(-1)
	return s
}

func (s *syncer) start() { go s.loop() }

func (s *syncer) loop() {
	defer close(s.done)
	t := time.NewTimer(s.next())
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		case <-s.wake:
			t.Stop()
		}
		s.run(s.loopCtx)
		t.Reset(s.next())
	}
}

// next is the time to the next tick: Interval × [0.8, 1.2).
func (s *syncer) next() time.Duration {
	i := s.cfg.interval()
	return i*8/10 + rand.N(i*4/10)
}

// poke asks for an exchange now (a state change to tell the fleet) without waiting for it.
func (s *syncer) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run makes one exchange bounded by the Timeout and ctx, and updates the view's age and
// staleness; after close it makes none and returns ErrClosed (an exchange then would make
// the view fresh again, with nothing left to keep it so).
func (s *syncer) run(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	err := s.runLocked(ctx, false)
	s.mu.Unlock()
	s.notify()
	return err
}

// announce queues the call OnStale(stale, err), in the order of the changes; s.mu is held.
// notify makes it once s.mu is released.
func (s *syncer) announce(stale bool, err error) {
	s.announced = stale
	if f := s.cfg.OnStale; f != nil {
		s.queue(func() { f(stale, err) })
	}
}

// queue adds a hook call to make, in order, once s.mu is released (by notify).
func (s *syncer) queue(call func()) {
	s.notifyMu.Lock()
	s.due = append(s.due, call)
	s.notifyMu.Unlock()
}

// notify makes the hook calls due, in order, with no lock held, unless another goroutine is
// making them already (which then makes these too, such as those of a SyncNow that a hook
// itself called).
func (s *syncer) notify() {
	s.notifyMu.Lock()
	if s.notifying {
		s.notifyMu.Unlock()
		return
	}
	s.notifying = true
	for len(s.due) > 0 {
		call := s.due[0]
		s.due[0] = nil
		s.due = s.due[1:]
		s.notifyMu.Unlock()
		call()
		s.notifyMu.Lock()
	}
	s.notifying = false
	s.notifyMu.Unlock()
}

// runLocked is run with s.mu held; the hook calls it queues are made by notify. final marks
// the last exchange (Close's).
func (s *syncer) runLocked(ctx context.Context, final bool) error {
	started := time.Since(s.epoch)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	err := s.exchange(ctx, final)
	cancel()
	s.errMu.Lock()
	s.lastErr = err
	s.errMu.Unlock()
	if err == nil {
		s.exchanges.Add(1)
		s.freshMu.Lock()
		s.viewAt.Store(int64(started))
		s.fresh.Store(true)
		left := s.cfg.staleAfter() - (time.Since(s.epoch) - started)
		if s.staleTimer == nil {
			s.staleTimer = time.AfterFunc(left, s.expire)
		} else {
			s.staleTimer.Reset(left)
		}
		s.freshMu.Unlock()
		if s.announced {
			s.announce(false, nil)
		}
		return nil
	}
	s.failures.Add(1)
	if at := s.viewAt.Load(); at < 0 || time.Since(s.epoch)-time.Duration(at) > s.cfg.staleAfter() {
		s.fresh.Store(false)
		if !s.announced {
			s.announce(true, err)
		}
	}
	return err
}

// expire marks the view stale once it is StaleAfter old (staleTimer's function): the
// decisions turn local on time, not when a frozen store's exchange gives up at Timeout.
func (s *syncer) expire() {
	s.freshMu.Lock()
	defer s.freshMu.Unlock()
	if time.Since(s.epoch)-time.Duration(s.viewAt.Load()) >= s.cfg.staleAfter() {
		s.fresh.Store(false)
	}
}

// recordAttrs is the owner's fleet fields of a decision record at now: fleet_age_ms, when
// there has been a view, and fleet_stale, when it is stale; an empty attribute for each
// field left out.
func (s *syncer) recordAttrs(now time.Time) (age, stale slog.Attr) {
	at, ok, isStale := s.status(now)
	if ok {
		age = slog.Float64("fleet_age_ms", float64(at.Round(time.Microsecond))/float64(time.Millisecond))
	}
	if isStale {
		stale = slog.Bool("fleet_stale", true)
	}
	return age, stale
}

// status is the owner's FleetStatus.
func (s *syncer) status(now time.Time) (age time.Duration, ok, stale bool) {
	stale = !s.fresh.Load()
	at := s.viewAt.Load()
	if at < 0 {
		return 0, false, stale
	}
	return max(0, now.Sub(s.epoch)-time.Duration(at)), true, stale
}

func (s *syncer) stats() Stats {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return Stats{Exchanges: s.exchanges.Load(), Failures: s.failures.Load(), Stale: !s.fresh.Load(), LastError: s.lastErr}
}

// close stops the loop, waits for it, and flushes the last counts in one exchange bounded by
// the Timeout. It returns that exchange's error; later calls return the same.
func (s *syncer) close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.cancelLoop()
		<-s.done
		defer s.notify() // after the unlock below
		s.mu.Lock()
		defer s.mu.Unlock()
		s.closeErr = s.runLocked(context.Background(), true)
		s.closed = true
		s.fresh.Store(false) // no more exchanges: decisions are local from now on
		s.freshMu.Lock()
		if s.staleTimer != nil {
			s.staleTimer.Stop()
		}
		s.freshMu.Unlock()
	})
	return s.closeErr
}
