package budget

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

// A Ratio and a Group made outside a synctest bubble count on the bubble's fake clock once
// used inside it: the window slides after Window of fake time (issue 17, Docs).
func TestBuiltOutsideBubble(t *testing.T) {
	cfg := RatioConfig{Ratio: 0.1, MinRetriesPerSecond: 0.1, Window: 10 * time.Second} // floor: 1 retry a window
	ratio, err := NewRatio(cfg)
	if err != nil {
		t.Fatal(err)
	}
	group, err := NewGroup(GroupConfig{Ratio: cfg})
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		for name, b := range map[string]retry.RetryBudget{"Ratio": ratio, "Group": group.Budget("k")} {
			got := []bool{b.AllowRetry(), b.AllowRetry()}
			time.Sleep(cfg.Window)
			got = append(got, b.AllowRetry())
			if got[0] != true || got[1] != false || got[2] != true {
				t.Errorf("%s: allowed %v, want [true false true]: the window must slide on the bubble's clock", name, got)
			}
		}
	})
}
