package retrycheck

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// Each analyzer's cases are in testdata/src/NAME: one file per reported case, each line
// reported carrying a // want comment, and ok_*.go files for what must not be reported.
// Stub packages of the libraries the checks know stand under testdata/src too, so the
// tests need no network.

func TestNested(t *testing.T) { analysistest.Run(t, analysistest.TestData(), Nested, "nested") }

func TestWrite(t *testing.T) { analysistest.Run(t, analysistest.TestData(), Write, "write") }

func TestBody(t *testing.T) { analysistest.Run(t, analysistest.TestData(), Body, "body") }

func TestRewind(t *testing.T) { analysistest.Run(t, analysistest.TestData(), Rewind, "rewind") }

func TestSleep(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), Sleep, "sleep")
}

func TestUnbounded(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), Unbounded, "unbounded")
}

func TestCancel(t *testing.T) { analysistest.Run(t, analysistest.TestData(), Cancel, "cancel") }

func TestAttemptContext(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), AttemptContext, "attemptctx")
}
