package simulate

import (
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// --peers runs ours and every peer's defaults on the same clients; what each does during a
// total outage follows from its documented limits (issue 21 item 3).
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
	// Both AWS quotas (500 tokens; 14 a retry in v1.48.0, 5 before) run dry in the outage,
	// the cheaper retries of v1.47.7 later; ours, 10 retries per client, sooner still.
	ours, aws, legacy := amp("retry (ours)"), amp("aws-sdk-go-v2 v1.48.0"), amp("aws-sdk-go-v2 v1.47.7")
	if !(ours < aws && aws < legacy && legacy <= 2) {
		t.Errorf("amplification ours %v, aws-sdk-go-v2 v1.48.0 %v, v1.47.7 %v: want ours < v1.48.0 < v1.47.7 <= 2", ours, aws, legacy)
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
	if len(r.Checks) != 1 || !r.Checks[0].Holds {
		t.Errorf("checks %+v, want the one claim of the lowest load among the libraries answering 2/3, holding", r.Checks)
	}
}

// The claim --check states, at the outage's default rate and at ten times it (issue 21:
// ours has the lowest load per operation of every library answering two thirds of its
// callers, and answers two thirds of its own).
func TestPeersOutageClaim(t *testing.T) {
	for _, o := range []Options{{}, {Rate: 1000, Capacity: 1200}} {
		o.Scenario, o.Peers, o.Seed = "outage", true, 1
		r := mustSimulate(t, o)
		if len(r.Checks) != 1 || !r.Checks[0].Holds {
			t.Errorf("rate %v: checks %+v, want the claim to hold", o.Rate, r.Checks)
		}
		if got := value(t, r, "retry (ours)", "success_share"); got < answered {
			t.Errorf("rate %v: ours answered %v, want at least 2/3", o.Rate, got)
		}
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

// The AWS SDK's retry quota, token by token: a retry takes its cost, a successful retry
// gives it back, a first-attempt success adds 1, never past the capacity; before v1.48.0 a
// successful retry added 1 as well.
func TestRetryQuota(t *testing.T) {
	q := newRetryQuota(30, 14, 1, false)
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
	legacy := newRetryQuota(30, 5, 1, true)
	legacy.AllowRetry()
	legacy.AllowRetry()
	legacy.Done(true, retry.ResultSuccess) // v1.47.7: the retry's 5 back, and +1
	if legacy.tokens != 26 {
		t.Errorf("v1.47.7 quota: tokens %d after two retries of 5 and a successful retry, want 26", legacy.tokens)
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
