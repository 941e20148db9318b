package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/retrykit/retry/cmd/retry/internal/simulate"
)

var update = flag.Bool("update", false, "rewrite the generated reference in README.md from --help")

const (
	referenceStart = "<!-- Generated from --help by TestREADMEReferenceMatchesHelp; to refresh: go test ./cmd/retry -run TestREADME -update -->\n"
	referenceEnd   = "<!-- End of the generated reference. -->\n"
)

// reference returns the help of retry and of every subcommand as Markdown.
func reference(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	section := func(title string, args ...string) {
		code, stdout, stderr := runCLI(t, append(args, "--help")...)
		if code != 0 || stderr != "" {
			t.Fatalf("%s --help: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
		b.WriteString("### " + title + "\n\n```text\n$ " + strings.Join(append([]string{"retry"}, args...), " ") + " --help\n" + stdout + "```\n\n")
	}
	section("retry")
	for _, c := range newRootCommand().Commands() {
		section("retry "+c.Name(), c.Name())
	}
	return b.String()
}

func TestREADMEReferenceMatchesHelp(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok1 := strings.Cut(string(readme), referenceStart)
	_, tail, ok2 := strings.Cut(rest, referenceEnd)
	if !ok1 || !ok2 {
		t.Fatalf("README.md lacks the markers of the generated reference")
	}
	want := head + referenceStart + "\n" + reference(t) + referenceEnd + tail
	if *update {
		if err := os.WriteFile("README.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(readme) != want {
		t.Errorf("README.md's reference differs from --help: run go test ./cmd/retry -run TestREADME -update (from the repository root) and review the diff")
	}
}

func TestEverySubcommandHasHelpWithExamples(t *testing.T) {
	for _, c := range newRootCommand().Commands() {
		if c.Example == "" || c.Short == "" || c.Long == "" {
			t.Errorf("retry %s: Short, Long and Example must all be set", c.Name())
		}
		code, stdout, _ := runCLI(t, c.Name(), "--help")
		if code != 0 || !strings.Contains(stdout, "Examples:\n") {
			t.Errorf("retry %s --help: exit %d, no examples:\n%s", c.Name(), code, stdout)
		}
	}
}

// The hand-written table of subcommands names every scenario of retry simulate: it listed
// three of five after herd and fleet landed.
func TestREADMESubcommandTableNamesEveryScenario(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "| `retry simulate --scenario " + strings.Join(simulate.Scenarios, `\|`) + "` |"
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md's table of subcommands lacks the row %q", want)
	}
}
