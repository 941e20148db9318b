package retry

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// privateCitation matches what public docs must not cite: the project's seeds ("seed 004",
// "seeds 000/001") and its SPEC ids ("SPEC R4.5", "R1.4"). Tests and commits cite them; a
// public doc comment cites an RFC or another public source.
var privateCitation = regexp.MustCompile(`(?i:\bseeds? \d{3}\b)|\bSPEC\b|\bR\d+\.\d+\b`)

// TestPublicDocsCiteNoSeedsOrSpecIDs reads the doc comments that go doc and pkg.go.dev
// show (package docs, exported identifiers and their fields and methods, examples) of every
// published package, and finds no seed or SPEC citation (issue 35 item 5: FullJitter,
// ProportionalJitter, AdditiveJitter and Config.AdditiveMax of package backoff cited seeds).
func TestPublicDocsCiteNoSeedsOrSpecIDs(t *testing.T) {
	roots := []string{".", "backoff", "retryhttp", "breaker", "budget", "hedge", "fleet", "retrytest", "ratelimit",
		"otelretry", "retrygrpc", "redisfleet", "retrycheck"}
	for _, root := range roots {
		checked := 0
		err := filepath.WalkDir(root, func(dir string, e fs.DirEntry, err error) error {
			if err != nil || !e.IsDir() {
				return err
			}
			switch name := e.Name(); {
			case dir == root:
			case name == "internal" || name == "testdata" || name == "cmd" || strings.HasPrefix(name, "."):
				return filepath.SkipDir
			case root == "." && dir != ".":
				return filepath.SkipDir // the root package alone: the others are listed
			}
			for where, text := range publicDocs(t, dir) {
				checked++
				if m := privateCitation.FindString(text); m != "" {
					t.Errorf("%s: %s's doc cites %q: cite a public source instead", dir, where, m)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if checked < 2 {
			t.Errorf("%s: only %d doc comments read: the walk missed its package", root, checked)
		}
	}
}

// publicDocs returns the doc comments of the package in dir that go doc shows, by the name
// they document; none when dir holds no Go package.
func publicDocs(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(f.Name.Name, "_test") || strings.HasSuffix(name, "example_test.go") {
				files = append(files, f)
			}
		}
	}
	docs := map[string]string{}
	if len(files) == 0 {
		return docs
	}
	p, err := doc.NewFromFiles(fset, files, "example.test/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	docs["package "+p.Name] = p.Doc
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			docs[strings.Join(v.Names, ", ")] = v.Doc + specDocs(v.Decl)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			docs[f.Recv+f.Name] = f.Doc
			for _, ex := range f.Examples {
				docs["Example"+ex.Name] = ex.Doc
			}
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, ex := range p.Examples {
		docs["Example"+ex.Name] = ex.Doc
	}
	for _, typ := range p.Types {
		docs[typ.Name] = typ.Doc + specDocs(typ.Decl)
		values(typ.Consts)
		values(typ.Vars)
		funcs(typ.Funcs)
		funcs(typ.Methods)
		for _, ex := range typ.Examples {
			docs["Example"+ex.Name] = ex.Doc
		}
	}
	return docs
}

// specDocs returns the doc comments inside a declaration that go doc prints with it: those
// of each spec, struct field and interface method.
func specDocs(decl *ast.GenDecl) string {
	var b strings.Builder
	ast.Inspect(decl, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			b.WriteString(n.Doc.Text() + n.Comment.Text())
		case *ast.TypeSpec:
			b.WriteString(n.Doc.Text() + n.Comment.Text())
		case *ast.Field:
			b.WriteString(n.Doc.Text() + n.Comment.Text())
		}
		return true
	})
	return b.String()
}
