package fleet

import (
	"context"
	"time"

	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/ratelimit"
)

// Store is where a fleet's replicas meet: one [Exchange] per tick per fleet object, for all
// its keys. Implementations must be safe for concurrent use, must return when ctx ends, and
// must apply each exchange atomically (as one Redis script does), following the rules of
// [Exchange], [Key] and [Op]. [MemoryStore] is the reference implementation.
//
// A store keeps each part of a group only as long as its purpose needs, counted from the
// last exchange that wrote it, so that nothing outlives a fleet that has gone:
//   - the replicas that made an exchange (Exchange.Replicas), the counts of the window
//     (Key.Total) and the record of each replica's last Counts, which keeps a re-sent
//     exchange from counting twice: Window;
//   - a budget group's grants: GrantFor, when every grant has ended;
//   - a breaker group's state of a key (its OPEN, its trial election, the order of its
//     changes): OpenTimeout + TrialTimeout + Window after its last change, as long as an
//     OPEN or an election lasts, and a window more for the fleet's next call to find the
//     key HALF_OPEN and be its trial; a replica that still knows the state restores it
//     (Key.Known), as after the store lost its data;
//   - a rate group's view of a quota (Key.Quotas): a window after its reset, or, with no
//     current window known, a window after the exchange that told it (a gate forgets a
//     quota so too); its hold (Key.Hold): until the hold ends; each replica's demand
//     (Key.Own), which weighs the parts: RateRule.ShareFor after its exchange, and not
//     after its Final one. A replica's next exchange restores the views it knows.
type Store interface {
	// Exchange adds x's counts to the fleet's, applies each key's Op, and fills in the
	// fleet's totals and state (the fields marked "out"). On error the outputs are
	// undefined and the caller sends the same counts again (Key.Counts, Key.Unsent) at the
	// next exchange: a store that applied the exchange though its reply was lost counts
	// them once.
	Exchange(ctx context.Context, x *Exchange) error
}

// Exchange is one replica's tick for one fleet object.
type Exchange struct {
	// Group names the fleet object: Config.Name + ":breaker" for a [Breaker] or
	// [BreakerGroup], Config.Name + ":budget" for a [Budget] or [BudgetGroup],
	// Config.Name + ":rate" for a [RateGate] or [RateGateGroup]. All replicas
	// using the same Group share its counts and state; keys of different groups never meet.
	Group string
	// Replica names this replica, unique in the fleet.
	Replica string
	// Window is how far back Total counts, in ten buckets of Window/10 by the store's clock;
	// for a rate group, how far back this replica counts its demand (Key.Own), which the
	// store does not use.
	Window time.Duration
	// OpenTimeout is how long an OPEN decided by OpOpen or OpTrialFailure lasts when its
	// Key.OpenFor is 0. An elected replica may start its trial call within OpenTimeout of its
	// exchange's start.
	OpenTimeout time.Duration
	// TrialTimeout is how long an elected trial call may run once started. A trial election
	// (OpTrial) holds OpenTimeout + TrialTimeout, unless the trial's result or its release
	// ends it first: no other replica is elected while the trial may still be in flight.
	TrialTimeout time.Duration
	// Budget, for a budget group, is the rule by which the store grants each replica the
	// retries it may spend until its next exchange (Key.Grant); nil for a breaker group.
	Budget *BudgetRule
	// Rate, for a rate group, is the rule by which the store shares each key's quotas out
	// among the replicas (Key.Part); nil for other groups. A rate group's exchange counts
	// nothing (Key.Counts, Total, Replicas: see Key.Own) and changes no state (Key.Op).
	Rate *RateRule
	// Final marks this replica's last exchange (Close): its grants end with it, and so does
	// its demand in a rate group's parts.
	Final bool
	// Keys are this replica's keys, each with its counts and operation.
	Keys []Key
	// Replicas (out) is how many replicas made an exchange in the group within Window, this
	// one included; in a rate group, how many replicas' demands the parts of a key count (the
	// most of any key).
	Replicas int
	// Opened (out) lists every key of a breaker group that is OPEN or HALF_OPEN, asked for in
	// Keys or not, with its Name and State: so that a replica refuses calls to a destination
	// the fleet has opened before its own first call there.
	Opened []Key
}

// Key is one key's part of an [Exchange]: a breaker's destination, or a budget's.
type Key struct {
	// Name names the key within the group.
	Name string
	// Counts is what this replica has counted for the key since it started: calls and
	// failures for a breaker, requests and retries for a budget. The store adds to the window
	// the difference between Counts and the Counts it recorded at this replica's last
	// exchange of the key, or Unsent when it holds no such record or Counts went down (a
	// restarted replica reusing its name, a store rolled back): counts re-sent after an
	// exchange whose reply was lost are counted once, and never negative. The record lasts
	// Window after the exchange (see [Store]): counts re-sent later than that are counted
	// again, when their first count has left the window.
	Counts [2]int64
	// Unsent is the part of Counts that no successful exchange has taken yet.
	Unsent [2]int64
	// Op is the state change asked for, applied after the counts and Known.
	Op Op
	// Trial names the election an OpTrialSuccess, OpTrialFailure or OpTrialRelease belongs to
	// (KeyState.Trial when this replica won it): the store applies the Op only while that
	// election is the key's latest and undecided, and ignores it otherwise.
	Trial int64
	// OpenFor is how long the OPEN that an OpOpen or OpTrialFailure starts lasts: the
	// replica's breaker.Config.OpenTime, which learns from a server's wait and from the
	// openings in a row; 0 means Exchange.OpenTimeout.
	OpenFor time.Duration
	// Known is the key's state as this replica last learned it. When Known.Changed is later
	// than the store's own record (the store lost its data, or went back to an older
	// snapshot), the store takes Known as the key's state, with Known's time left: no replica
	// takes CLOSED from a store that forgot an OPEN.
	Known KeyState
	// Own is this replica's requests in the window (budget groups), which weigh its grant;
	// its demand (rate groups), which weighs its part: the attempts its gate was asked for
	// within Window, or, when more, those it holds pending (waiting for their time or in
	// flight).
	Own int64
	// Draw is uniform in [0, 1) (budget groups): a fractional grant is rounded up when Draw
	// is below its fraction.
	Draw float64
	// Total (out) is the fleet's counts over the window, this exchange's included.
	Total [2]int64
	// State (out) is the key's fleet state after Op (breaker groups).
	State KeyState
	// TrialWon (out) reports that this exchange's OpTrial elected this replica to make the
	// fleet's one trial call, in the election State.Trial.
	TrialWon bool
	// Grant (out) is how many retries this replica may spend until its next exchange
	// (budget groups): see [Grant].
	Grant int64
	// Quotas (rate groups): in, this replica's view of each of the key's quotas, its reset
	// counted from the exchange's start; out, the fleet's view of every quota of the key
	// that any replica told, each merged by [MergeQuota] with what this exchange told, its
	// reset counted from the store's reply.
	Quotas []Quota
	// Hold (rate groups): in, how long from the exchange's start this replica's gate holds
	// every attempt after a throttle, 0 for none; out, the fleet's longest hold, from the
	// store's reply, so that a throttle seen by one replica holds them all.
	Hold time.Duration
	// Part (out, rate groups) is this replica's part of each of the key's quotas: see
	// [RatePart].
	Part ratelimit.Part
	// Shared (out, rate groups) is how long the store has kept the key's demands without a
	// gap (since its first exchange, or since it lost its data): while it is shorter than a
	// tick, some replicas may not have told theirs yet, and Part may be too large.
	Shared time.Duration
}

// Quota is a rate group's view of one of a key's quotas (Key.Quotas): package ratelimit's
// QuotaView with its reset counted from a moment of the exchange rather than told by a
// clock, so that the replicas' clocks and the store's need not agree.
type Quota struct {
	// Name names the quota, as ratelimit.Reading.Quota ("requests", "tokens", ...).
	Name string
	// Limit is the quota's size in units per window; 0 when unknown.
	Limit int64
	// Window is the length of the quota's window; 0 when unknown.
	Window time.Duration
	// Remaining is what the server had left of the current window when it last said;
	// negative when no current window is known.
	Remaining int64
	// ResetIn is how long until the current window ends; 0 when none is known.
	ResetIn time.Duration
}

// current reports whether q tells a current window.
func (q *Quota) current() bool { return q.Remaining >= 0 && q.ResetIn > 0 }

// KeyState is a key's fleet state, as a store reports it.
type KeyState struct {
	// State is CLOSED, OPEN (until OpenLeft from now) or HALF_OPEN (the open timeout ended;
	// a trial call decides).
	State breaker.State
	// Changed orders the key's changes of state: the store's clock, in milliseconds since
	// the Unix epoch, at its last change, made greater than the one before (0: no change
	// known). Of two records of a key, the one with the greater Changed is the newer.
	Changed int64
	// OpenLeft is how long an OPEN key stays OPEN; 0 otherwise.
	OpenLeft time.Duration
	// Trial names the key's trial election while it holds (the store's clock, in
	// milliseconds, when it was won, made greater than any before it); 0 when none holds.
	Trial int64
	// TrialLeft is how long the election Trial holds.
	TrialLeft time.Duration
}

// Op is a state change a replica asks of the store for one key.
type Op uint8

const (
	// OpNone changes nothing.
	OpNone Op = iota
	// OpOpen opens a CLOSED key for Key.OpenFor (OpenTimeout when 0); an OPEN or HALF_OPEN key is left as it is
	// (several replicas deciding at once open it once). The key is listed in
	// Exchange.Opened until it closes.
	OpOpen
	// OpTrial asks to be elected for a HALF_OPEN key's trial call: the first replica to ask
	// while no election holds wins one, which holds OpenTimeout + TrialTimeout; others, and
	// any asker when the key is not HALF_OPEN, lose.
	OpTrial
	// OpTrialSuccess reports the success of election Key.Trial's trial call: the key closes,
	// its counts are forgotten and its election ends.
	OpTrialSuccess
	// OpTrialFailure reports the failure of election Key.Trial's trial call: the key opens
	// again for Key.OpenFor (OpenTimeout when 0) and its election ends.
	OpTrialFailure
	// OpTrialRelease gives election Key.Trial back unused (the elected replica made no call
	// within OpenTimeout): the next OpTrial may win at once.
	OpTrialRelease
)
