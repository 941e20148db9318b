// Package redisfleet is the Redis [fleet.Store]: replicas of a service share package
// fleet's circuit breakers, retry budgets and rate gates through one Redis (a single node, a
// replicated one or a Cluster).
//
// Each replica makes one EVALSHA per tick per fleet object (falling back to EVAL when the
// script cache was flushed, as after a restart or a failover), whatever the number of calls
// it made. For a breaker or budget group the script (exchange.lua) adds the replica's
// counts into a ring of ten time buckets per key, applies the state change asked, and
// returns the fleet's totals and state; for a rate group, its script (rate.lua) merges the
// replica's view of each quota into the fleet's, keeps the longest hold and the replica's
// demand, and returns the fleet's views, its hold and the replica's part. Redis's TIME is
// the clock, so replicas' clocks need not agree. The scripts call TIME before they write,
// which a Redis allows when it replicates a script's effects rather than the script: the
// default from Redis 5, the only way from 7 (the scripts ask for it on older ones). They
// are tested on Redis 7.0.
//
// The scripts declare every key they touch in KEYS, as Redis's scripting contract asks and
// as servers and proxies that route by declared keys need; all of a group's keys carry one
// hash tag ({PREFIX NAME:breaker}, {PREFIX NAME:budget}, {PREFIX NAME:rate}), so Redis
// Cluster keeps a group in one slot. The keys of a group, with the tag T, each with the TTL
// its purpose needs (see fleet.Store), set anew by each exchange that writes it, so that no
// key outlives a fleet that has gone by more than its TTL:
//
//	T:r             the replicas of the last window (ZSET)         Window
//	T:seen:REPLICA  the counts a replica last reported, which      Window
//	                keep a re-sent exchange from counting twice
//	T:c:KEY         a key's counts, a ring of ten buckets          Window
//	T:st            breaker groups: each key's state record (its   OpenTimeout + TrialTimeout
//	                OPEN, its election, the order of its changes)  + Window, after a change
//	T:g:KEY         budget groups: the replicas' grants            GrantFor
//	T:ge:KEY        budget groups: when the grants end             GrantFor
//	T:q:KEY         rate groups: the fleet's view of each quota    the quota's window after
//	                (HASH q:QUOTA), and the longest hold (hold)    its reset, or after the
//	                                                               exchange with no current
//	                                                               window; the hold's end
//	T:d:KEY         rate groups: each replica's demand, which      ShareFor
//	                weighs its part (HASH r:REPLICA), and since
//	                when they are kept without a gap (since)
//
// The first three are breaker and budget groups' only. Window is the fleet's window
// (fleet.OpenRule.FleetWindow for breakers, 2 s by default; the budget's Window, 10 s by
// default), OpenTimeout and TrialTimeout the breaker's (30 s and 1 min by default),
// GrantFor the budget's fleet.Config.StaleAfter (1.5 s by default), ShareFor the rate
// gate's (fleet.RateRule: StaleAfter too). A quota's window is the server's (1 s or 1 min
// for an LLM API's request and token quotas): its view says nothing once the window after
// its reset has passed, and a replica that still knows the quota tells it again.
//
// Use a client whose own retries are off and which honours context deadlines
// ([NewClient] makes one from a redis:// or rediss:// URL): the fleet bounds each exchange by
// its own timeout and falls back to local decisions when Redis is slow or gone. NewClient's
// client also dials a restarted Redis at the next tick; a client of your own keeps
// go-redis's pool, which after PoolSize failed dials stops dialling for up to a second. go-redis
// logs some failures itself, to stderr by default: [SetLogger] sends them to a slog.Logger.
package redisfleet
