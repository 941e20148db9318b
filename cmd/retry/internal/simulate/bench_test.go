package simulate

import (
	"testing"
	"time"
)

// BenchmarkScenarios measures the simulator's speed in events per second (an event is one
// step of virtual time: an arrival, a reply, a wake-up after a wait).
func BenchmarkScenarios(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"contention-1000", Options{Scenario: "contention", Clients: 1000, Runs: 2}},
		{"outage-10000", Options{Scenario: "outage", Clients: 10_000, Rate: 10_000, Capacity: 12_000, Outage: 10 * time.Second}},
		{"layers-10000", Options{Scenario: "layers", Clients: 10_000}},
		{"ratelimit-10000", Options{Scenario: "ratelimit", Clients: 10_000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var events int64
			for b.Loop() {
				r, err := Simulate(bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				events += r.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
