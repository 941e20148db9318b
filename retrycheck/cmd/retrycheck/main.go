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
// suggested fixes are applied. Exit status 0 when nothing is found, 3 when something is
// (as go vet's analyzers do), 1 on an error.
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
	// multichecker runs as go vet's tool when go vet calls it (-V=full, -flags, a .cfg
	// file), and as a standalone command otherwise.
	multichecker.Main(retrycheck.Analyzers...)
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
