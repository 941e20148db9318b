package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// scripts/release-check passes the tool's exit status on: 2 and one line for a usage error.
// Through go run it exited 1 and added a line "exit status 2".
func TestScriptKeepsTheExitStatus(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", "..", "scripts", "release-check"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	out, err := exec.Command(script, "banana").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("release-check banana: %v, want exit status 2; output %q", err, out)
	}
	if want := "releasecheck: version \"banana\" is invalid: want a release version such as v1.2.3 or v1.2.3-rc.1\n"; string(out) != want {
		t.Errorf("release-check banana printed %q, want %q", out, want)
	}
}
