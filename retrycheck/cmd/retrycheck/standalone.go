package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// standalone analyzes the packages of opts by running go vet with this executable as its
// tool, one process per package, and prints what they found: as text on stderr (exit
// status 3 when something is found), or as JSON on stdout (-json, exit status 0). With
// -fix, go vet applies the fixes (-diff prints them). go vet's own messages (a package
// that does not build) go to stderr as they come, and the exit status is then 1.
func standalone(opts options, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "retrycheck: cannot find its own executable to run as go vet's tool:", err)
		return 1
	}
	args := []string{"vet", "-vettool=" + self}
	switch {
	case opts.fix && opts.diff:
		args = append(args, "-fix", "-diff")
	case opts.fix:
		args = append(args, "-fix")
	default:
		args = append(args, "-json")
	}
	args = append(args, opts.toolFlags...)
	args = append(args, opts.packages...)
	cmd := exec.Command("go", args...)
	vetErrors := &countingWriter{w: stderr}
	cmd.Stderr = vetErrors
	if opts.fix {
		return runFix(cmd, opts.diff, stdout, stderr, vetErrors)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "retrycheck:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "retrycheck: go vet runs the analysis of each package:", err)
		return 1
	}
	tree, readErr := readUnits(out)
	if readErr != nil {
		io.Copy(io.Discard, out) // let go vet finish
	}
	failed := cmd.Wait() != nil // go vet's messages are on stderr already
	if readErr != nil {
		fmt.Fprintln(stderr, "retrycheck: reading go vet's output:", readErr)
		failed = true
	}
	if opts.json {
		if tree.printJSON(stdout, opts.tests()) != nil || failed {
			return 1
		}
		return 0
	}
	found, analysisFailed := tree.printText(stderr, opts.context)
	switch {
	case failed || analysisFailed:
		return 1
	case found:
		return 3
	}
	return 0
}

// tests reports whether test files are analyzed (-test, true unless -test=false).
func (o options) tests() bool { return testsIncluded(o.toolFlags) }

// runFix runs go vet -fix, which applies the fixes, or with -diff prints them to stdout as
// unified diffs, one file after another, and then exits with status 1. Those diffs are
// printed sorted by file, and their exit status is 0 as for the fixes applied: only an
// error makes it 1.
func runFix(cmd *exec.Cmd, diff bool, stdout, stderr io.Writer, vetErrors *countingWriter) int {
	if !diff {
		cmd.Stdout = stdout
		if err := cmd.Run(); err != nil {
			return exitStatus(err, stderr)
		}
		return 0
	}
	var diffs bytes.Buffer
	cmd.Stdout = &diffs
	err := cmd.Run()
	stdout.Write(sortDiffs(diffs.Bytes()))
	if err != nil && (diffs.Len() == 0 || vetErrors.n > 0) {
		return exitStatus(err, stderr)
	}
	return 0
}

// exitStatus is 1 for a go vet that failed (its messages already on stderr), and says why
// when go vet did not run.
func exitStatus(err error, stderr io.Writer) int {
	if _, ok := errors.AsType[*exec.ExitError](err); !ok {
		fmt.Fprintln(stderr, "retrycheck: go vet runs the analysis of each package:", err)
	}
	return 1
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return c.w.Write(p)
}

// readUnits reads go vet -json's output: one JSON object per package analyzed, mapping
// its ID to each analyzer's diagnostics or error (the JSON of go/analysis drivers).
func readUnits(r io.Reader) (results, error) {
	tree := results{}
	dec := json.NewDecoder(r)
	for {
		var unit results
		if err := dec.Decode(&unit); errors.Is(err, io.EOF) {
			return tree, nil
		} else if err != nil {
			return tree, err
		}
		for id, analyzers := range unit {
			if len(analyzers) > 0 {
				tree[id] = analyzers
			}
		}
	}
}
