package retrycheck

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A loop that goes round again when its call fails with the context's own error
// (if errors.Is(err, context.DeadlineExceeded) { continue }), and never checks that
// context itself: once the context is done, every call fails at once with that error and
// the loop never ends, spinning when it does not wait (kine's startup loops).

// checkContextRetryLoops reports, once per loop, a test of context.Canceled or
// DeadlineExceeded on the error of a call given a context from outside the loop, whose
// branch continues the loop, in a loop that checks that context nowhere else.
func (a *checker) checkContextRetryLoops() {
	info := a.pass.TypesInfo
	for _, f := range a.pass.Files {
		labels := map[ast.Stmt]*ast.Ident{}
		ast.Inspect(f, func(n ast.Node) bool {
			if l, ok := n.(*ast.LabeledStmt); ok {
				labels[l.Stmt] = l.Label
			}
			s, ok := n.(ast.Stmt)
			if !ok {
				return true
			}
			body := loopBody(info, s)
			if body == nil {
				return true
			}
			var cond ast.Expr
			if fs, ok := s.(*ast.ForStmt); ok {
				cond = fs.Cond
			}
			reported := false
			direct(body, func(n ast.Node, _ []ast.Node) bool {
				ifs, ok := n.(*ast.IfStmt)
				if reported {
					return false
				}
				if !ok || len(ifs.Body.List) == 0 {
					return true
				}
				which := positiveContextTest(info, ifs.Cond)
				last, ok := ifs.Body.List[len(ifs.Body.List)-1].(*ast.BranchStmt)
				if which == "" || !ok || last.Tok != token.CONTINUE || last.Label != nil && (labels[s] == nil || last.Label.Name != labels[s].Name) {
					return true
				}
				ctx := a.contextOfTestedCall(ifs.Cond, body)
				if ctx == nil || checksContext(info, body, cond, ctx) {
					return true
				}
				a.pass.Reportf(ifs.Pos(), "%s retried by the loop: once %s is done every call fails with it at once, and the loop "+
					"goes round for ever (return the error, or check %s.Err())", which, ctx.Name(), ctx.Name())
				reported = true // once a loop
				return false
			})
			return true
		})
	}
}

// contextOfTestedCall returns the context given to the call whose error a condition
// tests, when the call is made in the loop's body and the context comes from outside it.
func (a *checker) contextOfTestedCall(cond ast.Expr, body *ast.BlockStmt) *types.Var {
	info := a.pass.TypesInfo
	var errVar types.Object
	ast.Inspect(cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && errVar == nil {
			if o := info.Uses[id]; o != nil && isError(o.Type()) {
				errVar = o
			}
		}
		return errVar == nil
	})
	if errVar == nil {
		return nil
	}
	for _, d := range a.defs.vars[errVar] {
		if d.pos < body.Pos() || d.pos >= body.End() {
			continue
		}
		call, ok := ast.Unparen(d.rhs).(*ast.CallExpr)
		if !ok {
			continue
		}
		for _, arg := range call.Args {
			if v, ok := objOf(info, arg).(*types.Var); ok && isContext(v.Type()) && (v.Pos() < body.Pos() || v.Pos() >= body.End()) {
				return v
			}
		}
	}
	return nil
}

// checksContext reports whether a loop (its body and condition) asks ctx whether it is
// done: ctx.Err(), ctx.Done().
func checksContext(info *types.Info, body *ast.BlockStmt, cond ast.Expr, ctx *types.Var) bool {
	found := false
	check := func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Err" || sel.Sel.Name == "Done") && objOf(info, sel.X) == ctx {
			found = true
		}
		return !found
	}
	ast.Inspect(body, check)
	if cond != nil {
		ast.Inspect(cond, check)
	}
	return found
}
