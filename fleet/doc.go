// Package fleet shares a circuit breaker and a retry budget among a fleet of processes (the
// replicas of a service, or many short-lived command-line runs) through a [Store], local
// first: a call never waits on the network.
//
// Every replica decides from its own local state plus the last view of the fleet. One
// goroutine per fleet object (the syncer) exchanges, once per tick (Config.Interval, default
// 500 ms, jittered), this replica's counts since the last tick for all its keys, and reads
// back the fleet's totals over the window and the shared state. A tick is one round trip to
// the store whatever the number of calls.
//
//   - [Breaker] and [BreakerGroup] (one breaker per destination, usable as
//     retryhttp.Transport.Breakers) implement retry.CircuitBreaker and retry.Reporter.
//     A replica opens when its local breaker trips (package breaker's rules) or when the
//     fleet's failure rate over the window reaches BreakerConfig.FailureRate with at least
//     BreakerConfig.MinCalls calls in the fleet. An OPEN decided anywhere reaches every
//     replica within two ticks. When the open timeout ends the fleet is HALF_OPEN: the store
//     elects one replica (in Redis, SET NX PX) to make exactly one trial call per open
//     timeout in the whole fleet; its result closes or reopens the breaker fleet-wide.
//   - [Budget] implements retry.RetryBudget: the fleet's retries stay within
//     Ratio × (fleet requests in the window) + the floor; between ticks each replica spends
//     only its share of what is left, so the fleet overshoots by at most one tick's worth.
//
// When the store is down, slow or unreachable, decisions fall back to local ones (the local
// breaker and budget keep working), no call waits, every decision record says so
// (fleet_stale, see Breaker.RecordAttrs) and [Stats] counts it; the fleet view comes back by
// itself at the first exchange that succeeds. Close stops the syncer and flushes the last
// counts; no goroutine outlives it.
//
// A short-lived process (a command-line run) calls SyncNow once before its first attempt,
// bounded by a short timeout, so that it starts from the fleet's view, and Close at exit.
//
// [MemoryStore] keeps a fleet in memory, for tests and simulations; module
// github.com/retrykit/retry/redisfleet provides the Redis store. This package imports the
// standard library and this module's packages only.
package fleet
