package main

import (
	"fmt"
	"testing"
)

// TestSubcommandsWithoutArgumentsSaySo: every subcommand but http (one URL) and run (a
// command) takes no arguments, and says so rather than "unknown command".
func TestSubcommandsWithoutArgumentsSaySo(t *testing.T) {
	for _, c := range newRootCommand().Commands() {
		name := c.Name()
		if name == "http" || name == "run" {
			continue
		}
		for n, args := range [][]string{{"extra"}, {"extra", "more"}} {
			code, stdout, stderr := runCLI(t, append([]string{name}, args...)...)
			want := fmt.Sprintf("retry %s: %s takes no arguments, got %d (its settings are flags)\nRun 'retry %s --help' for usage.\n", name, name, n+1, name)
			if code != exitUsage || stdout != "" || stderr != want {
				t.Errorf("retry %s %v: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", name, args, code, stdout, stderr, want)
			}
		}
	}
}
