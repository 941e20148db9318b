package main

import (
	"runtime/debug"
	"testing"
)

// The release check runs retrycheck --version and retrycheck version after a go install
// at a version, and wants "retrycheck VERSION" on the first line (RELEASING.md).
func TestVersionLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go install at a version", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, true, "retrycheck v0.2.0"},
		{"checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}}, true, "retrycheck (devel) revision 0123456789ab"},
		{"no version", &debug.BuildInfo{}, true, "retrycheck (devel)"},
		{"no build information", nil, false, "retrycheck, no build information recorded (built without module support)"},
	} {
		if got := versionLine(tc.info, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
