// Package hedge decides when a retry loop sends a hedged request: a copy of an attempt that
// is slower than usual, sent while the attempt is still in flight; the loop uses whichever
// answer comes first and cancels the other ("The Tail at Scale", Dean and Barroso, CACM
// 2013: hedging after 10 ms cut a BigTable benchmark's p99.9 from 1,800 ms to 74 ms for 2 %
// more requests). A [Hedger] implements retry.Hedger; set one as retry.Policy.Hedge, or
// give each destination one of its own with a [Group] (retryhttp.Transport.Hedges,
// retrygrpc.WithHedging).
//
// # When
//
// By default the delay follows a latency percentile of the destination's recent attempts,
// as Finagle's BackupRequestFilter does: with a hedge budget of 2 %, an attempt is hedged
// when it has run longer than 98.5 % of recent attempts did, so that about 1.5 % of
// attempts are hedged and the budget, which allows 2 %, rarely has to refuse. The
// percentile is read from a histogram of the last Config.Window latencies of attempts that
// were not hedges and that succeeded; failures, which are often fast, are left out. An
// attempt the loop canceled because its hedge answered first counts as having taken at
// least as long as it ran, so that the attempts hedging cuts short still count among the
// slow ones: without them the percentile would fall as hedging works, and hedging would
// feed on itself. The delay is kept between a floor (Config.MinDelay, 1 ms) and a cap
// (Config.MaxDelay, 1 s); until the window holds enough latencies to tell the percentile,
// the delay is the cap. Config.Delay sets a fixed delay instead.
//
// # How many
//
// Each hedge spends a token of the Hedger's own budget: every attempt that is not a hedge
// adds Config.Budget of a token (2 % by default), and the budget holds at most what 1,000
// attempts add (20 hedges), so that over any stretch of traffic hedges stay within Budget ×
// attempts + 20, whatever the latencies do: when every request slows down at once (a
// brownout), the extra load stays within the budget. The retry loop also asks the policy's
// circuit breaker and its retry budget, which counts each hedge as a retry: both budgets
// must allow it. An attempt has at most Config.MaxHedges hedges (1 by default), so a loop
// of MaxAttempts attempts sends at most MaxAttempts × (1 + MaxHedges) requests.
//
// A Hedger reads no clock: its window and its budget count attempts, not seconds, so the
// command line's simulator runs the same Hedger on virtual time. Hedgers are safe for
// concurrent use; Attempt, AllowHedge and Hedged are a few atomic operations and Latency
// takes a lock. This package imports the standard library and package retry only.
package hedge
