package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrykit/retry/retrycheck"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// The standalone command runs itself as go vet's tool; these tests build it, run it on a
// small module (a package with a retry loop in its own files and in its tests, an
// external test package with another), and compare what it prints with what a driver
// that loads every package into one process (go/analysis/checker, which the command used
// before) prints for the same packages.

// demo is the module: path -> content.
var demo = map[string]string{
	"go.mod": "module example.com/demo\n\ngo 1.26\n",
	"a/a.go": `package a

import (
	"context"
	"errors"
	"time"
)

func call(ctx context.Context) error { return errors.New("unavailable") }

func Retry(ctx context.Context) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i+1) * time.Second)
	}
	return err
}
`,
	"a/a_test.go": `package a

import (
	"context"
	"testing"
	"time"
)

func retryInTest(ctx context.Context) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return err
}

func TestRetry(t *testing.T) { _ = retryInTest }
`,
	"b/b.go": "package b\n",
	"b/b_test.go": `package b_test

import (
	"context"
	"errors"
	"testing"
	"time"
)

func call(ctx context.Context) error { return errors.New("unavailable") }

func retryExternal(ctx context.Context) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return err
}

func TestRetry(t *testing.T) { _ = retryExternal }
`,
	"clean/clean.go": "package clean\n\nfunc F() int { return 1 }\n",
}

// env runs the go command offline, on the module alone.
var env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off")

// buildCommand builds retrycheck into a temporary directory.
func buildCommand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds retrycheck and runs go vet")
	}
	bin := filepath.Join(t.TempDir(), "retrycheck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// writeModule writes files into a new directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs the command in dir and returns its stdout, stderr and exit status.
func run(t *testing.T, bin, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// inProcess analyzes the packages of dir in one process and returns what the driver
// prints as text and as JSON.
func inProcess(t *testing.T, dir string, tests bool) (text, json string) {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax | packages.NeedModule, Dir: dir, Env: env, Tests: tests}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	graph, err := checker.Analyze(retrycheck.Analyzers, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var textOut, jsonOut bytes.Buffer
	if err := graph.PrintText(&textOut, -1); err != nil {
		t.Fatal(err)
	}
	if err := graph.PrintJSON(&jsonOut); err != nil {
		t.Fatal(err)
	}
	return textOut.String(), jsonOut.String()
}

func TestStandaloneOutputAsInOneProcess(t *testing.T) {
	bin := buildCommand(t)
	dir := writeModule(t, demo)
	for _, tests := range []bool{true, false} {
		flags := []string{"-test=" + map[bool]string{true: "true", false: "false"}[tests]}
		wantText, wantJSON := inProcess(t, dir, tests)
		if strings.Count(wantText, "\n") != map[bool]int{true: 3, false: 1}[tests] {
			t.Fatalf("tests %v: the module should have 3 findings with tests, 1 without; in one process:\n%s", tests, wantText)
		}
		stdout, stderr, code := run(t, bin, dir, append(flags, "./...")...)
		if stdout != "" || stderr != wantText || code != 3 {
			t.Errorf("retrycheck %v ./...: exit %d, stdout %q, stderr\n%s\nwant exit 3 and stderr\n%s", flags, code, stdout, stderr, wantText)
		}
		stdout, stderr, code = run(t, bin, dir, append(flags, "-json", "./...")...)
		if stdout != wantJSON || stderr != "" || code != 0 {
			t.Errorf("retrycheck %v -json ./...: exit %d, stderr %q, stdout\n%s\nwant exit 0 and stdout\n%s", flags, code, stderr, stdout, wantJSON)
		}
	}
}

func TestStandaloneNothingFound(t *testing.T) {
	bin := buildCommand(t)
	dir := writeModule(t, demo)
	for _, args := range [][]string{{"./clean"}, {"-retrysleep=false", "./..."}, {"-json", "./clean"}} {
		stdout, stderr, code := run(t, bin, dir, args...)
		want := map[bool]string{true: "{}\n", false: ""}[args[0] == "-json"]
		if stdout != want || stderr != "" || code != 0 {
			t.Errorf("retrycheck %v: exit %d, stdout %q, stderr %q; want exit 0, stdout %q and nothing on stderr", args, code, stdout, stderr, want)
		}
	}
}

func TestStandaloneContextLines(t *testing.T) {
	bin := buildCommand(t)
	dir := writeModule(t, demo)
	_, stderr, code := run(t, bin, dir, "-c=1", "-test=false", "./a")
	want := filepath.Join(dir, "a", "a.go") + ":17:3: time.Sleep between attempts ignores cancellation of ctx: " +
		"a canceled caller waits it out, and the loop may start another attempt (wait on a timer and ctx.Done())\n" +
		"16\t\t\t}\n17\t\t\ttime.Sleep(time.Duration(i+1) * time.Second)\n18\t\t}\n"
	if stderr != want || code != 3 {
		t.Errorf("retrycheck -c=1: exit %d, stderr\n%s\nwant exit 3 and\n%s", code, stderr, want)
	}
}

func TestStandaloneFix(t *testing.T) {
	bin := buildCommand(t)
	for _, tests := range []bool{true, false} {
		dir := writeModule(t, demo)
		flag := "-test=" + map[bool]string{true: "true", false: "false"}[tests]
		stdout, stderr, code := run(t, bin, dir, flag, "-fix", "-diff", "./...")
		var files []string
		for _, line := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(line, "--- ") {
				files = append(files, strings.TrimPrefix(strings.TrimSuffix(line, " (old)"), "--- "+dir+"/"))
			}
		}
		wantFiles := map[bool]string{true: "a/a.go a/a_test.go b/b_test.go", false: "a/a.go"}[tests]
		if got := strings.Join(files, " "); got != wantFiles || stderr != "" || code != 0 {
			t.Errorf("retrycheck %s -fix -diff: exit %d, stderr %q, diffs of %q; want exit 0 and diffs of %q", flag, code, stderr, got, wantFiles)
		}
		if _, stderr, code := run(t, bin, dir, flag, "./..."); code != 3 {
			t.Errorf("-diff changed a file: retrycheck %s then exits %d: %s", flag, code, stderr)
		}
		if stdout, stderr, code := run(t, bin, dir, flag, "-fix", "./..."); stdout != "" || stderr != "" || code != 0 {
			t.Errorf("retrycheck %s -fix: exit %d, stdout %q, stderr %q; want 0 and no output", flag, code, stdout, stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, "a", "a.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "timer := time.NewTimer(time.Duration(i+1) * time.Second)\n\t\tselect {\n\t\tcase <-ctx.Done():") {
			t.Errorf("retrycheck %s -fix: a/a.go not fixed:\n%s", flag, data)
		}
		testData, err := os.ReadFile(filepath.Join(dir, "a", "a_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		if fixed := strings.Contains(string(testData), "time.NewTimer"); fixed != tests {
			t.Errorf("retrycheck %s -fix: a/a_test.go fixed: %v, want %v", flag, fixed, tests)
		}
		if _, stderr, code := run(t, bin, dir, "./..."); tests && code != 0 {
			t.Errorf("after retrycheck -fix: exit %d, stderr %s; want 0", code, stderr)
		}
	}
}

func TestStandaloneErrors(t *testing.T) {
	bin := buildCommand(t)
	files := map[string]string{"bad/bad.go": "package bad\n\nfunc F() int { return \"x\" }\n"}
	for name, content := range demo {
		files[name] = content
	}
	dir := writeModule(t, files)
	for _, args := range [][]string{{"./..."}, {"-json", "./..."}, {"./missing/..."}} {
		_, stderr, code := run(t, bin, dir, args...)
		if code != 1 || stderr == "" {
			t.Errorf("retrycheck %v: exit %d, stderr %q; want 1 and go vet's message", args, code, stderr)
		}
	}
	if _, stderr, code := run(t, bin, dir, "-retrysleep=maybe", "./..."); code != 2 || !strings.Contains(stderr, `want true or false, got "maybe"`) {
		t.Errorf("retrycheck -retrysleep=maybe: exit %d, stderr %q; want 2 and the bad value named", code, stderr)
	}
}
