package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	revision := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}
	when := debug.BuildSetting{Key: "vcs.time", Value: "2026-11-30T23:11:29Z"}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go install at a version", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, true, "retry v0.2.0"},
		{"checkout, clean", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.1-0.20261130231129-0123456789ab"},
			Settings: []debug.BuildSetting{revision, when, {Key: "vcs.modified", Value: "false"}}}, true,
			"retry v0.2.1-0.20261130231129-0123456789ab revision 0123456789ab 2026-11-30T23:11:29Z"},
		{"checkout, modified", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{revision, when, {Key: "vcs.modified", Value: "true"}}}, true,
			"retry (devel) revision 0123456789ab 2026-11-30T23:11:29Z (modified)"},
		{"-buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true,
			"retry (devel), no VCS revision recorded (built with -buildvcs=false or outside a checkout)"},
		{"no module version", &debug.BuildInfo{}, true,
			"retry (devel), no VCS revision recorded (built with -buildvcs=false or outside a checkout)"},
		{"no build information", nil, false, "retry, no build information recorded (built without module support)"},
	}
	for _, tt := range tests {
		if got := versionLine(tt.info, tt.ok); got != tt.want {
			t.Errorf("%s: versionLine = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestVersionFlagAndSubcommandPrintTheBuildsVersion(t *testing.T) {
	want := versionLine(debug.ReadBuildInfo()) + "\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || stdout != want || stderr != "" {
			t.Errorf("retry %s: exit %d, stdout %q, stderr %q; want exit 0, stdout %q", args[0], code, stdout, stderr, want)
		}
	}
}

// TestVersionFlagTakesNoArguments: --version is handled by retry itself since issue 34 (not
// by cobra's version template), and an argument beside it is refused, not ignored.
func TestVersionFlagTakesNoArguments(t *testing.T) {
	code, stdout, stderr := runCLI(t, "--version", "extra")
	want := "retry: unknown command \"extra\" for \"retry\"\nRun 'retry --help' for usage.\n"
	if code != exitUsage || stdout != "" || stderr != want {
		t.Errorf("retry --version extra: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, stdout, stderr, want)
	}
}
