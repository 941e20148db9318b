package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimulateCommand(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "layers.svg")
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"simulate", "--scenario", "layers", "--clients", "3"}, exitOK, "[ok  ] three layers of 4 attempts make 64 calls", ""},
		{[]string{"simulate", "--scenario", "layers", "--clients", "3", "--json", "--seed", "9", "--svg", svg}, exitOK, `"seed": 9`, ""},
		{[]string{"simulate", "--scenario", "storm"}, exitUsage, "", `unknown scenario "storm": allowed are contention, outage, layers`},
		{[]string{"simulate", "--scenario", "outage", "--clients", "-1"}, exitUsage, "", "clients -1 is invalid"},
		{[]string{"simulate", "--scenario", "layers", "--svg", filepath.Join(svg, "x.svg")}, exitFailed, "", "writing the chart"},
	} {
		var stdout, stderr bytes.Buffer
		code := execute(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.err) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				tc.args, code, stdout.String(), stderr.String(), tc.code, tc.out, tc.err)
		}
	}
	if data, err := os.ReadFile(svg); err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("no SVG chart written: %v", err)
	}
}
