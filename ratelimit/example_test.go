package ratelimit_test

import (
	"fmt"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/ratelimit"
)

// A destination said, on an answer, that 2 of its 10 requests a second are left: the gate
// admits 2 at once, then releases the others from the reset on, the window's 10 over its
// first tenth (10 ms apart); each attempt's answer goes to Observe, then Done.
func ExampleGate() {
	var gate ratelimit.Gate
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gate.Observe(start, []ratelimit.Reading{{
		Quota: "requests", Limit: 10, Remaining: 2, Reset: time.Second, From: "x-ratelimit-remaining-requests",
	}})
	var tokens []uint64
	for range 5 {
		at, token := gate.Reserve(start, start)
		fmt.Printf("send at +%v\n", at.Sub(start))
		tokens = append(tokens, token)
	}
	// The answers of the two sent at once, 20 ms later: 1 left, then none.
	now := start.Add(20 * time.Millisecond)
	for i, left := range []int64{1, 0} {
		gate.Observe(now, []ratelimit.Reading{{Quota: "requests", Limit: 10, Remaining: left, Reset: 980 * time.Millisecond}})
		gate.Done(tokens[i], now, retry.ResultSuccess, 0)
	}
	at, _ := gate.Reserve(now, now)
	fmt.Printf("then at +%v\n", at.Sub(start))
	// Output:
	// send at +0s
	// send at +0s
	// send at +1s
	// send at +1.01s
	// send at +1.02s
	// then at +1.03s
}

// One gate per destination, as breaker.Key names them: the limit one API publishes does
// not slow calls to another. With the first-contact probe on, the first attempt to a
// destination goes alone and the others ask again until its answer has told the limit.
func ExampleGroup() {
	group, err := ratelimit.NewGroup(ratelimit.GroupConfig{Gate: ratelimit.Config{ProbeWait: time.Second}})
	if err != nil {
		panic(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gate := group.Gate("https://api.openai.com:443")
	_, probe := gate.Reserve(start, start)
	at, token := gate.Reserve(start, start)
	fmt.Printf("second attempt: ask again at +%v (token %d)\n", at.Sub(start), token)

	now := start.Add(3 * time.Millisecond) // the probe's answer: 49 of 50 left for 1 s
	gate.Observe(now, []ratelimit.Reading{{Quota: "requests", Limit: 50, Remaining: 49, Reset: time.Second}})
	gate.Done(probe, now, retry.ResultSuccess, 0)
	at, _ = gate.Reserve(now, now)
	fmt.Printf("asked again at +%v: send at +%v\n", now.Sub(start), at.Sub(start))

	policy := &retry.Policy{RateGate: group.RateGate("https://api.anthropic.com:443")}
	at, _ = policy.RateGate.Reserve(start, start)
	fmt.Printf("another API: send at +%v\n", at.Sub(start))
	// Output:
	// second attempt: ask again at +1ms (token 0)
	// asked again at +3ms: send at +3ms
	// another API: send at +0s
}
