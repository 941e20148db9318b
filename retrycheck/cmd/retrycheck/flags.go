package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/retrykit/retry/retrycheck"
)

// options are the standalone command's flags and packages.
type options struct {
	vetProtocol bool     // go vet calls us, or help was asked: leave it all to multichecker
	json        bool     // -json: print the findings as JSON on stdout
	fix         bool     // -fix: apply each finding's first suggested fix
	diff        bool     // -diff (with -fix): print the fixes as unified diffs instead
	context     int      // -c=N: print each reported line with N lines around it; -1 none
	toolFlags   []string // flags passed on to each package's analysis: -test, -NAME
	packages    []string // package patterns, as go vet takes them
}

// forwardedBool is a flag passed on, as given, to the analysis of each package: a check's
// on/off flag (go vet's tool reads "-retrysleep" and "-retrysleep=false") or -test.
type forwardedBool struct{ value string }

func (f *forwardedBool) String() string { return f.value }

func (f *forwardedBool) IsBoolFlag() bool { return true }

func (f *forwardedBool) Set(s string) error {
	if _, err := strconv.ParseBool(s); err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	f.value = s
	return nil
}

// parseFlags reads the command line (without the program name). It returns an exit code
// of 0 or more when the command is done (after -help, or a bad flag: 2), and -1 otherwise.
func parseFlags(args []string, stderr io.Writer) (options, int) {
	if calledByVet(args) {
		return options{vetProtocol: true}, -1
	}
	fs := flag.NewFlagSet("retrycheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: retrycheck [-flag] [package ...]

retrycheck finds unsafe retries in the packages given (as go vet takes them: ./...).
Run 'retrycheck help' for the checks, 'retrycheck help NAME' for one of them.

Flags:
`)
		fs.PrintDefaults()
	}
	var o options
	fs.BoolVar(&o.json, "json", false, "emit JSON output")
	fs.IntVar(&o.context, "c", -1, "display offending line with this many lines of context")
	fs.BoolVar(&o.fix, "fix", false, "apply all suggested fixes")
	fs.BoolVar(&o.diff, "diff", false, "with -fix, don't update the files, but print a unified diff")
	forwarded := map[string]*forwardedBool{"test": {value: "true"}}
	fs.Var(forwarded["test"], "test", "indicates whether test files should be analyzed, too")
	for _, a := range retrycheck.Analyzers {
		forwarded[a.Name] = &forwardedBool{value: "true"}
		fs.Var(forwarded[a.Name], a.Name, "enable "+a.Name+" analysis")
	}
	// Flags that go vet's tools accept and that have no effect, as before.
	for _, name := range []string{"all", "source", "v"} {
		fs.Bool(name, false, "no effect (deprecated)")
	}
	fs.String("tags", "", "no effect (deprecated)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, 0
		}
		return o, 2
	}
	fs.Visit(func(f *flag.Flag) {
		if _, ok := forwarded[f.Name]; ok {
			o.toolFlags = append(o.toolFlags, "-"+f.Name+"="+f.Value.String())
		}
	})
	o.packages = fs.Args()
	if len(o.packages) == 0 || o.packages[0] == "help" {
		return options{vetProtocol: true}, -1 // multichecker prints the usage or the help
	}
	return o, -1
}

// calledByVet reports whether go vet runs the command: to describe itself (-V=full,
// -flags) or to analyze one package (its last argument a .cfg file).
func calledByVet(args []string) bool {
	if len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg") {
		return true
	}
	return slices.ContainsFunc(args, func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		return strings.HasPrefix(a, "-") && (name == "V" || name == "flags")
	})
}
