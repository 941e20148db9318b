package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// newVersionCommand returns "retry version", which prints the same line as retry --version.
func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of retry and the revision it was built from",
		Long: `version prints one line: the module version of retry and, when the build recorded them,
the VCS revision and time it was built from, and whether the work tree had changes.
retry --version prints the same line. A binary from go install ...@vX.Y.Z prints
"retry vX.Y.Z"; one built in a checkout prints the pseudo-version and revision of its
commit (Go 1.24 and later; "+dirty" and "(modified)" for a changed work tree), or
"retry (devel)" when the build recorded no VCS information (-buildvcs=false).`,
		Example: `  retry version
  retry --version`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return printVersion(cmd) },
	}
}

// printVersion writes the build's versionLine to cmd's standard output.
func printVersion(cmd *cobra.Command) error {
	_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine(debug.ReadBuildInfo()))
	return err
}

// versionLine describes the build in info (ok false: none recorded) in one line:
//
//	retry v0.2.0                                        go install ...@v0.2.0
//	retry v0.0.0-20261201010742-7c28b4842d80 revision 7c28b4842d80 2026-12-01T01:07:42Z
//	                                                    go build in a checkout (Go 1.24+)
//	retry (devel), no VCS revision recorded (built with -buildvcs=false or outside a checkout)
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "retry, no build information recorded (built without module support)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var revision, when string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	line := "retry " + version
	switch {
	case revision != "":
		if len(revision) > 12 {
			revision = revision[:12]
		}
		line += " revision " + revision
		if when != "" {
			line += " " + when
		}
		if modified {
			line += " (modified)"
		}
	case version == "(devel)":
		line += ", no VCS revision recorded (built with -buildvcs=false or outside a checkout)"
	}
	return line
}
