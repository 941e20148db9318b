package retry_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// aptPackages returns the packages named by the apt-get install commands in text: the words
// after "install" up to a redirection or the end of the command, flags left out.
func aptPackages(text string) []string {
	var pkgs []string
	for _, line := range strings.Split(text, "\n") {
		_, rest, ok := strings.Cut(line, "apt-get install")
		if !ok {
			continue
		}
		for _, w := range strings.Fields(rest) {
			if strings.HasPrefix(w, ">") || w == "&&" || w == ";" || w == "|" {
				break
			}
			if !strings.HasPrefix(w, "-") && !slices.Contains(pkgs, w) {
				pkgs = append(pkgs, w)
			}
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

// TestREADMEAptLineNamesWhatCIInstalls: a user who runs the README's apt-get line gets every
// package the tests use, which is what .ci/run installs on a fresh machine.
func TestREADMEAptLineNamesWhatCIInstalls(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, got := aptPackages(string(ci)), aptPackages(string(readme))
	if len(want) == 0 {
		t.Fatal(".ci/run installs no apt package: the parse no longer matches it")
	}
	if !slices.Equal(got, want) {
		t.Errorf("README.md's apt-get line installs %v; .ci/run installs %v", got, want)
	}
}
