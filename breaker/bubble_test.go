package breaker

import (
	"testing"
	"testing/synctest"
	"time"
)

// A Breaker and a Group made outside a synctest bubble count on the bubble's fake clock once
// used inside it: OPEN for OpenTimeout of fake time, then HALF_OPEN (issue 17, Docs).
func TestBuiltOutsideBubble(t *testing.T) {
	cfg := Config{ConsecutiveFailures: 1, OpenTimeout: time.Minute}
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGroup(GroupConfig{Breaker: cfg})
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		for name, b := range map[string]*Breaker{"Breaker": b, "Group": g.Get("k")} {
			call(t, b, fail)
			_, ok, retryIn := b.Allow()
			if ok || retryIn != time.Minute {
				t.Errorf("%s: after a failure Allow = %v, %v; want refused, 1m", name, ok, retryIn)
			}
			time.Sleep(time.Minute)
			if _, ok, _ := b.Allow(); !ok || b.State() != StateHalfOpen {
				t.Errorf("%s: after 1m Allow = %v in %v; want a trial in HALF_OPEN", name, ok, b.State())
			}
		}
	})
}
