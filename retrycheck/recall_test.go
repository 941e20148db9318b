package retrycheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// The recall suite: testdata/src/recall/CHECK holds one file per bug seeded from a public
// report (its address in the file's first comment), the reported line marked // want.
// A bug the check does not find says "recall: missed:" and why, instead of a want, so
// that the suite states the misses rather than hiding them. runTest verifies every
// want; this test counts the seeded bugs and the misses and holds recall at or above 90%.

var recallChecks = map[string]*analysis.Analyzer{
	"nested": Nested, "write": Write, "body": Body, "rewind": Rewind,
	"sleep": Sleep, "unbounded": Unbounded, "cancel": Cancel, "attemptctx": AttemptContext,
}

func TestRecall(t *testing.T) {
	seeded, missed := 0, 0
	for dir, a := range recallChecks {
		files, err := filepath.Glob(filepath.Join(testdataDir(t), "src", "recall", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("recall/%s: no seeded bugs (%v)", dir, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := string(data)
			if !strings.Contains(src, "// Seeded from https://") {
				t.Errorf("%s: the first comment names no public report", f)
			}
			seeded++
			switch wants, misses := strings.Count(src, "// want `"), strings.Count(src, "recall: missed:"); {
			case misses > 0:
				missed++
			case wants == 0:
				t.Errorf("%s: neither a want nor a stated miss", f)
			}
		}
		runTest(t, a, "recall/"+dir)
	}
	found := seeded - missed
	t.Logf("recall: %d of %d seeded bugs found (%.1f%%), %d missed", found, seeded, 100*float64(found)/float64(seeded), missed)
	if seeded < 40 || float64(found) < 0.9*float64(seeded) {
		t.Errorf("recall %d of %d: want at least 40 seeded bugs and 90%% found", found, seeded)
	}
}
