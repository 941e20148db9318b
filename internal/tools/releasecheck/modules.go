package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// repoModule is one go.mod of the repository.
type repoModule struct {
	// Dir is the module's directory relative to the repository root, slash-separated; "."
	// for the root.
	Dir string
	// Path is the module path its go.mod declares.
	Path string
	// Published is false for modules that are never tagged: those under bench/ or
	// examples/ and any under a directory named internal.
	Published bool
	// GoMod is the go.mod file as it is in the checkout, and File its parse.
	GoMod []byte
	File  *modfile.File
	// Ours lists its requirements on modules of this repository, as written.
	Ours []module.Version
}

// repo is the set of modules of one checkout.
type repo struct {
	Root    string // absolute path of the checkout
	Path    string // module path of the root module
	Modules []*repoModule
	byPath  map[string]*repoModule
}

// findModules reads every go.mod under root, skipping directories the go command ignores
// (names starting with "." or "_", testdata) and vendor directories.
func findModules(root string) (*repo, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	r := &repo{Root: root, byPath: map[string]*repoModule{}}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if name != "go.mod" {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := modfile.Parse(p, data, nil)
		if err != nil {
			return err
		}
		if f.Module == nil {
			return fmt.Errorf("%s has no module line", p)
		}
		dir := filepath.ToSlash(rel)
		r.Modules = append(r.Modules, &repoModule{Dir: dir, Path: f.Module.Mod.Path, Published: published(dir), GoMod: data, File: f})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(r.Modules, func(a, b *repoModule) int { return strings.Compare(a.Dir, b.Dir) })
	if len(r.Modules) == 0 || r.Modules[0].Dir != "." {
		return nil, fmt.Errorf("%s has no go.mod at its root", root)
	}
	r.Path = r.Modules[0].Path
	for _, m := range r.Modules {
		if m.Path != r.Path && !strings.HasPrefix(m.Path, r.Path+"/") {
			return nil, fmt.Errorf("%s/go.mod declares module %s, outside %s", m.Dir, m.Path, r.Path)
		}
		if other, dup := r.byPath[m.Path]; dup {
			return nil, fmt.Errorf("%s/go.mod and %s/go.mod both declare module %s", other.Dir, m.Dir, m.Path)
		}
		r.byPath[m.Path] = m
	}
	for _, m := range r.Modules {
		for _, req := range m.File.Require {
			if req.Mod.Path == r.Path || strings.HasPrefix(req.Mod.Path, r.Path+"/") {
				m.Ours = append(m.Ours, req.Mod)
			}
		}
	}
	return r, nil
}

// published reports whether the module in dir (relative, slash-separated) is tagged and
// released: every module except benchmarks, examples and internal tools.
func published(dir string) bool {
	parts := strings.Split(dir, "/")
	if parts[0] == "bench" || parts[0] == "examples" {
		return false
	}
	return !slices.Contains(parts, "internal")
}

// preparedVersion checks the rules that keep a tag-per-module release installable (see
// RELEASING.md) and returns the version the modules require of each other, "" when none
// requires another. The rules: no go.mod has a replace line; a requirement on a module of
// ours names one that is here, and a published module requires only published ones; all
// such requirements name one version; go.work uses every module and replaces each
// required version by its directory.
func (r *repo) preparedVersion() (string, error) {
	var problems []string
	versions := map[string][]string{} // version -> "dir requires path"
	for _, m := range r.Modules {
		for _, rep := range m.File.Replace {
			problems = append(problems, fmt.Sprintf("%s: replace %s => %s: a published go.mod must not replace; go.work joins the modules",
				path.Join(m.Dir, "go.mod"), rep.Old.Path, rep.New.Path))
		}
		for _, req := range m.Ours {
			dep, ok := r.byPath[req.Path]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s requires %s, which no directory of this repository holds", m.Dir, req.Path))
			case m.Published && !dep.Published:
				problems = append(problems, fmt.Sprintf("%s (published) requires %s, which is never published", m.Dir, req.Path))
			}
			versions[req.Version] = append(versions[req.Version], fmt.Sprintf("%s requires %s %s", m.Dir, req.Path, req.Version))
		}
	}
	var prepared string
	if len(versions) > 1 {
		var lines []string
		for _, v := range versions {
			lines = append(lines, v...)
		}
		slices.Sort(lines)
		problems = append(problems, "the modules require ours at more than one version (set all to the release being prepared):\n    "+strings.Join(lines, "\n    "))
	}
	for v := range versions {
		prepared = v
		if module.CanonicalVersion(v) != v || module.IsPseudoVersion(v) {
			problems = append(problems, fmt.Sprintf("%s: require a release version (vX.Y.Z), not %q", versions[v][0], v))
		}
	}
	problems = append(problems, r.workProblems()...)
	if len(problems) > 0 {
		return "", errors.New(strings.Join(problems, "\n  "))
	}
	return prepared, nil
}

// workProblems returns what go.work lacks: a use line for every module, and a replace of
// every required version of ours by its directory.
func (r *repo) workProblems() []string {
	data, err := os.ReadFile(filepath.Join(r.Root, "go.work"))
	if err != nil {
		return []string{fmt.Sprintf("go.work: %v", err)}
	}
	w, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		return []string{err.Error()}
	}
	used := map[string]bool{}
	for _, u := range w.Use {
		used[path.Clean(strings.TrimPrefix(u.Path, "./"))] = true
	}
	replaced := map[module.Version]string{}
	for _, rep := range w.Replace {
		replaced[rep.Old] = path.Clean(strings.TrimPrefix(rep.New.Path, "./"))
	}
	var problems []string
	for _, m := range r.Modules {
		if !used[m.Dir] {
			problems = append(problems, fmt.Sprintf("go.work does not use %s: run go work use ./%s", m.Dir, m.Dir))
		}
		for _, req := range m.Ours {
			dep, ok := r.byPath[req.Path]
			if ok && replaced[req] != dep.Dir {
				problems = append(problems, fmt.Sprintf("go.work lacks \"replace %s %s => ./%s\" (%s requires it; the workspace cannot find that version otherwise)",
					req.Path, req.Version, dep.Dir, m.Dir))
			}
		}
	}
	return problems
}

// releaseOrder returns the published modules, each after every module of ours it requires
// (the order in which they are tagged), or an error on a requirement cycle.
func (r *repo) releaseOrder() ([]*repoModule, error) {
	var order []*repoModule
	state := map[*repoModule]int{} // 1 visiting, 2 done
	var visit func(m *repoModule) error
	visit = func(m *repoModule) error {
		switch state[m] {
		case 1:
			return fmt.Errorf("requirement cycle through %s", m.Path)
		case 2:
			return nil
		}
		state[m] = 1
		for _, req := range m.Ours {
			if dep, ok := r.byPath[req.Path]; ok {
				if err := visit(dep); err != nil {
					return err
				}
			}
		}
		state[m] = 2
		order = append(order, m)
		return nil
	}
	for _, m := range r.Modules {
		if m.Published {
			if err := visit(m); err != nil {
				return nil, err
			}
		}
	}
	return order, nil
}

// dependencies returns the modules of ours that m requires, directly or not.
func (r *repo) dependencies(m *repoModule) []*repoModule {
	seen := map[*repoModule]bool{}
	var deps []*repoModule
	var walk func(m *repoModule)
	walk = func(m *repoModule) {
		for _, req := range m.Ours {
			dep, ok := r.byPath[req.Path]
			if ok && !seen[dep] {
				seen[dep] = true
				deps = append(deps, dep)
				walk(dep)
			}
		}
	}
	walk(m)
	return deps
}
