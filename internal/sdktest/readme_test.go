package sdktest

import (
	"os"
	"strings"
	"testing"
)

// The README's "Calling LLM APIs" is checked here (issue 32 item 8): its Go blocks are
// compiled code of this module, its log lines what stdobs.SlogObserver prints, and its
// claims what the SDKs do over the README's wiring (readme_*_test.go).

// readmeSection returns the README's section "Calling LLM APIs", up to the next section.
func readmeSection(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Calling LLM APIs\n")
	if !ok {
		t.Fatal(`README.md has no section "## Calling LLM APIs"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// fenced returns the contents of the blocks of text fenced as lang ("```go" to "```").
func fenced(text, lang string) []string {
	var blocks []string
	for {
		_, rest, ok := strings.Cut(text, "```"+lang+"\n")
		if !ok {
			return blocks
		}
		block, after, _ := strings.Cut(rest, "```")
		blocks, text = append(blocks, block), after
	}
}

// codeLines returns the lines of code that are not blank, each with its runs of white
// space made one space (gofmt aligns comments by the lines around them).
func codeLines(code string) []string {
	var lines []string
	for line := range strings.Lines(code) {
		if f := strings.Fields(line); len(f) > 0 {
			lines = append(lines, strings.Join(f, " "))
		}
	}
	return lines
}

// contains reports whether lines holds want, line after line.
func contains(lines, want []string) bool {
	for i := 0; i+len(want) <= len(lines); i++ {
		match := true
		for j := range want {
			if lines[i+j] != want[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// readmeGoFiles hold the README's Go blocks, line for line.
var readmeGoFiles = []string{"readme_wiring_test.go", "readme_v2_test.go"}

// Every Go block of the section is code of readmeGoFiles, its lines in the same order and
// together, so that it compiles against the SDKs this module requires (openai-go v3,
// anthropic-sdk-go v1 and v2) and the library as it is.
func TestREADMEGoBlocks(t *testing.T) {
	var files [][]string
	for _, name := range readmeGoFiles {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, codeLines(string(b)))
	}
	blocks := fenced(readmeSection(t), "go")
	if len(blocks) == 0 {
		t.Fatal("the section has no Go block")
	}
	for _, block := range blocks {
		want := codeLines(block)
		found := false
		for _, lines := range files {
			found = found || contains(lines, want)
		}
		if !found {
			t.Errorf("this Go block of the README is in none of %v, line for line:\n%s", readmeGoFiles, block)
		}
	}
}
