package ratelimit

import (
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// BenchmarkReserveUnknown is the cost of the gate where no server has told of a limit: one
// atomic load, no lock, no allocation (issue 32).
func BenchmarkReserveUnknown(b *testing.B) {
	var g Gate
	now := ms(0)
	for b.Loop() {
		g.Reserve(now, now)
	}
}

// BenchmarkReserveUnknownParallel is the same from every core at once.
func BenchmarkReserveUnknownParallel(b *testing.B) {
	var g Gate
	now := ms(0)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			g.Reserve(now, now)
		}
	})
}

// BenchmarkAttemptUnknown is what an attempt costs the gate where no limit is known:
// Reserve and Done, the send rate counted lock-free.
func BenchmarkAttemptUnknown(b *testing.B) {
	var g Gate
	now := ms(0)
	for b.Loop() {
		_, tok := g.Reserve(now, now)
		g.Done(tok, now, retry.ResultSuccess, 0)
	}
}

// BenchmarkAttemptLimited is what an attempt costs on a destination that publishes its
// limit: Reserve, the answer's reading, Done; one lock each, 8 attempts in flight.
func BenchmarkAttemptLimited(b *testing.B) {
	var g Gate
	now := ms(0)
	reading := []Reading{requests(1<<40, 1<<40, time.Minute)}
	g.Observe(now, reading)
	var inFlight [8]uint64
	i := 0
	for b.Loop() {
		now = now.Add(time.Microsecond)
		if tok := inFlight[i%8]; tok != 0 {
			reading[0].Remaining--
			g.Observe(now, reading)
			g.Done(tok, now, retry.ResultSuccess, 0)
		}
		_, inFlight[i%8] = g.Reserve(now, now)
		i++
	}
}

// BenchmarkReserveLimited is Reserve alone on a destination whose quota is used up, so
// that every attempt takes a place in the pace after the reset (and is cancelled, to keep
// the calendar short).
func BenchmarkReserveLimited(b *testing.B) {
	var g Gate
	now := ms(0)
	g.Observe(now, []Reading{requests(1000, 0, time.Minute)})
	for b.Loop() {
		_, tok := g.Reserve(now, now)
		g.Cancel(tok, now)
	}
}

// BenchmarkGroupGate is a lookup of a destination's gate: one lock.
func BenchmarkGroupGate(b *testing.B) {
	var g Group
	g.Gate("https://api.openai.com:443")
	for b.Loop() {
		g.Gate("https://api.openai.com:443")
	}
}
