package retrycheck

import "testing"

// Each analyzer's cases are in testdata/src/NAME: one file per reported case, each line
// reported carrying a // want comment, and ok_*.go files for what must not be reported.
// Stub packages of the libraries the checks know stand under testdata/src too, so the
// tests need no network. See harness_test.go for how they run.

func TestNested(t *testing.T)           { runTest(t, Nested, "nested") }
func TestNestedAWSConfig(t *testing.T)  { runTest(t, Nested, "nestedaws") }        // a package-wide setting
func TestNestedCheckRetry(t *testing.T) { runTest(t, Nested, "nestedcheckretry") } // a package-wide policy
func TestWrite(t *testing.T)            { runTest(t, Write, "write") }
func TestBody(t *testing.T)             { runTest(t, Body, "body") }
func TestRewind(t *testing.T)           { runTest(t, Rewind, "rewind") }
func TestSleep(t *testing.T)            { runTest(t, Sleep, "sleep") }
func TestUnbounded(t *testing.T)        { runTest(t, Unbounded, "unbounded") }
func TestCancel(t *testing.T)           { runTest(t, Cancel, "cancel") }
func TestAttemptContext(t *testing.T)   { runTest(t, AttemptContext, "attemptctx") }
