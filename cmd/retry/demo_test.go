//go:build unix

package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDemoPlaysFourScenarios(t *testing.T) {
	r := runBin(t, "", "demo")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout\n%s", r.code, r.stderr, r.stdout)
	}
	if r.elapsed >= 10*time.Second { // it takes about 1.5 s; the margin is for a loaded machine
		t.Errorf("the demo took %v; its help says about 1.5 s", r.elapsed)
	}
	for _, want := range []string{
		"attempt=2 method=GET",
		"attempt=3 method=GET",
		"✔ success on attempt 3",
		"reason=retry_after_exceeds_deadline retry_after=2m0s",
		"✔ stopped at once with retry_after_exceeds_deadline: 1 request",
		"method=POST",
		"reason=unknown_outcome",
		"✔ stopped with unknown_outcome, not sent again: the server did create 1 order",
		"✔ retried with the same Idempotency-Key (2 requests); the server created exactly 1 order (exit 0)",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, r.stdout)
		}
	}
	// The default policy waits the Retry-After of 1 s plus a spread of up to 1 s more.
	if !regexp.MustCompile(`reason=retry_after wait=1(\.\d+)?s retry_after=1s`).MatchString(r.stdout) {
		t.Errorf("the demo's output lacks a wait of 1 s to 2 s after Retry-After: 1:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "✔"); n != 4 {
		t.Errorf("%d verdicts are good, want 4:\n%s", n, r.stdout)
	}
}
