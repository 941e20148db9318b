package main

import (
	"fmt"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/hedge"
)

// hedgeKeys are the keys of --hedge's settings, in the order the usage gives them.
var hedgeKeys = []string{"delay", "hedges"}

// hedgeUsage is --hedge's line in the usage.
const hedgeUsage = "send a hedge, a copy of a request slower than usual, and use the first\n" +
	"answer (idempotent methods, or with --idempotency-key): on (one hedge after\n" +
	"1s), or `SETTINGS` among delay=DURATION (default 1s), hedges=N (1 to 4,\n" +
	"default 1), comma-separated"

// parseHedge reads --hedge: "" (off: a nil Hedger), "on" or settings. One process sends
// one request, so it measures no latencies to adapt to: the delay is fixed, by default
// the library's cap of an adaptive one (hedge.DefaultMaxDelay). The hedge budget is the
// library's default, of which a fresh process has its whole burst.
func parseHedge(s string) (retry.Hedger, error) {
	settings, on, err := parseSettings("--hedge", s, hedgeKeys)
	if err != nil || !on {
		return nil, err
	}
	cfg := hedge.Config{Delay: hedge.DefaultMaxDelay}
	for _, kv := range settings {
		var ok bool
		var want string
		switch kv.key {
		case "delay":
			cfg.Delay, ok = durationSetting(kv.value, time.Millisecond)
			want = "a duration of at least 1ms such as 200ms"
		case "hedges":
			cfg.MaxHedges, ok = wholeSetting(kv.value)
			ok = ok && cfg.MaxHedges <= retry.MaxHedges
			want = fmt.Sprintf("a whole number from 1 to %d", retry.MaxHedges)
		}
		if !ok {
			return nil, fmt.Errorf("--hedge %s=%s: want %s", kv.key, kv.value, want)
		}
	}
	h, err := hedge.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("--hedge %q: %w", s, err)
	}
	return h, nil
}
