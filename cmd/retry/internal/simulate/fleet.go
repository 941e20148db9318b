package simulate

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// The fleet model (issue 10): Options.Clients replicas share Options.Rate calls a second
// (Poisson, spread evenly); the service fails every call from fleetStart for Options.Outage,
// then works again. Each replica has a local breaker (fleetFailures failures in a row open it
// for fleetOpen; then one trial call). With a fleet breaker, replicas also meet a store
// every fleetTick (jittered ×[0.8, 1.2), as package fleet's syncer): they add their counts
// to the window's, open the breaker fleet-wide when the fleet's calls in fleetWindow reach
// fleetMinCalls with at least fleetRate failed, read OPEN until the open time ends, and then
// elect one replica per open timeout for the trial call, whose result closes or reopens the
// breaker for all. Calls take no time; the model steps by fleetStepSize.
const (
	fleetStart    = 10 * time.Second
	fleetAfter    = 20 * time.Second
	fleetStepSize = 10 * time.Millisecond
	fleetTick     = 500 * time.Millisecond
	fleetFailures = 3
	fleetOpen     = 5 * time.Second
	fleetWindow   = 2 * time.Second
	fleetMinCalls = 20
	fleetRate     = 0.5
)

// fleetReplica is one replica's state: its local breaker and its view of the fleet.
type fleetReplica struct {
	fails     int           // local: failures in a row
	openUntil time.Duration // local: OPEN until then (0: CLOSED)
	view      int           // the fleet's state at the last tick: fleetClosed ...
	nextTick  time.Duration
	calls     [2]int // counts since the last tick: calls, failures
	demand    bool   // a call was refused by the fleet since the last tick
}

const (
	viewClosed = iota
	viewOpen
	viewHalfOpen
	viewTrial // elected for the trial call
)

// fleetStore is the shared store: counts per second and the fleet's breaker.
type fleetStore struct {
	buckets    map[int64][2]int
	open       bool
	openUntil  time.Duration
	trialUntil time.Duration
}

func (s *fleetStore) totals(now time.Duration) (calls, failures int) {
	newest := int64(now / time.Second)
	for b, c := range s.buckets {
		if b > newest-int64(fleetWindow/time.Second) {
			calls, failures = calls+c[0], failures+c[1]
		}
	}
	return calls, failures
}

// fleetResult is what one row of the fleet scenario measured.
type fleetResult struct {
	failed, probes, refusedAfter int
	fleetTrials                  int           // trial calls the fleet elected, during the outage
	lastFailure                  time.Duration // the last failed call that was not a trial
	load                         *load
}

func fleetScenario(o Options) (*Report, error) {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed,
		Setup: fmt.Sprintf("%d replicas share %.0f calls/s; the service fails every call from t=%v for %v, then works; "+
			"each replica's local breaker opens after %d failures in a row for %v (then one trial call); "+
			"the fleet breaker adds a store met every %v (jittered): it opens for all when %d calls in %v have %.0f%% failed, "+
			"and one replica, elected per open timeout, makes the trial call",
			o.Clients, o.Rate, fleetStart, o.Outage, fleetFailures, fleetOpen, fleetTick, fleetMinCalls, fleetWindow, fleetRate*100),
		Columns: []Column{
			{Key: "failed_calls", Meaning: "calls the sick service received during the outage"},
			{Key: "stop_s", Meaning: "time from the outage's start until the last failed call that was not a trial call", Decimals: 1},
			{Key: "probes_per_open_timeout", Meaning: "trial calls during the outage (local and elected), per open timeout", Decimals: 1},
			{Key: "refused_after_s", Meaning: "calls refused after the service was back, per second of the rest of the run", Decimals: 1},
		},
	}
	var results [2]fleetResult
	for i, shared := range []bool{false, true} {
		name := map[bool]string{false: "local breakers", true: "fleet breaker"}[shared]
		res := fleetRun(o, shared)
		results[i] = res
		r.Events += int64(o.Clients) * int64((fleetStart+o.Outage+fleetAfter)/fleetStepSize)
		r.addRow(name, float64(res.failed), (res.lastFailure - fleetStart).Seconds(),
			float64(res.probes)/(float64(o.Outage)/float64(fleetOpen)), float64(res.refusedAfter)/fleetAfter.Seconds())
		r.Load = append(r.Load, res.load.series(name, 1))
	}
	local, shared := results[0], results[1]
	madeFor := "100 replicas, 3-failure breakers"
	r.check(fmt.Sprintf("local breakers alone let the service receive at least %d failed calls (%d failures × %d replicas)",
		fleetFailures*o.Clients, fleetFailures, o.Clients), madeFor, local.failed >= fleetFailures*o.Clients,
		"local breakers: %d failed calls", local.failed)
	r.check("a fleet breaker lets through a small fraction of that (at most a fifth)", madeFor,
		shared.failed*5 <= local.failed, "fleet breaker: %d failed calls, %.1f%% of the local breakers'",
		shared.failed, 100*float64(shared.failed)/float64(max(local.failed, 1)))
	r.check("once open, a fleet breaker makes one trial call per open timeout in the whole fleet", madeFor,
		shared.fleetTrials <= int(o.Outage/fleetOpen), "fleet breaker: %d elected trial calls in %v (open timeout %v), "+
			"%d trial calls in all (local breakers' before the fleet opened included); local breakers: %d",
		shared.fleetTrials, o.Outage, fleetOpen, shared.probes, local.probes)
	return r, nil
}

// fleetRun runs the model once, with local breakers alone or with the fleet's.
func fleetRun(o Options, shared bool) fleetResult {
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 10))
	replicas := make([]fleetReplica, o.Clients)
	for i := range replicas {
		replicas[i].nextTick = time.Duration(rng.Int64N(int64(fleetTick)))
	}
	store := &fleetStore{buckets: map[int64][2]int{}}
	res := fleetResult{load: newLoad(time.Second)}
	end := fleetStart + o.Outage + fleetAfter
	perStep := o.Rate / float64(o.Clients) * fleetStepSize.Seconds() // each replica's chance of a call a step
	for now := time.Duration(0); now < end; now += fleetStepSize {
		down := now >= fleetStart && now < fleetStart+o.Outage
		for i := range replicas {
			rep := &replicas[i]
			if shared && now >= rep.nextTick {
				rep.tick(store, now)
				rep.nextTick = now + fleetTick*8/10 + time.Duration(rng.Int64N(int64(fleetTick*4/10)))
			}
			if rng.Float64() >= perStep {
				continue
			}
			trial, ok := rep.admit(now)
			if !ok {
				if now >= fleetStart+o.Outage {
					res.refusedAfter++
				}
				continue
			}
			res.load.add(now)
			rep.calls[0]++
			if down {
				rep.calls[1]++
				res.failed++
				if trial {
					res.probes++
					if rep.view == viewTrial {
						res.fleetTrials++
					}
				} else {
					res.lastFailure = now
				}
			}
			if rep.done(store, now, trial, !down) && shared {
				rep.tick(store, now) // the local breaker opened: tell the fleet at once
				rep.nextTick = now + fleetTick*8/10 + time.Duration(rng.Int64N(int64(fleetTick*4/10)))
			}
		}
	}
	return res
}

// admit says whether the replica makes a call now, and whether it is a trial call.
func (rep *fleetReplica) admit(now time.Duration) (trial, ok bool) {
	switch rep.view {
	case viewOpen, viewHalfOpen:
		rep.demand = true
		return false, false
	case viewTrial:
		return true, true
	}
	if rep.openUntil == 0 {
		return false, true
	}
	return true, now >= rep.openUntil // the local breaker's trial once its open time is over
}

// done counts a call's result in the local breaker, and a fleet trial's in the store at
// once (package fleet's syncer ticks at once to tell it). It reports whether the local
// breaker opened.
func (rep *fleetReplica) done(s *fleetStore, now time.Duration, trial, ok bool) (opened bool) {
	if rep.view == viewTrial {
		if ok {
			s.open, s.trialUntil = false, 0
			clear(s.buckets)
			rep.view, rep.fails, rep.openUntil = viewClosed, 0, 0
		} else {
			s.openUntil, s.trialUntil = now+fleetOpen, 0
			rep.view = viewOpen
		}
		return false
	}
	switch {
	case ok:
		rep.fails, rep.openUntil = 0, 0
	case trial || rep.fails+1 >= fleetFailures:
		rep.fails, rep.openUntil = 0, now+fleetOpen
		return !trial
	default:
		rep.fails++
	}
	return false
}

// tick is the replica's exchange with the store.
func (rep *fleetReplica) tick(s *fleetStore, now time.Duration) {
	b := int64(now / time.Second)
	c := s.buckets[b]
	c[0], c[1] = c[0]+rep.calls[0], c[1]+rep.calls[1]
	s.buckets[b] = c
	rep.calls = [2]int{}
	demand := rep.demand
	rep.demand = false
	switch {
	case s.open && now < s.openUntil:
		rep.view = viewOpen
	case s.open && rep.view == viewTrial:
	case s.open && demand && now >= s.trialUntil:
		s.trialUntil = now + fleetOpen
		rep.view = viewTrial
	case s.open:
		rep.view = viewHalfOpen
	default:
		if rep.view != viewClosed {
			rep.view, rep.fails, rep.openUntil = viewClosed, 0, 0 // closed fleet-wide: start afresh
		}
		if calls, failures := s.totals(now); calls >= fleetMinCalls && float64(failures) >= fleetRate*float64(calls) {
			s.open, s.openUntil, s.trialUntil = true, now+fleetOpen, 0
			rep.view = viewOpen
		}
	}
}
