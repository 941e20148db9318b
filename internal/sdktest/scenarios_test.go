package sdktest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/sdktest/fakeapi"
)

// The scenarios of issue 32. Each runs one SDK, alone or over our Transport, against a fake
// API inside a synctest bubble; the bubble's clock starts with the API, so that the API's
// first window starts with the first call.

// The burst: 200 calls at once against a limit of 50 requests a second, which admits
// exactly 200 in 4 windows; then 10 calls 2 s after the last of them returned.
const (
	burstCalls  = 200
	burstLimit  = 50
	lateCalls   = 10
	lateAfter   = 2 * time.Second
	burstWithin = 4500 * time.Millisecond // the target for the 200
	// burstDeadline bounds each call of the deadline burst: 100 of the 200 can be served
	// before it (the windows starting at 0 and 1 s), the other 100 cannot.
	burstDeadline = 1500 * time.Millisecond
	// atOnce is how soon after its last answer (or its start, when none of its requests
	// reached the API) a call that stops "stops at once".
	atOnce = 5 * time.Millisecond
)

// burst is what came of a burst: the 200 calls, then the 10 late ones.
type burst struct {
	calls, succeeded int
	requests         int           // requests the API received for the 200
	throttled        int           // of them, answered 429
	finish           time.Duration // from the start to the return of the last of the 200
	failures         string
	lateCalls        int
	lateSucceeded    int
	lateFailures     string
	breakerOpenings  int // over both
	billed           int // generations the API made, over both
}

func runBurst(t *testing.T, s sdk, m mode, headers fakeapi.RateLimitHeaders) burst {
	var b burst
	onFakeAPI(t, s, m, fakeapi.Config{Limit: burstLimit, Headers: headers}, func(r *rig) {
		results := r.concurrently(burstCalls, "burst-", 0)
		requests := r.api.Requests()
		b.calls, b.succeeded, b.failures = len(results), succeeded(results), failures(results)
		b.requests = len(requests)
		b.throttled = count(requests, func(q fakeapi.Request) bool { return q.Status == http.StatusTooManyRequests })
		b.finish = lastEnd(results).Sub(r.api.Start())
		time.Sleep(lateAfter)
		late := r.concurrently(lateCalls, "late-", 0)
		b.lateCalls, b.lateSucceeded, b.lateFailures = len(late), succeeded(late), failures(late)
		b.breakerOpenings = r.watch.breakerOpenings()
		b.billed = count(r.api.Requests(), billed)
	})
	return b
}

// deadlineBurst is what came of the burst with a deadline on each call.
type deadlineBurst struct {
	calls, succeeded, failed int
	throttled                int
	// atOnce counts the failed calls that returned within atOnce of their last answer (of
	// their start when none of their requests reached the API), withWait those whose error
	// names a wait (stop.hasWait), and both those that did both.
	atOnce, withWait, both int
	// slowest is the longest a failed call took from its last answer to its return.
	slowest  time.Duration
	failures string
	billed   int
}

func runDeadlineBurst(t *testing.T, s sdk, m mode) deadlineBurst {
	var d deadlineBurst
	onFakeAPI(t, s, m, fakeapi.Config{Limit: burstLimit}, func(r *rig) {
		results := r.concurrently(burstCalls, "burst-", burstDeadline)
		requests := r.api.Requests()
		calls := byCall(requests)
		d.calls, d.succeeded, d.failures = len(results), succeeded(results), failures(results)
		d.failed = d.calls - d.succeeded
		d.throttled = count(requests, func(q fakeapi.Request) bool { return q.Status == http.StatusTooManyRequests })
		d.billed = count(requests, billed)
		for _, res := range results {
			if res.err == nil {
				continue
			}
			last := res.start
			if mine := calls[res.call]; len(mine) > 0 {
				last = mine[len(mine)-1].At
			}
			took := res.end.Sub(last)
			d.slowest = max(d.slowest, took)
			quick := took <= atOnce
			if quick {
				d.atOnce++
			}
			if res.stop.hasWait {
				d.withWait++
				if quick {
					d.both++
				}
			}
		}
	})
	return d
}

// The outage: the API answers 503 (OpenAI) or 529 (Anthropic) from 1 s to 31 s; a call
// starts every 200 ms from 0 to 40 s after the recovery.
const (
	outageFrom     = time.Second
	outageFor      = 30 * time.Second
	outageLoadEnd  = outageFrom + outageFor + 40*time.Second
	outageInterval = 200 * time.Millisecond
	// refusalWithin is the target for a refused call's return.
	refusalWithin = 5 * time.Millisecond
	// firstSuccessWithin is the target from the recovery to the first success.
	firstSuccessWithin = time.Second
)

// outage is what came of the outage.
type outage struct {
	calls, succeeded int
	sick             int // requests that reached the API during the outage
	// firstSuccess is the time from the recovery to the first request the API answered
	// 200; recovered is false when none came before the load ended.
	firstSuccess time.Duration
	recovered    bool
	// refused counts the failed calls none of whose requests reached the API; refusalSlowest
	// is the longest one of them took to return, refusalsWithWait those whose error names a
	// wait, refusals their errors.
	refused          int
	refusalSlowest   time.Duration
	refusalsWithWait int
	refusedOpen      int // of them, stopped with circuit_open
	refusals         string
	// stopsMin and stopsMax bound the stop records of a failed call, over the failed calls.
	failed             int
	stopsMin, stopsMax int
	billed             int
}

func runOutage(t *testing.T, s sdk, m mode) outage {
	var o outage
	cfg := fakeapi.Config{OutageFrom: outageFrom, OutageUntil: outageFrom + outageFor}
	onFakeAPI(t, s, m, cfg, func(r *rig) {
		var results []result
		done := make(chan result)
		n := 0
		for at := time.Duration(0); at < outageLoadEnd; at += outageInterval {
			time.Sleep(time.Until(r.api.Start().Add(at)))
			go func(call string) { done <- r.one(call, 0) }(fmt.Sprint("outage-", n))
			n++
		}
		for range n {
			results = append(results, <-done)
		}
		requests := r.api.Requests()
		calls := byCall(requests)
		recovery := r.api.Start().Add(cfg.OutageUntil)
		o.calls, o.succeeded = len(results), succeeded(results)
		o.billed = count(requests, billed)
		o.sick = count(requests, func(q fakeapi.Request) bool { return q.Status >= 500 })
		for _, q := range requests {
			if q.Status == http.StatusOK && !q.At.Before(recovery) {
				o.firstSuccess, o.recovered = q.At.Sub(recovery), true
				break
			}
		}
		var refused []result
		o.stopsMin = -1
		for _, res := range results {
			if res.err == nil {
				continue
			}
			o.failed++
			stops := r.watch.stops(res.call)
			o.stopsMax = max(o.stopsMax, stops)
			if o.stopsMin < 0 || stops < o.stopsMin {
				o.stopsMin = stops
			}
			if len(calls[res.call]) == 0 {
				refused = append(refused, res)
				o.refusalSlowest = max(o.refusalSlowest, res.elapsed())
				if res.stop.hasWait {
					o.refusalsWithWait++
				}
				if res.stop.reason == retry.ReasonCircuitOpen {
					o.refusedOpen++
				}
			}
		}
		o.stopsMin = max(o.stopsMin, 0)
		o.refused, o.refusals = len(refused), failures(refused)
	})
	return o
}

// billed reports whether the API made the generation of a request, which is billed.
func billed(q fakeapi.Request) bool { return q.Billed }

// cut is what came of one call whose every answer is cut mid-body.
type cut struct {
	requests, billed, succeeded int
	failure                     string // what the caller got: its error's kind, or "the message"
}

func runCut(t *testing.T, s sdk, m mode) cut {
	var c cut
	onFakeAPI(t, s, m, fakeapi.Config{CutBodies: true}, func(r *rig) {
		res := r.one("cut", 0)
		requests := r.api.Requests()
		c.requests = len(requests)
		c.billed = count(requests, billed)
		c.succeeded, c.failure = 1, "the message"
		if res.err != nil {
			c.succeeded, c.failure = 0, kind(res.stop, res.err)
		}
	})
	return c
}
