package retryhttp

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every entry of refusedMessages begins an error that net/http makes (errors.New, Errorf or
// badStringError with a literal that starts with it), in the source of the Go that runs the
// test: no entry is dead, and one that a new Go drops or rewords fails here. A message that
// net/http only logs (as h2_bundle.go's "http2: invalid pseudo headers") does not count.
func TestRefusedMessagesAreNetHTTPErrors(t *testing.T) {
	root := filepath.Join(build.Default.GOROOT, "src", "net", "http")
	var src strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		src.Write(b)
		return err
	})
	if err != nil {
		t.Skipf("no net/http source to check against: %v", err)
	}
	for _, m := range refusedMessages {
		made := regexp.MustCompile(`(errors\.New|Errorf|badStringError)\("` + regexp.QuoteMeta(m))
		if !made.MatchString(src.String()) {
			t.Errorf("refusedMessages entry %q begins no error that net/http (%s) makes", m, root)
		}
	}
}
