package ratelimit

import (
	"testing"
	"time"
)

// t0 is the virtual time the tests start at.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ms is t0 plus n milliseconds.
func ms(n int64) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

// requests is a reading of a request quota.
func requests(limit, remaining int64, reset time.Duration) Reading {
	return Reading{Quota: "requests", Limit: limit, Remaining: remaining, Reset: reset, From: "x-ratelimit-remaining-requests"}
}

// reserveAll reserves n attempts at now with notBefore now and returns their times in
// milliseconds after t0, and their tokens.
func reserveAll(g *Gate, now time.Time, n int) (at []int64, tokens []uint64) {
	for range n {
		a, tok := g.Reserve(now, now)
		at = append(at, a.Sub(t0).Milliseconds())
		tokens = append(tokens, tok)
	}
	return at, tokens
}

func wantTimes(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: times %v ms, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: times %v ms, want %v", what, got, want)
		}
	}
}

func mustGate(t testing.TB, cfg Config) *Gate {
	t.Helper()
	g, err := NewGate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
