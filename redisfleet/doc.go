// Package redisfleet is the Redis [fleet.Store]: replicas of a service share package
// fleet's circuit breakers and retry budgets through one Redis (a single node, a replicated
// one or a Cluster).
//
// Each replica makes one EVALSHA per tick per fleet object (falling back to EVAL when the
// script cache was flushed, as after a restart or a failover), whatever the number of calls
// it made: the script adds the replica's counts into time-bucketed keys with TTLs, applies
// the state change asked, and returns the fleet's totals and state. Redis's TIME is the
// clock, so replicas' clocks need not agree. Every key of one group carries the same hash
// tag ({name:breaker}, {name:budget}), so Redis Cluster keeps a group in one slot.
//
// Use a client whose own retries are off and which honours context deadlines
// ([NewClient] makes one from a redis:// or rediss:// URL): the fleet bounds each exchange by
// its own timeout and falls back to local decisions when Redis is slow or gone.
package redisfleet
