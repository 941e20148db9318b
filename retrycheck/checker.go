package retrycheck

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"
)

// base is what every part of the analysis reads: the pass and the package's assignments.
type base struct {
	pass *analysis.Pass
	defs definitions
}

// checker is the state of one reporting analyzer's run over a package.
type checker struct {
	base
	loops *loops
	cfgs  map[*ast.BlockStmt]*cfg.CFG
	// decls and declsByBody index the package's function declarations with a body, by
	// function and by body; made at the first use (see declOf).
	decls       map[*types.Func]*ast.FuncDecl
	declsByBody map[*ast.BlockStmt]*ast.FuncDecl
}

// newChecker returns the checker of pass, which requires loopsAnalyzer.
func newChecker(pass *analysis.Pass) *checker {
	l := pass.ResultOf[loopsAnalyzer].(*loops)
	return &checker{base: base{pass: pass, defs: l.defs}, loops: l, cfgs: map[*ast.BlockStmt]*cfg.CFG{}}
}

// declOf returns the package's declaration of fn, nil for a function declared elsewhere
// or without a body.
func (a *checker) declOf(fn *types.Func) *ast.FuncDecl {
	a.indexDecls()
	return a.decls[fn]
}

// declWithBody returns the declaration whose body is body, nil for a function literal's.
func (a *checker) declWithBody(body *ast.BlockStmt) *ast.FuncDecl {
	a.indexDecls()
	return a.declsByBody[body]
}

// indexDecls makes a.decls and a.declsByBody, once.
func (a *checker) indexDecls() {
	if a.decls != nil {
		return
	}
	a.decls, a.declsByBody = map[*types.Func]*ast.FuncDecl{}, map[*ast.BlockStmt]*ast.FuncDecl{}
	for _, f := range a.pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				a.decls[a.pass.TypesInfo.Defs[fd.Name].(*types.Func)] = fd
				a.declsByBody[fd.Body] = fd
			}
		}
	}
}

// graph returns the control-flow graph of a function body.
func (a *checker) graph(body *ast.BlockStmt) *cfg.CFG {
	if g := a.cfgs[body]; g != nil {
		return g
	}
	g := cfg.New(body, a.mayReturn)
	a.cfgs[body] = g
	return g
}

// mayReturn reports whether a call may return: not panic, os.Exit, log.Fatal and the like.
func (a *checker) mayReturn(call *ast.CallExpr) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "panic" {
		if _, builtin := a.pass.TypesInfo.Uses[id].(*types.Builtin); builtin {
			return false
		}
	}
	switch f := callee(a.pass.TypesInfo, call); {
	case f == nil:
	case funcID(f) == "os.Exit", funcID(f) == "runtime.Goexit":
		return false
	case strings.HasPrefix(f.Name(), "Fatal") || strings.HasPrefix(f.Name(), "Panic"):
		return false
	}
	return true
}

// paths returns the walker from the attempt call in loop, with the error and response it
// returned.
func (a *checker) paths(loop *retryLoop, call *ast.CallExpr, errVar, respVar types.Object, errNil bool) *attemptPaths {
	return &attemptPaths{a: a, loop: loop, graph: a.graph(loop.funcOrBody()), call: call, errVar: errVar, respVar: respVar, errNil: errNil}
}

// results returns the objects the results of call are assigned to in the statement that
// holds it (resp, err := client.Do(req)): its error and its *http.Response, when kept.
func (a *checker) results(call *ast.CallExpr, within ast.Node) (errVar, respVar types.Object) {
	info := a.pass.TypesInfo
	ast.Inspect(within, func(n ast.Node) bool {
		var lhs []ast.Expr
		var rhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs, rhs = n.Lhs, n.Rhs
		case *ast.ValueSpec:
			for _, id := range n.Names {
				lhs = append(lhs, id)
			}
			rhs = n.Values
		default:
			return errVar == nil && respVar == nil
		}
		if len(rhs) == 1 && ast.Unparen(rhs[0]) == call {
			for _, l := range lhs {
				o := objOf(info, l)
				switch {
				case o == nil:
				case isError(o.Type()):
					errVar = o
				case isResponse(o.Type()):
					respVar = o
				}
			}
			return false
		}
		return true
	})
	return errVar, respVar
}

// loopOf returns the innermost retry loop whose attempt holds n, or nil.
func (a *checker) loopOf(n ast.Node) *retryLoop {
	var best *retryLoop
	for _, l := range a.loops.all {
		if l.body == nil || l.node == n || n.Pos() < l.body.Pos() || n.End() > l.body.End() {
			continue
		}
		if best == nil || l.body.Pos() > best.body.Pos() {
			best = l
		}
	}
	return best
}

// inAttempt calls f for every node of a loop's attempt, not descending into function
// literals other than those called at once.
func inAttempt(l *retryLoop, f func(n ast.Node) bool) {
	if l.body == nil {
		return
	}
	ast.Inspect(l.body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n == nil {
			return true
		}
		return f(n)
	})
}
