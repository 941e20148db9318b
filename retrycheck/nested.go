package retrycheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Nested reports a call that retries inside the attempt of another retry loop, where the
// attempts multiply (3 layers of 4 attempts make 64 calls at the bottom).
var Nested = &analysis.Analyzer{
	Name:     "retrynested",
	Doc:      "reports a retrying call inside another retry loop's attempt: the attempts multiply",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retrynested",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runNested,
}

func runNested(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	for _, r := range a.loops.retriers {
		outer := a.loopOf(r.node)
		if outer == nil || (r.loop != nil && r.loop == outer) || reachesOnly(r.origins, pass.Pkg.Path()+" "+position(pass, outer.node.Pos())) {
			continue // not a retry inside a retry: the call reaches the loop it is in (recursion)
		}
		if startedBeside(outer, r.node) {
			continue // a go statement starts it beside the attempt, which does not wait for it
		}
		if r.nestedSingle && outer.api != nil && outer.api.ours {
			continue // Policy.Nested: one attempt inside another loop of this project
		}
		if outer.hand != nil && onTheWayOut(outer, r.node) {
			continue // it runs once, after the outer loop's attempt succeeded, and the loop ends
		}
		if outer.hand != nil && a.roundOnlyOnUnretried(outer, r.node, r) {
			continue // the loop retries only a status the SDK does not: the attempts do not multiply
		}
		pass.Reportf(r.node.Pos(), "nested retries: %s runs inside each attempt of %s (line %d)%s",
			r.what, outer.name, pass.Fset.Position(outer.node.Pos()).Line, product(outer.attempts, r.attempts))
	}
	// An attempt function given by name that retries by itself.
	for _, l := range a.loops.all {
		if l.op == nil {
			continue
		}
		fact := a.loops.retries(l.op)
		if fact == nil {
			continue
		}
		pass.Reportf(l.node.Pos(), "nested retries: the attempt function %s retries by itself (%s)%s",
			l.op.Name(), fact.What, product(l.attempts, fact.Attempts))
	}
	return nil, nil
}

// reachesOnly reports whether every origin is the loop named id.
func reachesOnly(origins []string, id string) bool {
	for _, o := range origins {
		if o != id {
			return false
		}
	}
	return len(origins) > 0
}

// position returns "file.go:line" of pos.
func position(pass *analysis.Pass, pos token.Pos) string {
	p := pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// product says how the attempts multiply, when both counts are known.
func product(outer, inner int) string {
	switch {
	case outer == unbounded || inner == unbounded:
		return ": one of them is unbounded"
	case outer > 0 && inner > 0:
		return fmt.Sprintf(": %d × %d = %d calls when every attempt fails", outer, inner, outer*inner)
	}
	return ""
}

// onTheWayOut reports whether n is in a statement at the top of a hand-written loop's
// body after which the body ends in a return (or a break of the loop) with no continue,
// or in the return that ends the body: the iteration that reaches it leaves the loop, so
// n is not repeated by its retries (dial, retrying; once dialed, wait for the first echo,
// then return).
func onTheWayOut(l *retryLoop, n ast.Node) bool {
	list := l.body.List
	at := -1
	for i, s := range list {
		if s.Pos() <= n.Pos() && n.End() <= s.End() {
			at = i
		}
	}
	if at < 0 {
		return false
	}
	if _, ok := list[at].(*ast.ReturnStmt); ok && at == len(list)-1 {
		return true // called by the return that ends the iteration (swarmkit's test helper, issue 36)
	}
	if at == len(list)-1 {
		return false
	}
	if _, ok := list[len(list)-1].(*ast.ReturnStmt); !ok {
		return false
	}
	for _, s := range list[at:] {
		if containsContinue(&ast.BlockStmt{List: []ast.Stmt{s}}) {
			return false
		}
	}
	return true
}

// startedBeside reports whether n is in a go statement of the loop's attempt: it runs in
// a goroutine of its own, not as part of the attempt.
func startedBeside(l *retryLoop, n ast.Node) bool {
	beside := false
	ast.Inspect(l.body, func(m ast.Node) bool {
		if g, ok := m.(*ast.GoStmt); ok && n.Pos() >= g.Pos() && n.End() <= g.End() {
			beside = true
		}
		return !beside
	})
	return beside
}

// sdkRetried are the statuses openai-go and anthropic-sdk-go retry by themselves (with
// 5xx and connection errors).
var sdkRetried = map[int64]bool{408: true, 409: true, 429: true}

// retryablehttpRetried are the 4xx statuses go-retryablehttp's default policy
// (DefaultRetryPolicy, ErrorPropagatedRetryPolicy) retries, with connection errors and
// every 5xx but 501.
var retryablehttpRetried = map[int64]bool{429: true}

// roundOnlyOnUnretried reports whether a hand-written loop goes round after an openai-go
// or anthropic-sdk-go call n, or a call that retries only through go-retryablehttp, only
// on a 4xx the inner client does not retry itself: a statement of the loop's body after
// n's, reached with no continue between, leaves the loop unless the error's status is
// that one (if ... || apiErr.StatusCode != 400 || ... { return err }). Every error the
// inner client retried makes the loop leave, so the attempts do not multiply (openai-go's
// agent session stream retries a 400 for a tool call not yet registered; opsgenie's
// RetrieveStatus a 404 while the request is processed). For go-retryablehttp the statuses
// are its default policy's: a CheckRetry of the package written out that names the
// status, or compares a status with one below 500, keeps the finding.
func (a *checker) roundOnlyOnUnretried(l *retryLoop, n ast.Node, r *retrier) bool {
	info := a.pass.TypesInfo
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return false
	}
	retried, viaRetryablehttp := sdkRetried, false
	api := matchAPI(info, call)
	switch {
	case api != nil && (strings.HasPrefix(api.name, "openai-go ") || strings.HasPrefix(api.name, "anthropic-sdk-go ")):
	case api != nil && strings.HasPrefix(api.name, "retryablehttp."), api == nil && r.depth > 0 && innermostRetry(r.what, "retryablehttp.Client."):
		retried, viaRetryablehttp = retryablehttpRetried, true
	default:
		return false
	}
	at := -1
	for i, st := range l.body.List {
		if st.Pos() <= n.Pos() && n.End() <= st.End() {
			at = i
		}
	}
	if at < 0 {
		return false
	}
	var or func(e ast.Expr) bool
	or = func(e ast.Expr) bool {
		b, ok := ast.Unparen(e).(*ast.BinaryExpr)
		if !ok {
			return false
		}
		if b.Op == token.LOR {
			return or(b.X) || or(b.Y)
		}
		sel, ok := ast.Unparen(b.X).(*ast.SelectorExpr)
		if b.Op != token.NEQ || !ok || sel.Sel.Name != "StatusCode" {
			return false
		}
		c, ok := constInt(info, b.Y)
		return ok && c >= 400 && c < 500 && !retried[c] && (!viaRetryablehttp || !a.checkRetryNames(c))
	}
	// leavesUnlessStatus reads the statements after n's in order: an if that leaves unless
	// the status is that one ends the search; an if whose else leaves (if err != nil { ...
	// } else { return nil }) is read on into its body, the only way round.
	var leavesUnlessStatus func(list []ast.Stmt) bool
	leavesUnlessStatus = func(list []ast.Stmt) bool {
		for _, st := range list {
			if ifs, ok := st.(*ast.IfStmt); ok {
				if ifs.Else == nil && endsInExit(ifs.Body) && !containsContinue(ifs.Body) && or(ifs.Cond) {
					return true
				}
				if els, ok := ifs.Else.(*ast.BlockStmt); ok && endsInExit(els) && !containsContinue(els) && leavesUnlessStatus(ifs.Body.List) {
					return true
				}
			}
			if containsContinue(&ast.BlockStmt{List: []ast.Stmt{st}}) {
				return false
			}
		}
		return false
	}
	return leavesUnlessStatus(l.body.List[at+1:])
}

// innermostRetry reports whether the innermost retry a retrier's description names (the
// last of "f, which retries (g, which retries (retryablehttp.Client.Do at c.go:276))")
// starts with prefix, and it reaches no other.
func innermostRetry(what, prefix string) bool {
	if strings.Count(what, "(") != strings.Count(what, ", which retries (") {
		return false // a retry of several kinds, or a description this does not read
	}
	i := strings.LastIndex(what, "(")
	return i >= 0 && strings.HasPrefix(what[i+1:], prefix)
}

// checkRetryNames reports whether a function written in the package and given to a
// go-retryablehttp client's CheckRetry field names the status c, or compares a status
// with a 4xx: it may retry c, which the default policy does not.
func (a *checker) checkRetryNames(c int64) bool {
	info := a.pass.TypesInfo
	found := false
	inspect := func(fn ast.Node) {
		ast.Inspect(fn, func(n ast.Node) bool {
			if e, ok := n.(ast.Expr); ok {
				if v, ok := constInt(info, e); ok && (v == c || v >= 400 && v < 500 && v != 429) {
					found = true
				}
			}
			return !found
		})
	}
	given := func(e ast.Expr) {
		switch e := ast.Unparen(e).(type) {
		case *ast.FuncLit:
			inspect(e)
		case *ast.Ident:
			if fn, ok := info.Uses[e].(*types.Func); ok && a.declOf(fn) != nil {
				inspect(a.declOf(fn))
			}
		}
	}
	for _, f := range a.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt: // c.CheckRetry = func(...) {...}
				for i, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "CheckRetry" && len(n.Lhs) == len(n.Rhs) {
						given(n.Rhs[i])
					}
				}
			case *ast.KeyValueExpr: // &retryablehttp.Client{CheckRetry: policy}
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "CheckRetry" {
					given(n.Value)
				}
			}
			return true
		})
	}
	return found
}
