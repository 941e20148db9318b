package retrycheck

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ourRoots are the packages of this repository that the test cases import; the packages
// they import in turn come along.
var ourRoots = []string{"github.com/retrykit/retry", "github.com/retrykit/retry/retryhttp"}

// ourModule is the path of this repository's library module.
const ourModule = "github.com/retrykit/retry"

// errOutsideWorkspace says that the library's packages cannot be found: retrycheck's module
// is being tested on its own, outside this repository's workspace.
var errOutsideWorkspace = errors.New("the library's packages are not in this workspace (go.work): " +
	"retrycheck's tests run from a checkout of github.com/retrykit/retry")

// realDir is the GOPATH entry realGOPATH made, removed by TestMain.
var realDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if realDir != "" {
		os.RemoveAll(realDir)
	}
	os.Exit(code)
}

// realGOPATH copies the Go files (tests left out) of the library's packages that the
// tests import, and of the packages of the library they import, from the workspace into
// a new directory laid out as a GOPATH entry, and returns it.
func realGOPATH() (string, error) {
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \",\"}}"}, ourRoots...)...)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		if gowork, _ := exec.Command("go", "env", "GOWORK").Output(); strings.TrimSpace(string(gowork)) == "" ||
			strings.TrimSpace(string(gowork)) == "off" {
			return "", errOutsideWorkspace
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("go list %v: %v\n%s", ourRoots, err, exit.Stderr)
		}
		return "", fmt.Errorf("go list %v: %v", ourRoots, err)
	}
	dir, err := os.MkdirTemp("", "retrycheck-ours")
	if err != nil {
		return "", err
	}
	realDir = dir
	copied := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "\t")
		if len(parts) != 3 || parts[0] != ourModule && !strings.HasPrefix(parts[0], ourModule+"/") {
			continue // the standard library
		}
		dst := filepath.Join(dir, "src", filepath.FromSlash(parts[0]))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return "", err
		}
		for _, name := range strings.Split(parts[2], ",") {
			data, err := os.ReadFile(filepath.Join(parts[1], name))
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil {
				return "", err
			}
		}
		copied++
	}
	if copied < len(ourRoots) {
		return "", fmt.Errorf("go list %v found %d of the library's packages:\n%s", ourRoots, copied, out)
	}
	return dir, nil
}
