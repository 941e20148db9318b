package simulate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Issue 10's figures: with 100 replicas and 3-failure breakers, local breakers alone let at
// least 300 failed calls through; a fleet breaker a fifth of that or less, with one elected
// trial call per open timeout. The report is the same for the same seed.
func TestFleetScenarioChecksHold(t *testing.T) {
	r, err := Simulate(Options{Scenario: "fleet", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 || r.Rows[0].Policy != "local breakers" || r.Rows[1].Policy != "fleet breaker" {
		t.Fatalf("rows %+v", r.Rows)
	}
	for _, c := range r.Checks {
		if !c.Holds {
			t.Errorf("check %q does not hold: %s", c.Claim, c.Detail)
		}
	}
	local, fleet := r.Rows[0].Metrics, r.Rows[1].Metrics
	if local["failed_calls"] < 300 || fleet["failed_calls"]*5 > local["failed_calls"] || fleet["stop_s"] >= local["stop_s"] {
		t.Errorf("local %v, fleet %v", local, fleet)
	}
	again, err := Simulate(Options{Scenario: "fleet", Seed: 1})
	if err != nil || !reflect.DeepEqual(r, again) {
		t.Errorf("the same seed gave another report (%v)", err)
	}
	svg := filepath.Join(t.TempDir(), "fleet.svg")
	if err := writeChart(r, svg); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(svg); err != nil || len(b) < 1000 {
		t.Errorf("chart: %d bytes, %v", len(b), err)
	}
}
