//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// retry http -o /dev/stdout (or /dev/fd/N) with stdout redirected to a regular file, as in
// `{ echo before; retry http -o /dev/stdout URL; echo after; } > log`, writes the body
// through the descriptor: the file keeps what the shell wrote before and after. It used to
// resolve /dev/stdout to the file and rename a temporary file over it, losing both.
func TestHTTPOutputToAnOpenDescriptorIsWrittenInPlace(t *testing.T) {
	srv, _ := scripted(t, respond(200, "body\n"))
	for _, output := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/fd/3"} {
		t.Run(output, func(t *testing.T) {
			if _, err := os.Stat(filepath.Dir(output)); err != nil {
				t.Skipf("%s: %v", filepath.Dir(output), err)
			}
			log := filepath.Join(t.TempDir(), "log")
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			before, _ := f.Stat()
			f.WriteString("before\n")
			c := exec.Command(retryBin, "http", "--quiet", "-o", output, srv.URL)
			c.Stdout, c.ExtraFiles = f, []*os.File{f} // the child's fd 1 and fd 3
			if err := c.Run(); err != nil {
				t.Fatalf("retry http -o %s: %v", output, err)
			}
			f.WriteString("after\n")
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			after, err := os.Stat(log)
			if string(data) != "before\nbody\nafter\n" || err != nil || !os.SameFile(before, after) {
				t.Errorf("log holds %q (the same file: %v), want %q in the file the shell opened", data, err == nil && os.SameFile(before, after), "before\nbody\nafter\n")
			}
		})
	}
	r := runBin(t, "", "http", "-o", "/dev/fd/9", srv.URL)
	if want := "retry http: --output: open /dev/fd/9: not an open file descriptor of retry\n"; r.code != 2 || r.stderr != want {
		t.Errorf("-o /dev/fd/9 (not open): exit %d, stderr %q; want 2, %q", r.code, r.stderr, want)
	}
}
