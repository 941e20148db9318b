//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputOnAFailedRequest: the final response's body is written whatever its status, so
// a stop on 503 (exit 3) replaces --output FILE with the 503's body, as curl does; with
// --fail a final status of 400 or more writes nothing: FILE is kept and stdout is empty.
func TestOutputOnAFailedRequest(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		fail, file bool
		wantCode   int
		wantBody   string // FILE's content, or stdout
		wantStderr string
	}{
		{"503 exhausted, FILE replaced by the error body", 503, false, true, exitPolicyStop, "error body\n", ""},
		{"503 exhausted, --fail keeps FILE", 503, true, true, exitPolicyStop, "last good copy\n",
			"retry http: the final status is 503: with --fail, its body was not written; --output FILE was left as it was\n"},
		{"404, --fail writes nothing to stdout", 404, true, false, exitFailed, "",
			"retry http: the final status is 404: with --fail, its body was not written\n"},
		{"404 without --fail, the body to stdout", 404, false, false, exitFailed, "error body\n", ""},
		{"200 with --fail, written", 200, true, true, exitOK, "error body\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := scripted(t, respond(tt.status, "error body\n"))
			dir := t.TempDir()
			file := filepath.Join(dir, "FILE")
			if err := os.WriteFile(file, []byte("last good copy\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"http", "--quiet", "--attempts", "2", "--base", "0s"}
			if tt.fail {
				args = append(args, "--fail")
			}
			if tt.file {
				args = append(args, "-o", file)
			}
			r := runBin(t, "", append(args, srv.URL)...)
			body := r.stdout
			if tt.file {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				body = string(data)
			}
			stderr := r.stderr
			if tt.file {
				stderr = strings.ReplaceAll(stderr, file, "FILE")
			}
			if r.code != tt.wantCode || body != tt.wantBody || stderr != tt.wantStderr {
				t.Errorf("exit %d, body %q, stderr %q; want exit %d, body %q, stderr %q",
					r.code, body, stderr, tt.wantCode, tt.wantBody, tt.wantStderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%d files beside FILE after the run, want none (no temporary file left)", len(entries)-1)
			}
		})
	}
}
