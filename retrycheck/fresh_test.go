package retrycheck

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The fresh cases (issue 36): testdata/src/fresh/KIND holds bugs of the kinds an outside
// team found retrycheck missing, written anew from the descriptions, apart from
// the recall suite (testdata/src/recall) so that recall on them is measured on code the
// checks were not written against. Each file not named ok_*.go seeds one bug, its line
// marked // want; ok_*.go files hold what must not be reported. Every analyzer runs over
// every package; a diagnostic that matches no want is a false finding. A seeded bug the
// checks do not find keeps its want and says "fresh: missed:" and why. TestFresh
// prints recall and precision per kind and holds both at or above 90%.

// freshKinds are the kinds of issue 36, in its order.
var freshKinds = []string{"apinow", "fieldclient", "resphelper", "withcontext", "statuses", "compound", "loopshape", "decideline", "falsefind"}

func TestFresh(t *testing.T) {
	analyzeTestdata(t)
	var seededAll, foundAll, reportedAll, falseAll int
	var table []string
	for _, kind := range freshKinds {
		path := "fresh/" + kind
		pkg := analyzed.pkgs[path]
		if pkg == nil {
			t.Fatalf("package %s not loaded", path)
		}
		wants := wantsOf(t, pkg)
		unmatched := map[string]int{} // file -> wants not matched
		for k, res := range wants {
			unmatched[k.file] += len(res)
		}
		reported, falseFindings := 0, 0
		for _, name := range sortedAnalyzers(analyzed.diags[path]) {
			for _, d := range analyzed.diags[path][name] {
				reported++
				pos := pkg.Fset.Position(d.Pos)
				k := wantKey{pos.Filename, pos.Line}
				i := slices.IndexFunc(wants[k], func(re *regexp.Regexp) bool { return re.MatchString(d.Message) })
				if i < 0 {
					falseFindings++
					t.Logf("%s: false finding (%s): %s", short(pos.String()), name, d.Message)
					continue
				}
				wants[k] = slices.Delete(wants[k], i, i+1)
				unmatched[pos.Filename]--
			}
		}
		seeded, found := 0, 0
		for _, f := range pkg.Syntax {
			name := pkg.Fset.Position(f.Pos()).Filename
			if strings.HasPrefix(filepath.Base(name), "ok_") {
				continue
			}
			seeded++
			stated := false
			for _, g := range f.Comments {
				stated = stated || strings.Contains(g.Text(), "fresh: missed:")
			}
			switch missed := unmatched[name] > 0; {
			case !missed && stated:
				t.Errorf("%s: found, but it says fresh: missed:", short(name))
			case missed && !stated:
				t.Errorf("%s: missed, and it does not say fresh: missed: and why", short(name))
			}
			if unmatched[name] == 0 {
				found++
			}
		}
		table = append(table, fmt.Sprintf("| %s | %d | %d | %d | %d |", kind, seeded, found, reported, falseFindings))
		seededAll, foundAll, reportedAll, falseAll = seededAll+seeded, foundAll+found, reportedAll+reported, falseAll+falseFindings
	}
	recall := 100 * float64(foundAll) / float64(seededAll)
	precision := 100 * float64(reportedAll-falseAll) / float64(max(reportedAll, 1))
	t.Logf("\n| kind | seeded | found | findings | false |\n|---|---:|---:|---:|---:|\n%s\n| all | %d | %d | %d | %d |\nrecall %.1f%%, precision %.1f%%",
		strings.Join(table, "\n"), seededAll, foundAll, reportedAll, falseAll, recall, precision)
	if recall < 90 || precision < 90 {
		t.Errorf("fresh cases: recall %.1f%%, precision %.1f%%: want both at least 90%%", recall, precision)
	}
}

// sortedAnalyzers returns the names of the analyzers of a package's diagnostics, sorted.
func sortedAnalyzers[V any](m map[string]V) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
