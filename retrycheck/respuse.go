package retrycheck

import (
	"go/ast"
	"go/types"
	"strings"
)

// What a function does with a response handed to it (failure(resp, err),
// throttled(resp)), summarised as a fact so that retrybody follows a response through
// the helpers that only read it, in this package or another.

// respUse is what a function does with one of its *http.Response parameters.
type respUse uint8

const (
	respNone   respUse = iota // not a response parameter
	respReads                 // reads its status, headers or other fields, compares it with nil
	respCloses                // closes its body (and does nothing else with it)
	respKeeps                 // anything else: returns, stores or hands it on, reads its body
)

// responseFact holds what a function does with each of its parameters that is a
// *http.Response, by index (respNone for the others).
type responseFact struct {
	Uses []respUse
}

func (*responseFact) AFact() {}

func (f *responseFact) String() string {
	var parts []string
	for _, u := range f.Uses {
		parts = append(parts, [...]string{"-", "reads", "closes", "keeps"}[u])
	}
	return "response: " + strings.Join(parts, ", ")
}

// summarizeResponses computes the responseFact of every function of the package with a
// response parameter, exports them, and returns them. A call of a function of the package
// not yet summarised counts as keeping the response; a second round settles most helpers
// that call helpers.
func (a *loopAnalysis) summarizeResponses() map[*types.Func]*responseFact {
	info := a.pass.TypesInfo
	out := map[*types.Func]*responseFact{}
	type decl struct {
		fn     *types.Func
		body   *ast.BlockStmt
		params []types.Object
	}
	var decls []decl
	for _, f := range a.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var params []types.Object
			has := false
			for _, field := range fd.Type.Params.List {
				for _, name := range field.Names {
					o := info.Defs[name]
					params = append(params, o)
					has = has || o != nil && isResponse(o.Type())
				}
				if len(field.Names) == 0 {
					params = append(params, nil)
				}
			}
			if has {
				decls = append(decls, decl{info.Defs[fd.Name].(*types.Func), fd.Body, params})
			}
		}
	}
	lookup := func(f *types.Func) *responseFact {
		if fact := out[f]; fact != nil {
			return fact
		}
		var fact responseFact
		if f != nil && f.Pkg() != a.pass.Pkg && a.pass.ImportObjectFact(f, &fact) {
			return &fact
		}
		return nil
	}
	for range 2 {
		for _, d := range decls {
			fact := &responseFact{Uses: make([]respUse, len(d.params))}
			for i, p := range d.params {
				if p != nil && isResponse(p.Type()) {
					fact.Uses[i] = responseUse(info, d.body, p, lookup)
				}
			}
			out[d.fn] = fact
		}
	}
	for fn, fact := range out {
		a.pass.ExportObjectFact(fn, fact)
	}
	return out
}

// responseUse summarises what body does with the response resp.
func responseUse(info *types.Info, body *ast.BlockStmt, resp types.Object, lookup func(*types.Func) *responseFact) respUse {
	use := respReads
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == resp && len(stack) > 0 {
			switch u := useAt(info, id, stack, lookup); {
			case u == respKeeps:
				use = respKeeps
			case u == respCloses && use == respReads:
				use = respCloses
			}
		}
		stack = append(stack, n)
		return use != respKeeps
	})
	return use
}

// useAt says what the use of a response at the top of stack (id, its identifier) does
// with it.
func useAt(info *types.Info, id *ast.Ident, stack []ast.Node, lookup func(*types.Func) *responseFact) respUse {
	switch p := stack[len(stack)-1].(type) {
	case *ast.SelectorExpr:
		if p.X != id {
			return respKeeps
		}
		if readOnlyFields[p.Sel.Name] {
			return respReads
		}
		if p.Sel.Name == "Body" && len(stack) > 2 {
			if sel, ok := stack[len(stack)-2].(*ast.SelectorExpr); ok && sel.Sel.Name == "Close" {
				if _, ok := stack[len(stack)-3].(*ast.CallExpr); ok {
					return respCloses // resp.Body.Close()
				}
			}
			if b, ok := stack[len(stack)-2].(*ast.BinaryExpr); ok && (isNil(info, b.X) || isNil(info, b.Y)) {
				return respReads // resp.Body != nil
			}
		}
		return respKeeps
	case *ast.BinaryExpr:
		if isNil(info, p.X) || isNil(info, p.Y) {
			return respReads
		}
		return respKeeps
	case *ast.CallExpr:
		for i, arg := range p.Args {
			if arg != id {
				continue
			}
			if f := callee(info, p); f != nil && lookup != nil {
				if fact := lookup(f); fact != nil && i < len(fact.Uses) && fact.Uses[i] != respNone {
					return fact.Uses[i]
				}
			}
		}
	}
	return respKeeps
}

// responseUseOf returns the fact of f, of this package or another, or nil.
func (l *loops) responseUseOf(f *types.Func) *responseFact {
	if f == nil {
		return nil
	}
	if fact := l.responses[f]; fact != nil {
		return fact
	}
	var fact responseFact
	if l.importFact(f, &fact) {
		return &fact
	}
	return nil
}
