package retrycheck

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// AttemptContext reports an attempt function that ignores its own context parameter and
// uses the caller's instead: retry.Do gives each attempt a context whose deadline is the
// earlier of the attempt's timeout and the time left, and gax.Invoke one with the
// attempt's timeout, so the attempt's deadline is lost and a hung attempt takes all the
// time left. Using it to log or to read a value is not reported. A suggested fix names the
// parameter as the outer context (shadowing it), or uses the parameter's name.
var AttemptContext = &analysis.Analyzer{
	Name:     "retryctx",
	Doc:      "reports an attempt function that uses the outer context instead of its own parameter",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retryctx",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runAttemptContext,
}

func runAttemptContext(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	info := pass.TypesInfo
	for _, l := range a.loops.all {
		if l.api == nil || !l.api.ownContext || l.lit == nil || l.lit.Type.Params.NumFields() == 0 {
			continue
		}
		param := l.lit.Type.Params.List[0]
		var paramName *ast.Ident
		if len(param.Names) > 0 {
			paramName = param.Names[0]
		}
		var outer types.Object
		var uses []*ast.Ident
		var stack []ast.Node
		ast.Inspect(l.lit.Body, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			o, ok := info.Uses[id].(*types.Var)
			if !ok || !isContext(o.Type()) || o.Pos() >= l.lit.Pos() && o.Pos() < l.lit.End() || o.Parent() == pass.Pkg.Scope() {
				return true
			}
			if outer != nil && o != outer {
				return true
			}
			if !meaningfulUse(info, stack) {
				return true
			}
			outer = o
			uses = append(uses, id)
			return true
		})
		if outer == nil || usesParam(info, l.lit, paramName) {
			continue // the function tells the two apart: it uses its own context too
		}
		diag := analysis.Diagnostic{
			Pos: uses[0].Pos(),
			End: uses[0].End(),
			Message: fmt.Sprintf("the attempt function of %s uses the outer %s instead of its own context parameter: "+
				"the attempt's deadline is lost, and a hung attempt takes all the time left", l.name, outer.Name()),
		}
		diag.SuggestedFixes = []analysis.SuggestedFix{attemptContextFix(l.lit.Type.Params, paramName, outer, uses)}
		pass.Report(diag)
	}
	return nil, nil
}

// meaningfulUse reports whether the identifier at the top of stack passes the context on
// to work (an argument, a method call such as Done), rather than to a log call or a Value
// lookup.
func meaningfulUse(info *types.Info, stack []ast.Node) bool {
	if len(stack) < 2 {
		return true
	}
	id := stack[len(stack)-1]
	switch p := stack[len(stack)-2].(type) {
	case *ast.SelectorExpr:
		return p.Sel.Name != "Value"
	case *ast.CallExpr:
		for _, arg := range p.Args {
			if arg == id {
				return !loggingCall(callee(info, p))
			}
		}
	}
	return true
}

// attemptContextFix gives the parameter the outer context's name when it has none (or
// is _), so that every use in the function refers to it (the other parameters, unnamed
// too, become _); otherwise it renames the uses to the parameter.
func attemptContextFix(params *ast.FieldList, name *ast.Ident, outer types.Object, uses []*ast.Ident) analysis.SuggestedFix {
	switch {
	case name == nil:
		fix := analysis.SuggestedFix{Message: "name the context parameter " + outer.Name()}
		for i, f := range params.List {
			n := "_ "
			if i == 0 {
				n = outer.Name() + " "
			}
			fix.TextEdits = append(fix.TextEdits, analysis.TextEdit{Pos: f.Type.Pos(), End: f.Type.Pos(), NewText: []byte(n)})
		}
		return fix
	case name.Name == "_":
		return analysis.SuggestedFix{
			Message:   "name the context parameter " + outer.Name(),
			TextEdits: []analysis.TextEdit{{Pos: name.Pos(), End: name.End(), NewText: []byte(outer.Name())}},
		}
	}
	fix := analysis.SuggestedFix{Message: "use the attempt's context " + name.Name}
	for _, u := range uses {
		fix.TextEdits = append(fix.TextEdits, analysis.TextEdit{Pos: u.Pos(), End: u.End(), NewText: []byte(name.Name)})
	}
	return fix
}

// usesParam reports whether the function uses its parameter name.
func usesParam(info *types.Info, lit *ast.FuncLit, name *ast.Ident) bool {
	if name == nil || name.Name == "_" {
		return false
	}
	param := info.Defs[name]
	used := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == param {
			used = true
		}
		return !used
	})
	return used
}
