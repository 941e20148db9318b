package simulate

import (
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// --peers runs ours and every peer's defaults on the same clients; what each does during a
// total outage follows from its documented limits.
func TestPeersOutage(t *testing.T) {
	r := mustSimulate(t, Options{Scenario: "outage", Peers: true, Seed: 1, Outage: 10 * time.Second})
	if len(r.Rows) != len(peers) || r.Rows[0].Policy != "retry (ours)" || len(r.Load) != len(peers) {
		t.Fatalf("rows %d (first %q), load series %d; want %d rows, ours first", len(r.Rows), r.Rows[0].Policy, len(r.Load), len(peers))
	}
	amp := func(policy string) float64 { return value(t, r, policy, "amplification") }
	// Three attempts and no wait: every operation of the outage makes exactly three.
	if got := amp("failsafe-go http"); got < 2.99 || got > 3 {
		t.Errorf("failsafe-go amplification %v, want 3", got)
	}
	// The AWS SDK's retry quota (500 tokens, 14 a retry) runs dry early in the outage.
	if aws, ours := amp("aws-sdk-go-v2 standard"), amp("retry (ours)"); aws >= ours || aws > 1.5 {
		t.Errorf("aws-sdk-go-v2 amplification %v, ours %v: want the quota to keep it below 1.5 and ours", aws, ours)
	}
	// Peers that retry for longer than the outage answer every caller, at a price in load.
	for _, p := range []string{"avast/retry-go", "cenkalti/backoff"} {
		if got := value(t, r, p, "success_share"); got != 1 {
			t.Errorf("%s success share %v, want 1", p, got)
		}
		if got := amp(p); got < 5 {
			t.Errorf("%s amplification %v, want 5 or more", p, got)
		}
	}
	if len(r.Checks) != 4 {
		t.Errorf("%d checks, want 4 (one per measure)", len(r.Checks))
	}
}

func TestPeersContention(t *testing.T) {
	r := mustSimulate(t, Options{Scenario: "contention", Peers: true, Seed: 1, Clients: 50, Runs: 2})
	// cenkalti/backoff retries for 15 minutes: every write goes through.
	if got := value(t, r, "cenkalti/backoff", "success_share"); got != 1 {
		t.Errorf("cenkalti/backoff success share %v, want 1", got)
	}
	for _, row := range r.Rows {
		if s := row.Metrics["success_share"]; s <= 0 || s > 1 {
			t.Errorf("%s success share %v, want in (0, 1]", row.Policy, s)
		}
	}
}

// The AWS SDK's retry quota, token by token: a retry takes 14, a successful retry gives them
// back, a first-attempt success adds 1, never past 500.
func TestRetryQuota(t *testing.T) {
	q := newRetryQuota(30, 14, 1)
	for i, want := range []bool{true, true, false} {
		if got := q.AllowRetry(); got != want {
			t.Fatalf("retry %d allowed %v, want %v (tokens %d)", i, got, want, q.tokens)
		}
	}
	if q.tokens != 2 {
		t.Fatalf("tokens %d after two retries from 30, want 2", q.tokens)
	}
	q.Done(true, retry.ResultSuccess)  // a successful retry: its 14 back
	q.Done(false, retry.ResultSuccess) // a first-attempt success: +1
	q.Done(true, retry.ResultFailure)  // a failed retry: nothing
	if q.tokens != 17 {
		t.Fatalf("tokens %d, want 17", q.tokens)
	}
	for range 20 {
		q.Done(true, retry.ResultSuccess)
	}
	if q.tokens != 30 {
		t.Errorf("tokens %d, want the capacity 30", q.tokens)
	}
}

// The herd with the peers: libraries that obey Retry-After exactly come back all at once
// (every second attempt within the 10 ms the first ones took); ours spreads them over the
// whole second and answers every client.
func TestPeersHerd(t *testing.T) {
	r := mustSimulate(t, Options{Scenario: "herd", Peers: true, Seed: 1})
	for _, p := range []string{"failsafe-go http", "go-retryablehttp"} {
		if got := value(t, r, p, "return_peak_per_100ms"); got != 2000 {
			t.Errorf("%s: busiest 100 ms after the overload %v, want all 2000 clients", p, got)
		}
	}
	if got := value(t, r, "retry (ours)", "success_share"); got != 1 {
		t.Errorf("ours answered %v of the clients, want all", got)
	}
	if got := value(t, r, "retry (ours)", "return_spread_ms"); got < 900 {
		t.Errorf("ours spread second attempts over %v ms, want about 1000", got)
	}
}
