package retrycheck

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// Rewind reports a request body that the first attempt reads to its end and later
// attempts send again as it is, empty: a request built before the loop and sent in it
// without its body being reset (req.GetBody, a Seek), or a request built in the loop from
// a reader made before it.
var Rewind = &analysis.Analyzer{
	Name:     "retryrewind",
	Doc:      "reports a request body sent again without GetBody or a rewind: later attempts send it empty",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retryrewind",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runRewind,
}

func runRewind(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	info := pass.TypesInfo
	for _, l := range a.loops.all {
		if l.body == nil {
			continue
		}
		outside := func(o types.Object) bool {
			return o != nil && o.Parent() != pass.Pkg.Scope() && (o.Pos() < l.body.Pos() || o.Pos() >= l.body.End())
		}
		reported := map[types.Object]bool{}
		report := func(at ast.Node, o types.Object, format string) {
			if !reported[o] {
				reported[o] = true
				pass.Reportf(at.Pos(), format, o.Name(), l.name)
			}
		}
		// A request built before the loop and sent in it.
		for _, s := range a.sends(l) {
			sent := a.sharedRequest(s.req, l)
			req := objOf(info, sent)
			if !outside(req) || !isRequest(req.Type()) {
				continue
			}
			call, ok := a.defs.call(info, sent)
			if !ok {
				if a.isParam(req, l) && !a.touchesBody(l.funcBody, req) {
					report(s.call, req, "request %s, the caller's, is sent by every attempt of %s and its body never reset: "+
						"a request with a body is sent empty from the second attempt (reset Body from GetBody before each retry)")
				}
				continue
			}
			r := buildsRequest(info, call)
			if r == nil || isNil(info, r.body) || isNoBody(info, r.body) || a.rewound(l.body, req, objOf(info, r.body)) {
				continue
			}
			report(s.call, req, "request %s is built once and sent by every attempt of %s: its body is read by the first, "+
				"later attempts send it empty (build the request in the attempt, or reset Body from GetBody)")
		}
		// A reader made before the loop, the body of a request built (or posted) in it.
		visit := func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var body ast.Expr
			if r := buildsRequest(info, call); r != nil {
				body = r.body
			} else if s := isSend(info, call); s != nil && s.body != nil {
				body = s.body
			}
			o := objOf(info, body)
			if body == nil || !outside(o) || !isReader(o.Type()) || a.rewound(l.body, nil, o) {
				return true
			}
			report(body, o, "body %s is read to its end by the first attempt of %s: later attempts send it empty "+
				"(make the reader in the attempt, or Seek it back to the start)")
			return true
		}
		if l.hand != nil {
			direct(l.body, func(n ast.Node, _ []ast.Node) bool { return visit(n) })
		} else {
			inAttempt(l, visit)
		}
	}
	return nil, nil
}

// sharedRequest returns the request whose Body a sent request shares: req for
// req.WithContext(ctx) and req.Clone(ctx), which copy the request but not its body,
// directly or through a variable of the attempt assigned once (r := req.WithContext(ctx)).
func (a *checker) sharedRequest(e ast.Expr, l *retryLoop) ast.Expr {
	info := a.pass.TypesInfo
	for range 4 {
		e = ast.Unparen(e)
		if call, ok := e.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "WithContext" || sel.Sel.Name == "Clone") &&
				isRequest(info.TypeOf(sel.X)) {
				e = sel.X
				continue
			}
			return e
		}
		o := objOf(info, e)
		if o == nil || o.Pos() < l.body.Pos() || o.Pos() >= l.body.End() {
			return e
		}
		def, ok := a.defs.only(info, e)
		if !ok || def.index != 0 {
			return e
		}
		call, ok := ast.Unparen(def.rhs).(*ast.CallExpr)
		if !ok || buildsRequest(info, call) != nil {
			return e
		}
		e = call
	}
	return e
}

// isNoBody reports whether e is http.NoBody.
func isNoBody(info *types.Info, e ast.Expr) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := info.Uses[sel.Sel].(*types.Var)
	return ok && v.Name() == "NoBody" && v.Pkg() != nil && v.Pkg().Path() == "net/http"
}

// isReader reports whether t is a reader that is consumed by reading: an io.Reader that is
// not a []byte or string (which retryablehttp and others copy).
func isReader(t types.Type) bool {
	switch types.Unalias(t).Underlying().(type) {
	case *types.Basic, *types.Slice:
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Read")
	_, ok := obj.(*types.Func)
	return ok
}

// rewound reports whether a loop body resets the request's body or rewinds the reader:
// it assigns req.Body or req itself, calls req.GetBody, assigns the reader, or calls its
// Seek (or Reset).
func (a *checker) rewound(body *ast.BlockStmt, req, reader types.Object) bool {
	info := a.pass.TypesInfo
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if o := objOf(info, l); o != nil && (o == req || o == reader) {
					found = true
				}
				if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Body" && req != nil && objOf(info, sel.X) == req {
					found = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				o := objOf(info, sel.X)
				switch sel.Sel.Name {
				case "GetBody":
					found = found || (o != nil && o == req)
				case "Seek", "Reset":
					found = found || (o != nil && o == reader)
				}
			}
		}
		return !found
	})
	return found
}

// isParam reports whether o is a parameter of the function the loop is in.
func (a *checker) isParam(o types.Object, l *retryLoop) bool {
	ft := a.loops.funcs[l.funcBody]
	if ft == nil || ft.Params == nil {
		return false
	}
	for _, f := range ft.Params.List {
		for _, n := range f.Names {
			if a.pass.TypesInfo.Defs[n] == o {
				return true
			}
		}
	}
	return false
}

// touchesBody reports whether a function reads or sets req.Body, calls req.GetBody,
// assigns req (making a new request), or hands req to a call other than a send (a helper
// that may rewind it: retryer := newRequestRetryer(req)).
func (a *checker) touchesBody(body *ast.BlockStmt, req types.Object) bool {
	info := a.pass.TypesInfo
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if isSend(info, n) == nil {
				for _, arg := range n.Args {
					if objOf(info, arg) == req {
						found = true
					}
				}
			}
		case *ast.SelectorExpr:
			if (n.Sel.Name == "Body" || n.Sel.Name == "GetBody" || n.Sel.Name == "ContentLength") && objOf(info, n.X) == req {
				found = true
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if objOf(info, l) == req {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
