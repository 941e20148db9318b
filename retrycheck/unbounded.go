package retrycheck

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// Unbounded reports a retry loop that nothing stops but success: no attempt bound, no
// deadline and no context check. A loop whose attempt is given the caller's context and
// that leaves with the attempt's error (return err, or a break on a context error) is
// ended by that context: once it ends, the attempt fails with its error and the loop
// returns it. A loop in a service's Start or OnStart (no context parameter, a type with
// Stop or OnStop) waits for what the service needs by design, and is not reported either.
// A failure that does not heal (a revoked credential, a
// deleted resource, a server that is gone) retries forever, and a canceled caller is never
// let go. Library loops are reported when configured without a bound: cenkalti/backoff
// with a constant backoff and no WithMaxRetries or WithContext, avast/retry-go with
// Attempts(0) and no Context, this project's retry.Unlimited with Timeout retry.NoLimit.
var Unbounded = &analysis.Analyzer{
	Name:     "retryunbounded",
	Doc:      "reports a retry loop with no attempt bound, no deadline and no context check",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retryunbounded",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runUnbounded,
}

func runUnbounded(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	for _, l := range a.loops.all {
		switch {
		case l.hand != nil && l.attempts == unbounded && !a.endsThroughAttempt(l) && !a.leavesOnContextError(l, false) && !a.serviceStart(l):
			pass.Reportf(l.node.Pos(), "retry loop has no attempt bound, no deadline and no context check: "+
				"a failure that does not heal retries forever (count the attempts, or check ctx.Err())")
		case l.hand == nil && l.attempts == unbounded && !a.boundedByContext(l):
			pass.Reportf(l.node.Pos(), "%s is configured with no attempt bound and no deadline: "+
				"a failure that does not heal retries forever (bound the attempts or the elapsed time)", l.name)
		}
	}
	return nil, nil
}

// boundedByContext reports whether a library loop configured without an attempt bound is
// still ended by a context or a time limit: retry-go's Context option, cenkalti/backoff's
// WithContext, this project's Timeout.
func (a *checker) boundedByContext(l *retryLoop) bool {
	info := a.pass.TypesInfo
	call := l.node.(*ast.CallExpr)
	switch {
	case l.api.name == "retry-go Do" || l.api.name == "retry-go DoWithData":
		for _, arg := range call.Args[1:] {
			if c, ok := a.defs.call(info, arg); ok {
				switch funcID(callee(info, c)) {
				case "github.com/avast/retry-go.Context", "github.com/avast/retry-go.MaxElapsedTime":
					return true
				}
			}
		}
		return false
	case l.api.ours && l.api.policy < len(call.Args): // this project's loops
		v, ok := a.defs.policyField(info, call.Args[l.api.policy], "Timeout")
		if !ok {
			return true // the default 30 s, or not known
		}
		n, ok := constInt(info, v)
		return !ok || n != ourNoLimit
	}
	return false
}

// endsThroughAttempt reports whether a hand-written loop gives its attempt a caller's
// context (a context.Context variable declared outside the loop that is not the
// function's own, see ownLifetime) and leaves the loop with the attempt's error: a
// return of it, or a condition that names context.Canceled or DeadlineExceeded.
func (a *checker) endsThroughAttempt(l *retryLoop) bool {
	h := l.hand
	if h.attempt == nil || h.errVar == nil || !a.passesCallersContext(h.attempt, l) {
		return false
	}
	info := a.pass.TypesInfo
	leaves := false
	direct(l.body, func(n ast.Node, _ []ast.Node) bool {
		switch n := n.(type) {
		case *ast.ReturnStmt:
			for _, r := range n.Results { // return err, or fmt.Errorf("...: %w", err)
				ast.Inspect(r, func(e ast.Node) bool {
					if id, ok := e.(*ast.Ident); ok && objOf(info, id) == h.errVar {
						leaves = true
					}
					return !leaves
				})
			}
		case *ast.SelectorExpr:
			if o := info.Uses[n.Sel]; o != nil && o.Pkg() != nil && o.Pkg().Path() == "context" &&
				(o.Name() == "Canceled" || o.Name() == "DeadlineExceeded") {
				leaves = true
			}
		}
		return !leaves
	})
	return leaves
}

// passesCallersContext reports whether a call has an argument that is a caller's
// context: a context.Context variable declared outside the loop, not the function's own.
func (a *checker) passesCallersContext(call *ast.CallExpr, l *retryLoop) bool {
	info := a.pass.TypesInfo
	for _, arg := range call.Args {
		id, ok := ast.Unparen(arg).(*ast.Ident)
		if !ok {
			continue
		}
		v, ok := objOf(info, id).(*types.Var)
		if !ok || !isContext(v.Type()) || v.Pos() >= l.body.Pos() && v.Pos() < l.body.End() {
			continue
		}
		if _, own := a.ownLifetime(v, 0); !own && !a.uncancelable(v) {
			return true
		}
	}
	return false
}

// serviceStart reports whether a loop is in a service's start, which waits for what the
// service needs by design: a method named Start or OnStart, with no context parameter,
// of a type that has a Stop or OnStop method too. The daemon that owns the service starts
// it and stops it; no caller is there to give up, and its operator stops the daemon
// (cometbft's ABCI client waits so for its application).
func (a *checker) serviceStart(l *retryLoop) bool {
	info := a.pass.TypesInfo
	fd := a.declWithBody(l.funcBody)
	if fd == nil || fd.Recv == nil || fd.Name.Name != "Start" && fd.Name.Name != "OnStart" {
		return false
	}
	for _, p := range fd.Type.Params.List {
		if isContext(info.TypeOf(p.Type)) {
			return false
		}
	}
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	mset := types.NewMethodSet(types.NewPointer(recv))
	return mset.Lookup(fn.Pkg(), "Stop") != nil || mset.Lookup(fn.Pkg(), "OnStop") != nil
}
