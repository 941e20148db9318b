// Command releasecheck proves that the modules of this repository install as a user gets
// them once tagged (RELEASING.md). It checks the go.mod rules of a tag-per-module release,
// writes every published module at a test version into a file-based GOPROXY built from the
// checkout, then, with GOWORK=off: go gets each published module alone in a fresh module
// (its requirements on ours come along at that version), then all of them in one, builds
// a program importing each published package, checks that the library's packages import
// the standard library only, go installs every command at that version and runs it with
// --version and version. Run it through scripts/release-check, which builds it and runs
// it from the repository root (go run would report every failure as exit status 1):
//
//	scripts/release-check [-keep] [VERSION]
//
// -root DIR names the repository's root when run from elsewhere. VERSION defaults to the one the modules require of each other (the release being
// prepared). Exit status 0 when every step passes, 1 when one fails (it says which and
// why), 2 on bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

func main() {
	keep := flag.Bool("keep", false, "keep the temporary directory (proxy, fresh module, binaries) and print its path")
	root := flag.String("root", ".", "the repository's root directory")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: releasecheck [-keep] [-root DIR] [VERSION]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	version := flag.Arg(0)
	if version != "" && (module.CanonicalVersion(version) != version || module.IsPseudoVersion(version)) {
		fmt.Fprintf(os.Stderr, "releasecheck: version %q is invalid: want a release version such as v1.2.3 or v1.2.3-rc.1\n", version)
		os.Exit(2)
	}
	start := time.Now()
	if err := check(os.Stdout, *root, version, *keep); err != nil {
		fmt.Printf("FAIL %v\n", err)
		fmt.Printf("release check: FAIL after %.1fs\n", time.Since(start).Seconds())
		os.Exit(1)
	}
	fmt.Printf("release check: PASS in %.1fs\n", time.Since(start).Seconds())
}

// check runs every step, printing a line for each to w, and returns the first failure.
func check(w io.Writer, root, version string, keep bool) error {
	r, err := findModules(root)
	if err != nil {
		return err
	}
	prepared, err := r.preparedVersion()
	if err != nil {
		return fmt.Errorf("go.mod rules:\n  %v", err)
	}
	if version == "" {
		version = prepared
	}
	if version == "" {
		return errors.New("no module requires another of ours, so there is no version being prepared: give one, e.g. v0.1.0")
	}
	var published, others []string
	for _, m := range r.Modules {
		if m.Published {
			published = append(published, m.Path)
		} else {
			others = append(others, m.Dir)
		}
	}
	fmt.Fprintf(w, "release check of every published module at %s (file proxy from the checkout; fresh module, GOWORK=off)\n", version)
	fmt.Fprintf(w, "     published: %s\n     never published: %s\n", strings.Join(published, ", "), strings.Join(others, ", "))
	fmt.Fprintf(w, "ok   go.mod rules: no replace lines; ours required at %s; go.work uses every module and replaces that version\n", prepared)

	tmp, err := os.MkdirTemp("", "releasecheck-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(w, "     kept: %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	when, err := commitTime(r.Root)
	if err != nil {
		return err
	}
	proxyDir := filepath.Join(tmp, "proxy")
	built, err := buildProxy(r, version, proxyDir, when)
	if err != nil {
		return fmt.Errorf("file proxy: %v", err)
	}
	var sizes []string
	for _, b := range built {
		sizes = append(sizes, fmt.Sprintf("%s %d files %d kB", shortPath(r, b.Module.Path), b.Files, (b.Size+1023)/1024))
	}
	fmt.Fprintf(w, "ok   file proxy, in release order: %s\n", strings.Join(sizes, "; "))

	// The check's own module cache outlives the run, so that third-party modules keep one
	// path and their builds stay in the build cache; without a user cache directory
	// (no HOME) it starts empty in tmp.
	modCache := filepath.Join(tmp, "mod")
	if cache, err := os.UserCacheDir(); err == nil {
		modCache = filepath.Join(cache, "retrykit-release-check", "mod")
	}
	u, err := newUserEnv(tmp, proxyDir, modCache)
	if err != nil {
		return err
	}
	// Each module alone in a fresh module: go get of an integration brings in the library at
	// the version it requires, without the user naming it.
	var gets []string
	for _, b := range built {
		alone, err := u.fresh(filepath.Join(tmp, "alone", shortPath(r, b.Module.Path)))
		if err != nil {
			return err
		}
		if _, err := alone.run("go", "get", b.Module.String()); err != nil {
			return err
		}
		for _, dep := range r.dependencies(r.byPath[b.Module.Path]) {
			out, err := alone.run("go", "list", "-m", "-f", "{{.Version}}", dep.Path)
			if err != nil {
				return err
			}
			if got := strings.TrimSpace(out); got != version {
				return fmt.Errorf("go get %s alone selects %s %s, want %s", b.Module, dep.Path, got, version)
			}
		}
		gets = append(gets, b.Module.String())
	}
	fmt.Fprintf(w, "ok   go get of each module alone, in a fresh module of its own (its requirements on ours at %s)\n", version)
	if _, err := u.run("go", append([]string{"get"}, gets...)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "ok   go get %s\n", strings.Join(gets, " "))

	pkgs, err := u.packages()
	if err != nil {
		return err
	}
	var imports, library, commands []string
	for _, p := range pkgs {
		switch {
		case p.Name == "main" && !strings.Contains(p.ImportPath, "/internal/"):
			commands = append(commands, p.ImportPath)
		case p.importable():
			imports = append(imports, p.ImportPath)
			if p.Module == r.Path {
				library = append(library, p.ImportPath)
			}
		}
	}
	if len(library) == 0 {
		return fmt.Errorf("the fresh module sees no package of %s", r.Path)
	}
	if err := u.buildImporting(imports); err != nil {
		return err
	}
	fmt.Fprintf(w, "ok   go build: a program importing all %d published packages\n", len(imports))
	third, err := u.thirdParty(r.Path, library)
	if err != nil {
		return err
	}
	if len(third) > 0 {
		return fmt.Errorf("the library's packages import third-party modules: %s", strings.Join(third, ", "))
	}
	fmt.Fprintf(w, "ok   the library's %d packages import the standard library only\n", len(library))

	for _, c := range commands {
		if _, err := u.run("go", "install", c+"@"+version); err != nil {
			return err
		}
		name := path.Base(c)
		bin := filepath.Join(u.bin, name)
		var said []string
		for _, args := range [][]string{{"--version"}, {"version"}} {
			out, err := u.run(bin, args...)
			if err != nil {
				return err
			}
			first, _, _ := strings.Cut(out, "\n")
			if want := name + " " + version; first != want {
				return fmt.Errorf("%s %s printed %q, want %q", name, args[0], first, want)
			}
			said = append(said, fmt.Sprintf("%s %s: %q", name, args[0], first))
		}
		fmt.Fprintf(w, "ok   go install %s@%s; %s\n", c, version, strings.Join(said, "; "))
	}
	return nil
}

// shortPath returns p relative to the root module's path ("retry" for the root itself).
func shortPath(r *repo, p string) string {
	if p == r.Path {
		return path.Base(p)
	}
	return strings.TrimPrefix(p, r.Path+"/")
}

// commitTime returns the time of the checkout's HEAD commit, the time a tag on it would
// carry.
func commitTime(root string) (time.Time, error) {
	out, err := gitOutput(root, "log", "-1", "--format=%cI")
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339, strings.TrimSpace(out))
}
