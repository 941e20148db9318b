// Package fleet shares a circuit breaker, a retry budget and a rate gate among a fleet of
// processes (the replicas of a service, or many short-lived command-line runs) through a
// [Store], local first: a call never waits on the network.
//
// Every replica decides from its own local state plus the last view of the fleet. One
// goroutine per fleet object (the syncer) exchanges, once per tick (Config.Interval, default
// 500 ms, jittered), this replica's counts for all its keys, and reads back the fleet's
// totals over the window and the shared state. A tick is one round trip to the store
// whatever the number of calls.
//
// # Breakers
//
// [Breaker] and [BreakerGroup] (one breaker per destination, usable as
// retryhttp.Transport.Breakers) implement retry.CircuitBreaker and retry.Reporter. Each
// replica has a local breaker (package breaker's rules): when it trips, that replica alone
// opens, and tells the fleet its failures at once. The fleet opens the breaker for every
// replica only by its [OpenRule]: at least MinFleetCalls calls (20) in the FleetWindow (2 s),
// FleetFailureRate (50 %) of them failed; a fleet with less traffic than 10 calls a second
// never meets the default rule and needs a longer FleetWindow. Once the rule is met, every
// replica refuses calls within two ticks. When the open timeout ends the fleet is HALF_OPEN:
// the store elects one replica to make one trial call; its result, which carries its
// election, closes or reopens the breaker fleet-wide, and a result of any other election is
// ignored. The election holds the breaker's OpenTimeout + TrialTimeout (unless the result or
// a release ends it first), and the elected replica starts its call within OpenTimeout and
// presumes it lost after TrialTimeout: there is never more than one trial call in flight in
// the whole fleet. BreakerConfig.OnFleetStateChange sees the fleet's changes of state.
//
// A throttle (retry.ResultThrottled: an HTTP 429, gRPC's RESOURCE_EXHAUSTED) counts as a call
// that did not fail, locally and in the fleet's counts, and a throttled trial call closes the
// breaker for the fleet: the service answers (see package breaker, "Throttles").
//
// # Open time
//
// A fleet-wide OPEN learns its length as a local breaker does (package breaker, "Open time";
// breaker.Config.OpenTime): the replica that asks the store to open the key, because the
// fleet's rule is met in its exchange or because its trial call failed, asks for the open
// time that its breaker.Config gives, from the server's wait of its latest failure (or of its
// trial call) and from the fleet's openings in a row as it counts them (Key.OpenFor). Every
// replica counts the fleet's openings from the changes of state it learns: an OPEN it has not
// seen is one more in a row, unless the fleet had stayed CLOSED as long as its last OPEN
// lasted. A replica that joined during a series of openings counts from its first; the store
// keeps the time it was asked for, so every replica refuses for as long. With the defaults a
// fleet-wide OPEN lasts OpenTimeout, or a server's longer wait, at most MaxOpenTimeout.
//
// # Budgets
//
// [Budget] and [BudgetGroup] (one budget per destination, usable as
// retryhttp.Transport.Budgets) implement retry.RetryBudget: the fleet's retries stay within
// Ratio × (the fleet's requests in the window) + the floor, every attempt counting as a
// request, a throttled one included. At each exchange the store grants
// each replica the retries it may spend until its next one, counting what the others hold
// unspent, so that the grants never add up to more than the rule leaves ([Grant]); each
// replica's [Share] weighs its grant by its own requests.
//
// # Rate gates
//
// [RateGate] and [RateGateGroup] (one gate per destination, usable as
// retryhttp.Transport.RateGates and retrygrpc's WithRateGates) share a rate limit that
// belongs to an account or an API key, not to one process: the replicas of a service, or a
// script's parallel retry http processes, keep together to the pace the server publishes
// (package ratelimit). Each replica has a local ratelimit.Gate that every call uses and that
// learns from every answer's headers, as it would alone. Once per tick, its exchange tells
// the store the gate's view of each quota (the limit, the window, what the server said was
// left and when it resets), the hold a throttle put on it, and its demand (the attempts its
// gate was asked for over RateGateConfig.DemandWindow, or, when more, those waiting for
// their time or in flight); it reads back:
//   - the fleet's view of each quota, which the gate learns as it learns a reading, fresher
//     winning: a lower remaining in the same window, a later window ([MergeQuota]), so that
//     what the server told any replica corrects them all;
//   - the fleet's longest hold: a 429 seen anywhere holds every replica until the server's
//     wait or the quota's reset;
//   - its part of the quotas ([RatePart]), by its demand among the replicas', as the fleet
//     budget shares its floor: of what the server says is left before a reset, the units
//     of its part (the parts tile the whole, so that the replicas admit no more than is left
//     between them, each counting against its part what it sent and has not heard back of),
//     and after the reset its part of the pace, so that the release after a reset is shared
//     by the fleet, not repeated by each replica.
//
// Reservations already made keep their times when a part changes. A part from a store that
// has shared the key for less than a tick (its first, or after it lost its data) may not
// count every replica yet, and is no larger than the part in use. Before its first
// exchange, a gate keeps to 1/RateGateConfig.MinReplicas of each quota. The adaptive rate
// (for a destination that publishes no limit) and the first-contact probe stay each
// replica's own.
//
// # When the store fails
//
// When the store is down, slow or unreachable, decisions fall back to local ones, no call
// waits, every decision record says so (fleet_stale, see Breaker.RecordAttrs) and [Stats]
// counts it; the fleet view comes back by itself at the first exchange that succeeds. A
// stale breaker is the local breaker; a stale budget keeps to its share of the fleet's rule
// (not a whole floor per replica); a stale rate gate keeps to its last part, learning from
// the answers it reads. The store's data may be lost too (a flush, a restart
// without persistence, a roll-back to an older snapshot): every exchange carries what the
// replica knows of each key ([Key.Known]) and the store takes it when it is newer than its
// own, so a fleet OPEN stays OPEN until its time is up and a trial's election holds (and a
// rate group's views come back with the next exchanges, and its parts within two ticks); counts
// are sent as totals since the replica's start ([Key.Counts]), so an exchange whose reply was
// lost, sent again, counts once. Close stops the syncer and flushes the last counts; no
// goroutine outlives it.
//
// A short-lived process (a command-line run) calls SyncNow once before its first attempt,
// bounded by a short timeout, so that it starts from the fleet's view, and Close at exit.
//
// [MemoryStore] keeps a fleet in memory, for tests and simulations; module
// github.com/retrykit/retry/redisfleet provides the Redis store. This package imports the
// standard library and this module's packages only.
package fleet
