// Command retrycheck finds unsafe retries in Go code: nested retry loops, writes sent
// again, response bodies left open, request bodies sent empty, waits that ignore
// cancellation, unbounded loops, cancellation and 4xx statuses retried, and attempt
// functions that ignore their own context. See the package documentation of
// github.com/retrykit/retry/retrycheck for each check.
//
// Usage:
//
//	retrycheck [-flag] [package ...]             # standalone, like go vet: retrycheck ./...
//	go vet -vettool=$(which retrycheck) ./...    # as go vet's tool
//	retrycheck version                           # also retrycheck --version
//
// Each check has a flag of its own to turn it off: -retrysleep=false. With -fix the
// suggested fixes are applied (-fix -diff prints them instead); -json prints JSON; -c=N
// prints each reported line with N lines around it; -test=false leaves test files out.
// Exit status 0 when nothing is found, 3 when something is (as go vet's analyzers do), 1
// on an error, 2 on a bad flag.
//
// Standalone, retrycheck runs itself as go vet's tool on the packages given, so that each
// package is analyzed in a process of its own, with its dependencies' facts read from
// files and go's build cache keeping results between runs (memory stays that of one
// package, not of the whole program); it then prints the findings of all packages
// together. It needs the go command on $PATH and what go vet needs to build the
// packages.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/retrykit/retry/retrycheck"
	"golang.org/x/tools/go/analysis/multichecker"
)

func main() {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "version", "--version", "-version":
			info, ok := debug.ReadBuildInfo()
			fmt.Println(versionLine(info, ok))
			return
		}
	}
	opts, code := parseFlags(os.Args[1:], os.Stderr)
	if code >= 0 {
		os.Exit(code)
	}
	if opts.vetProtocol {
		// go vet calls us (-V=full, -flags, one .cfg file per package), or help was asked.
		args, skip, err := withoutTestFiles(os.Args)
		if err != nil {
			fmt.Fprintln(os.Stderr, "retrycheck:", err)
			os.Exit(1)
		}
		if skip {
			return // an external test package, and -test=false: nothing to analyze
		}
		os.Args = args
		multichecker.Main(retrycheck.Analyzers...)
		return
	}
	os.Exit(standalone(opts, os.Stdout, os.Stderr))
}

// versionLine returns "retrycheck VERSION": the module version for a go install at a
// version, and the revision of a build from a checkout.
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "retrycheck, no build information recorded (built without module support)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	line := "retrycheck " + version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && version == "(devel)" {
			rev := s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
			line += " revision " + rev
		}
	}
	return line
}
