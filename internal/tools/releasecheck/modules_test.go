package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTree writes files (slash paths relative to dir) and returns dir.
func writeTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fixture is a repository laid out as this one: a library at the root, an integration
// module and a command requiring it at v0.3.0, and modules that are never published.
func fixture() map[string]string {
	return map[string]string{
		"go.mod":                "module example.com/r\n\ngo 1.26\n",
		"r.go":                  "package r\n\nconst Name = \"r\"\n",
		"otel/go.mod":           "module example.com/r/otel\n\ngo 1.26\n\nrequire example.com/r v0.3.0\n",
		"otel/o.go":             "package otel\n\nimport \"example.com/r\"\n\nconst Name = r.Name\n",
		"cmd/c/go.mod":          "module example.com/r/cmd/c\n\ngo 1.26\n\nrequire (\n\texample.com/r v0.3.0\n\texample.com/r/otel v0.3.0\n)\n",
		"cmd/c/main.go":         "package main\n\nimport \"example.com/r/otel\"\n\nfunc main() { println(otel.Name) }\n",
		"bench/go.mod":          "module example.com/r/bench\n\ngo 1.26\n\nrequire example.com/r v0.3.0\n",
		"examples/e/go.mod":     "module example.com/r/examples/e\n\ngo 1.26\n",
		"internal/tools/go.mod": "module example.com/r/internal/tools\n\ngo 1.26\n",
		"testdata/x/go.mod":     "module example.com/ignored\n",
		".hidden/go.mod":        "module example.com/ignored\n",
		"go.work": "go 1.26\n\nuse (\n\t.\n\t./bench\n\t./cmd/c\n\t./examples/e\n\t./internal/tools\n\t./otel\n)\n\n" +
			"replace (\n\texample.com/r v0.3.0 => ./\n\texample.com/r/otel v0.3.0 => ./otel\n)\n",
	}
}

func TestFindModulesClassifiesPublished(t *testing.T) {
	r, err := findModules(writeTree(t, t.TempDir(), fixture()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range r.Modules {
		got = append(got, m.Dir+" "+m.Path+" "+map[bool]string{true: "published", false: "never"}[m.Published])
	}
	want := []string{
		". example.com/r published",
		"bench example.com/r/bench never",
		"cmd/c example.com/r/cmd/c published",
		"examples/e example.com/r/examples/e never",
		"internal/tools example.com/r/internal/tools never",
		"otel example.com/r/otel published",
	}
	if !slices.Equal(got, want) {
		t.Errorf("modules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	order, err := r.releaseOrder()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range order {
		paths = append(paths, m.Dir)
	}
	if want := []string{".", "otel", "cmd/c"}; !slices.Equal(paths, want) {
		t.Errorf("release order %v, want %v (each module after those it requires)", paths, want)
	}
}

func TestPreparedVersion(t *testing.T) {
	tests := []struct {
		name    string
		change  map[string]string
		want    string // the version, or a part of the error
		wantErr bool
	}{
		{"consistent", nil, "v0.3.0", false},
		{"a replace line", map[string]string{"otel/go.mod": "module example.com/r/otel\n\ngo 1.26\n\nrequire example.com/r v0.3.0\n\nreplace example.com/r => ../\n"},
			"otel/go.mod: replace example.com/r => ../: a published go.mod must not replace", true},
		{"two versions", map[string]string{"bench/go.mod": "module example.com/r/bench\n\ngo 1.26\n\nrequire example.com/r v0.2.0\n"},
			"bench requires example.com/r v0.2.0", true},
		{"a placeholder version", map[string]string{
			"otel/go.mod":  "module example.com/r/otel\n\ngo 1.26\n\nrequire example.com/r v0.0.0-00010101000000-000000000000\n",
			"cmd/c/go.mod": "module example.com/r/cmd/c\n\ngo 1.26\n\nrequire example.com/r v0.0.0-00010101000000-000000000000\n",
			"bench/go.mod": "module example.com/r/bench\n\ngo 1.26\n\nrequire example.com/r v0.0.0-00010101000000-000000000000\n"},
			`require a release version (vX.Y.Z), not "v0.0.0-00010101000000-000000000000"`, true},
		{"published requires unpublished", map[string]string{"otel/go.mod": "module example.com/r/otel\n\ngo 1.26\n\nrequire (\n\texample.com/r v0.3.0\n\texample.com/r/bench v0.3.0\n)\n"},
			"otel (published) requires example.com/r/bench, which is never published", true},
		{"go.work lacks a replace", map[string]string{"go.work": "go 1.26\n\nuse (\n\t.\n\t./bench\n\t./cmd/c\n\t./examples/e\n\t./internal/tools\n\t./otel\n)\n\nreplace example.com/r v0.3.0 => ./\n"},
			`go.work lacks "replace example.com/r/otel v0.3.0 => ./otel" (cmd/c requires it`, true},
		{"go.work lacks a use", map[string]string{"go.work": "go 1.26\n\nuse (\n\t.\n\t./bench\n\t./cmd/c\n\t./examples/e\n\t./otel\n)\n\nreplace (\n\texample.com/r v0.3.0 => ./\n\texample.com/r/otel v0.3.0 => ./otel\n)\n"},
			"go.work does not use internal/tools: run go work use ./internal/tools", true},
	}
	for _, tt := range tests {
		files := fixture()
		for k, v := range tt.change {
			files[k] = v
		}
		r, err := findModules(writeTree(t, t.TempDir(), files))
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.preparedVersion()
		switch {
		case tt.wantErr && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: preparedVersion() = %q, %v; want an error containing %q", tt.name, got, err, tt.want)
		case !tt.wantErr && (err != nil || got != tt.want):
			t.Errorf("%s: preparedVersion() = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
