package ratelimit

import (
	"math"
	"time"
)

// The constants of AWS's adaptive retry mode (aws-sdk-go-v2 aws/retry, botocore
// retries/throttling.py): CUBIC's multiplicative decrease β and scaling constant C
// (RFC 9438 section 4), the lowest fill rate, and the cap on the rate as a multiple of the
// measured send rate.
const (
	cubicBeta    = 0.7
	cubicScale   = 0.4
	minFillRate  = 0.5 // attempts per second
	maxRateScale = 2
)

// cubicBucket is the client-side rate limiter of AWS's adaptive retry mode, for
// destinations that throttle without saying their limit: off until the first throttle;
// then each throttle cuts the send rate to β times the rate it came at, and each other
// answer lets it grow back along CUBIC's curve, which regains the rate of the last
// throttle K seconds after it, never above twice the measured send rate nor below
// minFillRate. Where AWS's token bucket lets a second of its rate go at once, the gate
// spaces every attempt 1/fill apart.
type cubicBucket struct {
	on           bool
	fill         float64   // attempts per second let through
	maxRate      float64   // W_max: the rate the last throttle came at
	k            float64   // K: seconds after the last throttle when the curve is back at maxRate
	lastThrottle time.Time // when the last throttle came
	origin       time.Time // when the bucket turned on: spaced counts nanoseconds from it
	spaced       schedule  // the attempts let through, each holding 1/fill
}

// curve is CUBIC's rate at now: C·(t−K)³ + W_max, t the seconds since the last throttle.
func (b *cubicBucket) curve(now time.Time) float64 {
	dt := now.Sub(b.lastThrottle).Seconds()
	return cubicScale*math.Pow(dt-b.k, 3) + b.maxRate
}

// throttled cuts the rate for a throttle at now, measured the send rate, and turns the
// bucket on. The first throttle's attempt holds the first span, as AWS's bucket starts
// empty.
func (b *cubicBucket) throttled(now time.Time, measured float64) {
	rate := measured
	if b.on {
		rate = math.Min(measured, b.fill)
	}
	b.maxRate = rate
	b.k = math.Cbrt(rate * (1 - cubicBeta) / cubicScale)
	b.lastThrottle = now
	b.setFill(rate*cubicBeta, measured)
	if !b.on {
		b.on, b.origin = true, now
		b.spaced.add(0, int64(b.pace()), 0)
	}
}

// answered lets the rate grow along the curve for an answer at now that was no throttle.
func (b *cubicBucket) answered(now time.Time, measured float64) {
	b.setFill(b.curve(now), measured)
}

func (b *cubicBucket) setFill(rate, measured float64) {
	b.fill = math.Max(math.Min(rate, maxRateScale*measured), minFillRate)
}

// pace is the time each attempt holds at the current fill rate.
func (b *cubicBucket) pace() time.Duration {
	return max(time.Duration(float64(time.Second)/b.fill), 1)
}

// earliest returns the first time at t or later, and not before now, that the bucket lets
// an attempt through.
func (b *cubicBucket) earliest(t, now time.Time) time.Time {
	return b.at(b.spaced.earliest(b.position(later(t, now)), int64(b.pace())))
}

// admit holds the bucket's pace from t, which earliest returned, for token.
func (b *cubicBucket) admit(t time.Time, token uint64) {
	b.spaced.add(b.position(t), int64(b.pace()), token)
}

// prune forgets the spans that ended at now or before.
func (b *cubicBucket) prune(now time.Time) {
	if !b.spaced.empty() {
		b.spaced.prune(b.position(now))
	}
}

// position is t in spaced's positions: nanoseconds from when the bucket turned on; at is
// the reverse.
func (b *cubicBucket) position(t time.Time) int64 { return int64(t.Sub(b.origin)) }
func (b *cubicBucket) at(p int64) time.Time       { return b.origin.Add(time.Duration(p)) }

// stale reports whether the bucket limits nothing any more: 2K or more after the last
// throttle (the curve is then 30% above the rate that throttle came at), the curve has
// passed twice the measured send rate (and twice the lowest fill rate), and no attempt
// holds a span after now.
func (b *cubicBucket) stale(now time.Time, measured float64) bool {
	return now.Sub(b.lastThrottle).Seconds() >= 2*b.k &&
		b.curve(now) >= maxRateScale*math.Max(measured, minFillRate) &&
		b.spaced.empty()
}
