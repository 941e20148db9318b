package retrycheck

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	analysischecker "golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// The tests load every package under testdata/src once, in GOPATH mode as analysistest
// does, and run all the analyzers over them together: loading the standard library from
// source once rather than once per analyzer keeps the suite to seconds. Expectations are
// analysistest's: a comment "// want `regexp`" (several may follow) on the line of each
// diagnostic, and for a file whose diagnostics carry suggested fixes, FILE.golden holding
// the file with every fix applied.
//
// This project's own packages (github.com/retrykit/retry and those it imports) are not
// stubbed: the real ones, found through the workspace, are copied to a second GOPATH
// entry (realPackages), so that the cases are written against the library as it is and a
// change of its API breaks them (issue 36).

// update rewrites the golden files from the fixes suggested: go test -run NAME -update,
// then read the diff.
var update = flag.Bool("update", false, "write FILE.golden from the suggested fixes")

// analyzed is the result of the one run: the diagnostics of each analyzer in each package.
var analyzed struct {
	once  sync.Once
	err   error
	pkgs  map[string]*packages.Package
	diags map[string]map[string][]analysis.Diagnostic // package path -> analyzer -> diagnostics
}

// testdataDir is the GOPATH of the tests.
func testdataDir(t *testing.T) string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// analyzeTestdata loads and analyzes every package of testdata/src once.
func analyzeTestdata(t *testing.T) {
	t.Helper()
	dir := testdataDir(t)
	analyzed.once.Do(func() {
		var patterns []string
		for _, d := range []string{"nested", "write", "body", "rewind", "sleep", "unbounded", "cancel", "attemptctx"} {
			patterns = append(patterns, d, "recall/"+d)
		}
		patterns = append(patterns, "nestedaws", "nestedcheckretry")
		for _, k := range freshKinds {
			patterns = append(patterns, "fresh/"+k)
		}
		ours, err := realGOPATH()
		if err != nil {
			analyzed.err = err
			return
		}
		cfg := &packages.Config{
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
				packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedDeps,
			Dir: dir,
			Env: append(os.Environ(), "GOPATH="+dir+string(filepath.ListSeparator)+ours, "GO111MODULE=off", "GOWORK=off", "GOFLAGS="),
		}
		pkgs, err := packages.Load(cfg, patterns...)
		if err != nil {
			analyzed.err = err
			return
		}
		analyzed.pkgs = map[string]*packages.Package{}
		for _, p := range pkgs {
			if len(p.Errors) > 0 {
				analyzed.err = fmt.Errorf("%s: %v", p.PkgPath, p.Errors)
				return
			}
			analyzed.pkgs[p.PkgPath] = p
		}
		graph, err := analysischecker.Analyze(Analyzers, pkgs, nil)
		if err != nil {
			analyzed.err = err
			return
		}
		analyzed.diags = map[string]map[string][]analysis.Diagnostic{}
		for _, act := range graph.Roots {
			if act.Err != nil {
				analyzed.err = fmt.Errorf("%s: %v", act, act.Err)
				return
			}
			byAnalyzer := analyzed.diags[act.Package.PkgPath]
			if byAnalyzer == nil {
				byAnalyzer = map[string][]analysis.Diagnostic{}
				analyzed.diags[act.Package.PkgPath] = byAnalyzer
			}
			byAnalyzer[act.Analyzer.Name] = act.Diagnostics
		}
	})
	if errors.Is(analyzed.err, errOutsideWorkspace) {
		t.Skip(analyzed.err)
	}
	if analyzed.err != nil {
		t.Fatal(analyzed.err)
	}
}

// wantPattern matches one expectation of a want comment: a backquoted or double-quoted
// regular expression.
var wantPattern = regexp.MustCompile("`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\"")

// runTest checks analyzer a's diagnostics in the package path against the package's want
// comments, and its suggested fixes against the golden files.
func runTest(t *testing.T, a *analysis.Analyzer, path string) {
	t.Helper()
	analyzeTestdata(t)
	pkg := analyzed.pkgs[path]
	if pkg == nil {
		t.Fatalf("package %s not loaded", path)
	}
	wants := wantsOf(t, pkg)
	diags := analyzed.diags[path][a.Name]
	for _, d := range diags {
		pos := pkg.Fset.Position(d.Pos)
		k := wantKey{pos.Filename, pos.Line}
		i := slices.IndexFunc(wants[k], func(re *regexp.Regexp) bool { return re.MatchString(d.Message) })
		if i < 0 {
			t.Errorf("%s: unexpected diagnostic: %s", short(pos.String()), d.Message)
			continue
		}
		wants[k] = slices.Delete(wants[k], i, i+1)
	}
	var missing []string
	for k, res := range wants {
		for _, re := range res {
			missing = append(missing, fmt.Sprintf("%s:%d: no diagnostic matching `%s`", short(k.file), k.line, re))
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Error(m)
	}
	checkGolden(t, pkg, diags)
}

// wantKey is a line of a file.
type wantKey struct {
	file string
	line int
}

// wantsOf returns the expectations of a package's want comments, by line.
func wantsOf(t *testing.T, pkg *packages.Package) map[wantKey][]*regexp.Regexp {
	t.Helper()
	wants := map[wantKey][]*regexp.Regexp{}
	for _, f := range pkg.Syntax {
		for _, group := range f.Comments {
			for _, c := range group.List {
				text := strings.TrimPrefix(c.Text, "//")
				i := strings.Index(text, "want ")
				if i < 0 || strings.TrimSpace(text[:i]) != "" && !strings.HasSuffix(strings.TrimSpace(text[:i]), "//") {
					continue
				}
				pos := pkg.Fset.Position(c.Pos())
				for _, q := range wantPattern.FindAllString(text[i+len("want "):], -1) {
					expr := q[1 : len(q)-1]
					if q[0] == '"' {
						var err error
						if expr, err = strconv.Unquote(q); err != nil {
							t.Fatalf("%s: bad want %s: %v", pos, q, err)
						}
					}
					re, err := regexp.Compile(expr)
					if err != nil {
						t.Fatalf("%s: bad want %s: %v", pos, q, err)
					}
					k := wantKey{pos.Filename, pos.Line}
					wants[k] = append(wants[k], re)
				}
			}
		}
	}
	return wants
}

// checkGolden applies every diagnostic's suggested fixes to its file and compares the
// result, formatted, with FILE.golden; a file with fixes must have one.
func checkGolden(t *testing.T, pkg *packages.Package, diags []analysis.Diagnostic) {
	t.Helper()
	type edit struct {
		start, end int
		text       []byte
	}
	edits := map[string][]edit{}
	for _, d := range diags {
		for _, fix := range d.SuggestedFixes {
			for _, e := range fix.TextEdits {
				file := pkg.Fset.File(e.Pos)
				end := e.End
				if !end.IsValid() {
					end = e.Pos
				}
				edits[file.Name()] = append(edits[file.Name()], edit{file.Offset(e.Pos), file.Offset(end), e.NewText})
			}
		}
	}
	for name, es := range edits {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(es, func(i, j int) bool { return es[i].start > es[j].start })
		out := slices.Clone(src)
		for _, e := range es {
			out = slices.Concat(out[:e.start], e.text, out[e.end:])
		}
		fixed, err := format.Source(out)
		if err != nil {
			t.Errorf("%s: the fixed file does not parse: %v\n%s", short(name), err, out)
			continue
		}
		if *update {
			if err := os.WriteFile(name+".golden", fixed, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(name + ".golden")
		if err != nil {
			t.Errorf("%s: fixes suggested but no golden file: %v", short(name), err)
			continue
		}
		if want, _ := format.Source(golden); !bytes.Equal(fixed, want) {
			t.Errorf("%s: the fixed file differs from %s.golden:\n%s", short(name), filepath.Base(name), fixed)
		}
	}
}

// short returns a file name relative to testdata/src.
func short(name string) string {
	if i := strings.Index(name, "testdata/src/"); i >= 0 {
		return name[i+len("testdata/src/"):]
	}
	return name
}
