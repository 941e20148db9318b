package sdktest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry/internal/sdktest/fakeapi"
)

// burstHeaders are the rate-limit fields each SDK's bursts run with: its API's own, and for
// openai-go, whose API's fields a gateway in front of it may replace, the IETF fields and
// the older X-RateLimit ones too.
func burstHeaders(s sdk) []fakeapi.RateLimitHeaders {
	if s.api == "OpenAI" {
		return []fakeapi.RateLimitHeaders{fakeapi.APIHeaders, fakeapi.IETFHeaders, fakeapi.XRateLimitHeaders}
	}
	return []fakeapi.RateLimitHeaders{fakeapi.APIHeaders}
}

// headersTag names the fields of a burst in a test's name.
func headersTag(h fakeapi.RateLimitHeaders) string {
	switch h {
	case fakeapi.IETFHeaders:
		return "ietf-fields"
	case fakeapi.XRateLimitHeaders:
		return "x-ratelimit-fields"
	}
	return "api-fields"
}

// headersName names the fields of a burst for s.
func headersName(s sdk, h fakeapi.RateLimitHeaders) string {
	switch h {
	case fakeapi.IETFHeaders:
		return "the IETF `RateLimit`/`RateLimit-Policy` fields, no `retry-after`"
	case fakeapi.XRateLimitHeaders:
		return "`X-RateLimit-*` (reset in seconds), no `retry-after`"
	}
	if s.api == "OpenAI" {
		return "OpenAI's headers (`x-ratelimit-*-requests`, no `retry-after`)"
	}
	return "Anthropic's headers (`anthropic-ratelimit-*`, `retry-after` on a 429)"
}

// The scenarios' results, measured once per test binary (measure).
func burstOf(t *testing.T, s sdk, m mode, h fakeapi.RateLimitHeaders) burst {
	return measure(t, fmt.Sprint("burst/", s.module, "/", m.name, "/", h), func(t *testing.T) burst { return runBurst(t, s, m, h) })
}

func deadlineBurstOf(t *testing.T, s sdk, m mode) deadlineBurst {
	return measure(t, fmt.Sprint("deadline/", s.module, "/", m.name), func(t *testing.T) deadlineBurst { return runDeadlineBurst(t, s, m) })
}

func outageOf(t *testing.T, s sdk, m mode) outage {
	return measure(t, fmt.Sprint("outage/", s.module, "/", m.name), func(t *testing.T) outage { return runOutage(t, s, m) })
}

func cutOf(t *testing.T, s sdk, m mode) cut {
	return measure(t, fmt.Sprint("cut/", s.module, "/", m.name), func(t *testing.T) cut { return runCut(t, s, m) })
}

// TestReport prints issue 32's table for each SDK, the SDK alone beside the SDK over our
// Transport, as markdown (go test -v -run TestReport). It asserts nothing: the target tests
// do (targets_test.go).
//
// The successes are the same on every run. The counts of requests and 429s over ours, and
// the times, vary a little from run to run: the SDKs draw their jitter from math/rand,
// unseeded, and the order in which goroutines run within one instant of a bubble is not
// fixed. Each scenario is measured once per test binary (measure), so -count=2 prints the
// same table twice; run the test again for another draw.
func TestReport(t *testing.T) {
	for _, s := range sdks {
		var b strings.Builder
		fmt.Fprintf(&b, "\n%s\n\n| scenario | SDK alone (its 2 retries) | ours under the SDK |\n|---|---|---|\n", s.name())
		row := func(scenario string, cell func(m mode) string) {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", scenario, cell(sdkAlone), cell(overOurs))
		}
		for _, h := range burstHeaders(s) {
			row(fmt.Sprintf("%d concurrent calls, a limit of %d requests/s, %s", burstCalls, burstLimit, headersName(s, h)), func(m mode) string {
				r := burstOf(t, s, m, h)
				return fmt.Sprintf("%d of %d succeed, %d requests, %d answered 429, the last returns at %v%s%s",
					r.succeeded, r.calls, r.requests, r.throttled, seconds(r.finish), failed(r.failures), opened(m, r.breakerOpenings))
			})
			row(fmt.Sprintf("then %d calls %s after the last returned", lateCalls, human(lateAfter)), func(m mode) string {
				r := burstOf(t, s, m, h)
				return fmt.Sprintf("%d of %d%s", r.lateSucceeded, r.lateCalls, failed(r.lateFailures))
			})
		}
		row(fmt.Sprintf("%d concurrent calls, %d requests/s, each with a %s deadline (%d can be served)", burstCalls, burstLimit, human(burstDeadline), 2*burstLimit),
			func(m mode) string {
				r := deadlineBurstOf(t, s, m)
				return fmt.Sprintf("%d of %d succeed, %d answered 429; of the %d failed, %d return within %s of their last answer, %d name a wait, %d both (the slowest returns %s after its last answer)%s",
					r.succeeded, r.calls, r.throttled, r.failed, r.atOnce, human(atOnce), r.withWait, r.both, seconds(r.slowest), failed(r.failures))
			})
		row(fmt.Sprintf("a %s outage (%d from %s), a call every %s until %s after it", human(outageFor), unavailableStatus(s), human(outageFrom),
			human(outageInterval), human(outageLoadEnd-outageFrom-outageFor)), func(m mode) string {
			r := outageOf(t, s, m)
			first := "no success before the load ended"
			if r.recovered {
				first = fmt.Sprintf("the first success %v after the recovery", seconds(r.firstSuccess))
			}
			return fmt.Sprintf("%d of %d succeed, %d requests reached the sick API, %s", r.succeeded, r.calls, r.sick, first)
		})
		row("calls refused during it (none of their requests reached the API)", func(m mode) string {
			r := outageOf(t, s, m)
			if m.name == sdkAlone.name {
				return fmt.Sprintf("none: the SDK alone refuses nothing (%d calls failed)", r.failed)
			}
			return fmt.Sprintf("%d, each returns within %s, %d name a wait; %s; a failed call writes %s stop records",
				r.refused, seconds(r.refusalSlowest), r.refusalsWithWait, r.refusals, span(r.stopsMin, r.stopsMax))
		})
		row("a JSON answer cut mid-body, every time", func(m mode) string {
			r := cutOf(t, s, m)
			return fmt.Sprintf("billed %s of %s; the caller gets %s", plural(r.billed, "time"), plural(r.requests, "request"), r.failure)
		})
		t.Log(b.String())
	}
}

func unavailableStatus(s sdk) int {
	if s.api == "Anthropic" {
		return 529
	}
	return http.StatusServiceUnavailable
}

// seconds prints d in seconds with a millisecond's precision: "1.375 s".
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func failed(kinds string) string {
	if kinds == "" {
		return ""
	}
	return "; failed: " + kinds
}

func opened(m mode, n int) string {
	if m.name == sdkAlone.name {
		return ""
	}
	switch n {
	case 0:
		return "; the breaker never opened"
	case 1:
		return "; the breaker opened once"
	}
	return fmt.Sprintf("; the breaker opened %d times", n)
}

// plural prints n things: "1 request", "3 requests".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprint(n, " ", thing, "s")
}

// human prints a duration of a scenario's setup: "200 ms", "1.5 s".
func human(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprint(d.Milliseconds(), " ms")
	}
	return fmt.Sprint(d.Seconds(), " s")
}

func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}
