package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/dirhash"
)

// gitRepo writes files into a fresh git repository with one commit, leaving untracked the
// files in untracked, and returns its directory.
func gitRepo(t *testing.T, files, untracked map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	dir := writeTree(t, t.TempDir(), files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "fixture"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return writeTree(t, dir, untracked)
}

// zipNames returns the names in a module zip.
func zipNames(t *testing.T, path string) []string {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

func TestBuildProxyWritesEveryPublishedModuleAtTheTestVersion(t *testing.T) {
	files := fixture()
	files[".gitignore"] = "/c\n"
	files["cmd/c/go.sum"] = "example.com/r v0.3.0 h1:old=\nexample.com/third v1.0.0/go.mod h1:third=\n"
	root := gitRepo(t, files, map[string]string{
		"c":         "a binary, ignored by .gitignore",
		"new.go":    "package r\n",    // untracked, not ignored: a file about to be committed
		"otel/x.go": "package otel\n", // belongs to otel, not to the root
	})
	r, err := findModules(root)
	if err != nil {
		t.Fatal(err)
	}
	proxy := filepath.Join(t.TempDir(), "proxy")
	when := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	built, err := buildProxy(r, "v0.9.9", proxy, when)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range built {
		got = append(got, b.Module.String())
	}
	if want := []string{"example.com/r@v0.9.9", "example.com/r/otel@v0.9.9", "example.com/r/cmd/c@v0.9.9"}; !slices.Equal(got, want) {
		t.Fatalf("built %v, want %v", got, want)
	}

	v := func(module, name string) string { return filepath.Join(proxy, filepath.FromSlash(module), "@v", name) }
	if names, want := zipNames(t, v("example.com/r", "v0.9.9.zip")), []string{
		"example.com/r@v0.9.9/.gitignore", "example.com/r@v0.9.9/go.mod", "example.com/r@v0.9.9/go.work", "example.com/r@v0.9.9/new.go", "example.com/r@v0.9.9/r.go",
	}; !slices.Equal(names, want) {
		t.Errorf("root zip holds %v, want %v (as a tag would: no nested module's file, no ignored file)", names, want)
	}
	list, _ := os.ReadFile(v("example.com/r", "list"))
	if string(list) != "v0.9.9\n" {
		t.Errorf("list = %q, want %q", list, "v0.9.9\n")
	}
	var info struct {
		Version string
		Time    time.Time
	}
	data, _ := os.ReadFile(v("example.com/r", "v0.9.9.info"))
	if err := json.Unmarshal(data, &info); err != nil || info.Version != "v0.9.9" || !info.Time.Equal(when) {
		t.Errorf("info = %s (%v), want version v0.9.9 at %v", data, err, when)
	}

	mod, _ := os.ReadFile(v("example.com/r/cmd/c", "v0.9.9.mod"))
	if want := "module example.com/r/cmd/c\n\ngo 1.26\n\nrequire (\n\texample.com/r v0.9.9\n\texample.com/r/otel v0.9.9\n)\n"; string(mod) != want {
		t.Errorf("cmd/c go.mod =\n%s\nwant\n%s", mod, want)
	}
	rootHash, err := dirhash.HashZip(v("example.com/r", "v0.9.9.zip"), dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	otelHash, _ := dirhash.HashZip(v("example.com/r/otel", "v0.9.9.zip"), dirhash.Hash1)
	z, err := zip.OpenReader(v("example.com/r/cmd/c", "v0.9.9.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	sum, err := z.Open("example.com/r/cmd/c@v0.9.9/go.sum")
	if err != nil {
		t.Fatal(err)
	}
	data, err = io.ReadAll(sum)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := []string{
		"example.com/r v0.9.9 " + rootHash,
		"example.com/r v0.9.9/go.mod " + built[0].ModHash,
		"example.com/r/otel v0.9.9 " + otelHash,
		"example.com/r/otel v0.9.9/go.mod " + built[1].ModHash,
		"example.com/third v1.0.0/go.mod h1:third=",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("cmd/c go.sum =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if built[0].ZipHash != rootHash {
		t.Errorf("ZipHash = %s, want %s", built[0].ZipHash, rootHash)
	}
}
