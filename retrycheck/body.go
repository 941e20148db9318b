package retrycheck

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// Body reports a response whose body is neither closed nor drained on the path to the
// next attempt: its connection cannot be reused, and with enough retries the client runs
// out of connections or file descriptors.
var Body = &analysis.Analyzer{
	Name:     "retrybody",
	Doc:      "reports a response body not closed or drained before the next attempt",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retrybody",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runBody,
}

func runBody(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	for _, l := range a.loops.all {
		for _, s := range a.sends(l) {
			_, resp := a.results(s.call, l.body)
			if resp == nil {
				continue
			}
			errVar, _ := a.results(s.call, l.body)
			p := a.paths(l, s.call, errVar, resp, true)
			p.stop = func(n ast.Node) bool { return a.usesResponse(n, resp) }
			p.deferStops = l.hand == nil
			paths := p.walk()
			if len(paths) == 0 {
				continue
			}
			line := pass.Fset.Position(paths[0].at.Pos()).Line
			if paths[0].deferred {
				pass.Reportf(s.call.Pos(), "response body closed by a defer, which runs only when the function returns: "+
					"every attempt's response stays open through the retries (close it before line %d goes round)", line)
				continue
			}
			pass.Reportf(s.call.Pos(), "response body not closed before the next attempt (the path through line %d): "+
				"drain and close %s.Body, or its connection is not reused", line, resp.Name())
		}
	}
	return nil, nil
}

// sends returns the HTTP requests sent in a loop's attempt (not in nested loops of a
// hand-written one, whose own attempts they are).
func (a *checker) sends(l *retryLoop) []*send {
	var out []*send
	visit := func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if s := isSend(a.pass.TypesInfo, call); s != nil {
				out = append(out, s)
			}
		}
		return true
	}
	if l.hand != nil {
		direct(l.body, func(n ast.Node, _ []ast.Node) bool { return visit(n) })
	} else {
		inAttempt(l, visit)
	}
	return out
}

// readOnlyFields are the fields of an *http.Response whose reading leaves the body as it
// is.
var readOnlyFields = map[string]bool{
	"Status": true, "StatusCode": true, "Header": true, "Proto": true, "ProtoMajor": true, "ProtoMinor": true,
	"ContentLength": true, "Request": true, "TLS": true, "Trailer": true, "TransferEncoding": true,
	"Uncompressed": true, "Close": true,
}

// usesResponse reports whether n does anything with resp beyond reading its status and
// headers or comparing it with nil, itself or through a function that only reads it
// (responseFact): closes or reads its body, passes it on, returns or stores it. Any of
// these may close the body, so the path is not followed further.
func (a *checker) usesResponse(n ast.Node, resp types.Object) bool {
	info := a.pass.TypesInfo
	used := false
	var stack []ast.Node
	ast.Inspect(n, func(x ast.Node) bool {
		if x == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if id, ok := x.(*ast.Ident); ok && info.Uses[id] == resp && len(stack) > 0 {
			used = useAt(info, id, stack, a.loops.responseUseOf) != respReads
		}
		stack = append(stack, x)
		return !used
	})
	return used
}
