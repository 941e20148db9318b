package ratelimit

import (
	"math"
	"testing"
	"time"

	"github.com/retrykit/retry"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// The measured send rate and the fill rate after each answer follow AWS's adaptive retry
// mode exactly: the sequence of aws-sdk-go-v2's TestAdaptiveRateLimit_Update ("base"),
// answers every 200 ms from 0.2 s, throttles at 2.0 s and 3.2 s. The gate is off (no fill
// rate) until the first throttle; the send rate is measured from the first answer, on the
// lock-free path.
func TestAdaptiveFollowsAWS(t *testing.T) {
	steps := []struct {
		at        int64 // ms after the Unix epoch
		throttled bool
		measured  float64
		fill      float64 // 0: off
	}{
		{200, false, 0, 0},
		{400, false, 0, 0},
		{600, false, 4.8, 0},
		{800, false, 4.8, 0},
		{1000, false, 4.16, 0},
		{1200, false, 4.16, 0},
		{1400, false, 4.16, 0},
		{1600, false, 5.632, 0},
		{1800, false, 5.632, 0},
		{2000, true, 4.3264, 3.02848},
		{2200, false, 4.3264, 3.4866391734702598},
		{2400, false, 4.3264, 3.8218744160402554},
		{2600, false, 5.665280, 4.053385727709987},
		{2800, false, 5.665280, 4.200373108479455},
		{3000, false, 4.333056, 4.282036558348658},
		{3200, true, 4.333056, 2.99742559084406},
		{3400, false, 4.333056, 3.4522263943863463},
	}
	var g Gate
	for _, s := range steps {
		now := time.UnixMilli(s.at)
		r := retry.ResultSuccess
		if s.throttled {
			r = retry.ResultThrottled
		}
		g.Done(0, now, r, 0)
		g.mu.Lock()
		measured, on, fill := g.s.rate.rate, g.s.adaptive.on, g.s.adaptive.fill
		g.mu.Unlock()
		if !near(measured, s.measured) {
			t.Errorf("at %d ms: measured rate %v, want %v", s.at, measured, s.measured)
		}
		if s.fill == 0 && on || s.fill != 0 && (!on || !near(fill, s.fill)) {
			t.Errorf("at %d ms: adaptive on %v, fill rate %v; want %v", s.at, on, fill, s.fill)
		}
	}
}

// CUBIC's curve after a throttle at a rate of 10 at 5 s: aws-sdk-go-v2's
// TestAdaptiveRateLimit_cubic ("success"), and botocore's CubicCalculator tests (K for
// W_max 10 is 1.9574338205844317; a throttle at 8 gives 5.6 and K 1.8171205928321397).
func TestCubicCurve(t *testing.T) {
	b := cubicBucket{maxRate: 10, lastThrottle: time.Unix(5, 0)}
	b.k = math.Cbrt(b.maxRate * (1 - cubicBeta) / cubicScale)
	if !near(b.k, 1.9574338205844317) {
		t.Errorf("K = %v, want 1.9574338205844317", b.k)
	}
	for i, want := range []float64{7, 9.64893600966, 10.000030849917364, 10.453284520772092, 13.408697022224185, 21.26626835427364, 36.425998516920465} {
		if got := b.curve(time.Unix(int64(5+i), 0)); !near(got, want) {
			t.Errorf("curve at %d s = %v, want %v", 5+i, got, want)
		}
	}
	b = cubicBucket{}
	b.throttled(time.Unix(1, 0), 8)
	if !near(b.fill, 5.6) || !near(b.k, 1.8171205928321397) || b.maxRate != 8 {
		t.Errorf("throttle at 8: fill %v, K %v, W_max %v; want 5.6, 1.8171205928321397, 8", b.fill, b.k, b.maxRate)
	}
}

// With no headers, after a throttle the gate spaces attempts 1/fill apart, the throttled
// attempt holding the first place (AWS's bucket starts empty); further answers let the
// rate grow; once it limits nothing, the gate forgets it.
func TestAdaptiveSpacesAndForgets(t *testing.T) {
	var g Gate
	for i := range int64(40) { // 10 answers a second for 4 s: a measured rate of 10
		g.Done(0, ms(i*100), retry.ResultSuccess, 0)
	}
	g.Done(0, ms(4000), retry.ResultThrottled, 0)
	g.mu.Lock()
	fill := g.s.adaptive.fill
	g.mu.Unlock()
	if !near(fill, 7) {
		t.Fatalf("fill rate after a throttle at 10/s = %v, want 7", fill)
	}
	at, _ := reserveAll(&g, ms(4000), 3) // 1/7 s = 142.857142 ms apart
	wantTimes(t, "spaced 1/fill apart", at, []int64{4142, 4285, 4428})
	if _, tok := g.Reserve(ms(60000), ms(60000)); tok != 0 || g.limited.Load() {
		t.Errorf("a minute after the throttle: token %d, limited %v; want the free path", tok, g.limited.Load())
	}
}
