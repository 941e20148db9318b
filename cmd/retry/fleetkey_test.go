package main

import (
	"strings"
	"testing"
)

// A --fleet-key longer than the fleet allows exits 2 naming --fleet-key and its length
// (it was reported as `--breaker "": fleet: invalid config: Name ...`, naming a flag not
// given), before any connection to Redis.
func TestFleetKeyTooLong(t *testing.T) {
	key := strings.Repeat("k", 201)
	for _, extra := range [][]string{nil, {"--budget", "on"}} {
		args := append([]string{"run", "--fleet", "redis://127.0.0.1:1/0", "--fleet-key", key, "--attempts", "1"}, extra...)
		r := runBin(t, "", append(args, "--", "true")...)
		want := "--fleet-key " + `"` + key + `"` + " is 201 bytes: want 1 to 200"
		if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "--breaker") {
			t.Errorf("retry %v: exit %d, stderr %q; want 2 and %q", extra, r.code, r.stderr, want)
		}
	}
}
