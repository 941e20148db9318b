package simulate

import (
	"testing"
	"time"
)

// A rolling restart, a fifth of the endpoints refusing connections for 30 s (issue 21 item
// 1): compared with no budget, the default budget adds no failed call and refuses no retry,
// since a refused connection costs it nothing; a 10% ratio budget charged for them, as
// budgets that count every failure are, refuses retries and fails calls that would have
// succeeded.
func TestRestartAddsNoFailedCall(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		r := mustSimulate(t, Options{Scenario: "restart", Seed: seed})
		withBudget, without := value(t, r, "zero Policy (default budget)", "failed_calls"), value(t, r, "zero Policy, NoBudget", "failed_calls")
		if withBudget != without || value(t, r, "zero Policy (default budget)", "budget_refusals") != 0 {
			t.Errorf("seed %d: %v failed calls with the default budget, %v without; want the same, no refusal", seed, withBudget, without)
		}
		// 3 attempts, each refused with probability 1/5: about 0.8% of the calls fail anyway.
		if share := value(t, r, "zero Policy, NoBudget", "failed_share"); share < 0.004 || share > 0.012 {
			t.Errorf("seed %d: %v of the calls failed without a budget, want about 0.008", seed, share)
		}
		if charged := value(t, r, "10% budget, refusals charged", "failed_calls"); charged < 10*without {
			t.Errorf("seed %d: a 10%% budget charged for refusals failed %v calls, no budget %v; want many more", seed, charged, without)
		}
		if len(r.Failed()) != 0 {
			t.Errorf("seed %d: checks %+v do not hold", seed, r.Failed())
		}
	}
	r := mustSimulate(t, Options{Scenario: "restart", Seed: 1, Rate: 1000, Outage: 10 * time.Second})
	if len(r.Failed()) != 0 {
		t.Errorf("rate 1000, 10 s: checks %+v do not hold", r.Failed())
	}
}
