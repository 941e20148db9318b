package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/retrykit/retry/retrycheck"
)

// results maps a package ID ("p", "p [p.test]", "p_test [p.test]") to each analyzer's
// result: a JSON array of diagnostics, or an object {"error": "..."}. It is the JSON that
// go/analysis drivers print with -json.
type results map[string]map[string]json.RawMessage

// diagnostic is what the text output shows of one diagnostic.
type diagnostic struct {
	Posn, End, Message string
	Related            []struct{ Posn, End, Message string }
}

// printJSON prints the results as one JSON object, keyed as the go/analysis drivers that
// load every package at once key it. go vet analyzes a package with its test files under
// the package's path, and its external test package under "p_test"; those drivers analyze
// the package alone ("p") and again with its test files ("p [p.test]"), and name the
// external test package "p_test [p.test]". With tests, a package with test files of its
// own therefore appears twice: under "p" with the findings in its own files, and under
// "p [p.test]" with all of them. A package whose analysis found nothing is left out, as
// those drivers leave it out.
func (r results) printJSON(w io.Writer, tests bool) error {
	out := results{}
	for id, analyzers := range r {
		file := firstFile(analyzers)
		name := packageName(file)
		switch {
		case !tests || file == "":
			out[id] = analyzers
		case strings.HasSuffix(name, "_test"):
			out[id+" ["+strings.TrimSuffix(id, "_test")+".test]"] = analyzers
		case hasTestFiles(filepath.Dir(file), name):
			out[id+" ["+id+".test]"] = analyzers
			if own := withoutTestFindings(analyzers); len(own) > 0 {
				out[id] = own
			}
		default:
			out[id] = analyzers
		}
	}
	data, err := json.MarshalIndent(out, "", "\t")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// firstFile returns the file of the first diagnostic in results, or "" if there is none.
func firstFile(analyzers map[string]json.RawMessage) string {
	for _, raw := range analyzers {
		var diags []struct{ Posn string }
		if json.Unmarshal(raw, &diags) == nil && len(diags) > 0 {
			return parsePosition(diags[0].Posn).file
		}
	}
	return ""
}

// packageName returns the name in the package clause of a Go file, or "".
func packageName(file string) string {
	if file == "" {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly)
	if err != nil {
		return ""
	}
	return f.Name.Name
}

// hasTestFiles reports whether the package name in dir has test files of its own (not of
// an external test package) that the build includes.
func hasTestFiles(dir, name string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		if ok, _ := build.Default.MatchFile(dir, e.Name()); ok && packageName(filepath.Join(dir, e.Name())) == name {
			return true
		}
	}
	return false
}

// withoutTestFindings returns the results of a test variant restricted to the package's
// own files: its errors, and the diagnostics not reported in a _test.go file.
func withoutTestFindings(analyzers map[string]json.RawMessage) map[string]json.RawMessage {
	own := map[string]json.RawMessage{}
	for name, raw := range analyzers {
		var diags []json.RawMessage
		if json.Unmarshal(raw, &diags) != nil { // {"error": ...}
			own[name] = raw
			continue
		}
		var kept []json.RawMessage
		for _, d := range diags {
			var posn struct{ Posn string }
			if json.Unmarshal(d, &posn) == nil && !strings.HasSuffix(parsePosition(posn.Posn).file, "_test.go") {
				kept = append(kept, d)
			}
		}
		if len(kept) > 0 {
			own[name], _ = json.Marshal(kept)
		}
	}
	return own
}

// printText prints each diagnostic once (a file of a package and of its test variant is
// reported once), sorted by position, as "file:line:col: message", with contextLines of
// source around it when that is 0 or more, and each analysis error as "NAME: error". It
// reports whether there was a diagnostic, and whether an analysis failed.
func (r results) printText(w io.Writer, contextLines int) (found, failed bool) {
	type entry struct {
		analyzer string
		diagnostic
	}
	var entries []entry
	seen := map[string]bool{}
	var buf bytes.Buffer
	for _, analyzers := range r {
		for name, raw := range analyzers {
			var diags []diagnostic
			if json.Unmarshal(raw, &diags) != nil {
				var e struct{ Error string }
				json.Unmarshal(raw, &e)
				fmt.Fprintf(&buf, "%s: %s\n", name, e.Error)
				failed = true
				continue
			}
			for _, d := range diags {
				key := d.Posn + "\x00" + d.End + "\x00" + name + "\x00" + d.Message
				if !seen[key] {
					seen[key] = true
					entries = append(entries, entry{name, d})
				}
			}
		}
	}
	order := map[string]int{}
	for i, a := range retrycheck.Analyzers {
		order[a.Name] = i
	}
	slices.SortFunc(entries, func(a, b entry) int {
		pa, pb := parsePosition(a.Posn), parsePosition(b.Posn)
		return cmp.Or(cmp.Compare(pa.file, pb.file), cmp.Compare(pa.line, pb.line), cmp.Compare(pa.col, pb.col),
			cmp.Compare(order[a.analyzer], order[b.analyzer]), cmp.Compare(a.Message, b.Message))
	})
	for _, e := range entries {
		printPlain(&buf, e.Posn, e.End, e.Message, contextLines)
		for _, rel := range e.Related {
			printPlain(&buf, rel.Posn, rel.End, "\t"+rel.Message, contextLines)
		}
	}
	w.Write(buf.Bytes())
	return len(entries) > 0, failed
}

// printPlain prints one diagnostic as go/analysis drivers do: "posn: message", and with
// contextLines of 0 or more, the lines from start to end and that many around them.
func printPlain(w io.Writer, start, end, message string, contextLines int) {
	fmt.Fprintf(w, "%s: %s\n", start, message)
	if contextLines < 0 {
		return
	}
	from, to := parsePosition(start), parsePosition(end)
	if to.line == 0 {
		to = from
	}
	data, _ := os.ReadFile(from.file)
	lines := strings.Split(string(data), "\n")
	for i := from.line - contextLines; i <= to.line+contextLines; i++ {
		if 1 <= i && i <= len(lines) {
			fmt.Fprintf(w, "%d\t%s\n", i, lines[i-1])
		}
	}
}

// position is a "file:line:col" position (or "file:line", or a bare file name).
type position struct {
	file      string
	line, col int
}

func parsePosition(s string) position {
	var numbers []int
	for len(numbers) < 2 {
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(s[i+1:])
		if err != nil {
			break
		}
		numbers = append([]int{n}, numbers...)
		s = s[:i]
	}
	p := position{file: s}
	if len(numbers) > 0 {
		p.line = numbers[0]
	}
	if len(numbers) > 1 {
		p.col = numbers[1]
	}
	return p
}

// sortDiffs puts the unified diffs of go vet -fix -diff (one for each file, each
// beginning with a "--- FILE (old)" line, in the order the packages were done) in the
// order of their files.
func sortDiffs(diffs []byte) []byte {
	var files [][]byte
	for _, line := range bytes.SplitAfter(diffs, []byte("\n")) {
		if len(files) == 0 || bytes.HasPrefix(line, []byte("--- ")) && bytes.HasSuffix(line, []byte(" (old)\n")) {
			files = append(files, nil)
		}
		files[len(files)-1] = append(files[len(files)-1], line...)
	}
	slices.SortStableFunc(files, func(a, b []byte) int {
		a, _, _ = bytes.Cut(a, []byte("\n"))
		b, _, _ = bytes.Cut(b, []byte("\n"))
		return bytes.Compare(a, b)
	})
	return bytes.Join(files, nil)
}
