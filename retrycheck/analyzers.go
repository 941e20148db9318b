package retrycheck

import "golang.org/x/tools/go/analysis"

// Analyzers are the eight checks, in the order of the package documentation. Each reports
// under its own name, so that one can be turned off (-retrysleep=false) or its findings
// told apart.
var Analyzers = []*analysis.Analyzer{Nested, Write, Body, Rewind, Sleep, Unbounded, Cancel, AttemptContext}
