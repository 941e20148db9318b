package retrycheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// definition is one value assigned to a variable: rhs, or the index-th result of the call
// rhs when the assignment has several variables and one call.
type definition struct {
	rhs   ast.Expr
	index int
	pos   token.Pos // where the assignment is
}

// definitions holds, for each variable of a package, the values assigned to it in source
// order (declarations, := and =, not increments or assignments through pointers), and the
// last value assigned to each of its fields by name (x.RetryMax = 2). A struct field
// counts as a variable: its values are those assigned to it (c.rc = rc) and those its
// composite literals give it (&Client{rc: rc}), so that a client a constructor keeps in a
// field is followed to where it was made.
type definitions struct {
	vars   map[types.Object][]definition
	fields map[fieldKey]ast.Expr
	// mutated holds the variables changed in place (x *= 2, x++): none of them holds a
	// single value.
	mutated map[types.Object]bool
	// returned maps each function of the package with a single return of a single value
	// to that value (func policy() *retry.Policy { return &retry.Policy{...} }).
	returned map[*types.Func]ast.Expr
	// awsConfigAttempts is the most attempts that the AWS SDK configurations the package
	// loads allow (config.LoadDefaultConfig with WithRetryMaxAttempts(n): n; without: 3),
	// 0 when it loads none.
	awsConfigAttempts int
}

// fieldKey names the field name of the variable (or struct field) obj.
type fieldKey struct {
	obj  types.Object
	name string
}

// collectDefinitions indexes every assignment in files.
func collectDefinitions(info *types.Info, files []*ast.File) definitions {
	d := definitions{vars: map[types.Object][]definition{}, fields: map[fieldKey]ast.Expr{}, returned: map[*types.Func]ast.Expr{}, mutated: map[types.Object]bool{}}
	add := func(lhs []ast.Expr, rhs []ast.Expr, pos token.Pos) {
		for i, l := range lhs {
			if sel, ok := l.(*ast.SelectorExpr); ok && len(rhs) == len(lhs) {
				if o := d.holder(info, sel.X); o != nil {
					d.fields[fieldKey{o, sel.Sel.Name}] = rhs[i]
				}
			}
			o := varOf(info, l)
			if o == nil {
				continue
			}
			switch {
			case len(rhs) == len(lhs):
				d.vars[o] = append(d.vars[o], definition{rhs: rhs[i], pos: pos})
			case len(rhs) == 1:
				d.vars[o] = append(d.vars[o], definition{rhs: rhs[0], index: i, pos: pos})
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE || n.Tok == token.ASSIGN {
					add(n.Lhs, n.Rhs, n.Pos())
				} else if o := varOf(info, n.Lhs[0]); o != nil {
					d.mutated[o] = true
				}
			case *ast.IncDecStmt:
				if o := varOf(info, n.X); o != nil {
					d.mutated[o] = true
				}
			case *ast.ValueSpec:
				lhs := make([]ast.Expr, len(n.Names))
				for i, id := range n.Names {
					lhs[i] = id
				}
				add(lhs, n.Values, n.Pos())
			case *ast.CompositeLit:
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok {
							if v, ok := info.Uses[k].(*types.Var); ok && v.IsField() {
								d.vars[v] = append(d.vars[v], definition{rhs: kv.Value, pos: kv.Pos()})
							}
						}
					}
				}
			case *ast.FuncDecl:
				if ret := singleReturn(n); ret != nil {
					if fn, ok := info.Defs[n.Name].(*types.Func); ok {
						d.returned[fn] = ret
					}
				}
			case *ast.CallExpr:
				if funcID(callee(info, n)) == "github.com/aws/aws-sdk-go-v2/config.LoadDefaultConfig" {
					d.awsConfigAttempts = max(d.awsConfigAttempts, awsConfigAttempts(info, n))
				}
			}
			return true
		})
	}
	return d
}

// varOf returns the variable an expression names: an identifier's, or the struct field
// of a selector (c.rc).
func varOf(info *types.Info, e ast.Expr) types.Object {
	if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
		if v, ok := info.Uses[sel.Sel].(*types.Var); ok && v.IsField() {
			return v
		}
		return nil
	}
	return objOf(info, e)
}

// singleReturn returns the value of a function's only return statement when it has one
// result, or nil.
func singleReturn(fd *ast.FuncDecl) ast.Expr {
	if fd.Body == nil {
		return nil
	}
	var rets []*ast.ReturnStmt
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			rets = append(rets, n)
		}
		return true
	})
	if len(rets) != 1 || len(rets[0].Results) != 1 {
		return nil
	}
	return rets[0].Results[0]
}

// awsConfigAttempts returns the attempts an AWS SDK configuration allows its clients:
// WithRetryMaxAttempts(n) among the options of config.LoadDefaultConfig, or 3.
func awsConfigAttempts(info *types.Info, load *ast.CallExpr) int {
	for _, a := range load.Args {
		call, ok := ast.Unparen(a).(*ast.CallExpr)
		if !ok || funcID(callee(info, call)) != "github.com/aws/aws-sdk-go-v2/config.WithRetryMaxAttempts" || len(call.Args) != 1 {
			continue
		}
		if n, ok := constInt(info, call.Args[0]); ok && n > 0 {
			return int(n)
		}
		return 3 // not a constant: as many as the default, for all we know
	}
	return 3
}

// only returns the single value assigned to the variable e names, if e is an identifier
// assigned exactly once.
func (d definitions) only(info *types.Info, e ast.Expr) (definition, bool) {
	o := varOf(info, e)
	if o == nil {
		return definition{}, false
	}
	defs := d.vars[o]
	if len(defs) != 1 || d.mutated[o] {
		return definition{}, false
	}
	return defs[0], true
}

// resolve follows an identifier assigned once to its value, at most a few times.
func (d definitions) resolve(info *types.Info, e ast.Expr) ast.Expr {
	for range 4 {
		e = ast.Unparen(e)
		def, ok := d.only(info, e)
		if !ok || def.index != 0 {
			return e
		}
		e = def.rhs
	}
	return e
}

// composite returns the composite literal e is (or points to), directly or through a
// variable assigned once.
func (d definitions) composite(info *types.Info, e ast.Expr) *ast.CompositeLit {
	if e == nil {
		return nil
	}
	e = d.resolve(info, e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	lit, _ := e.(*ast.CompositeLit)
	return lit
}

// call returns the call e is, directly or through a variable assigned once.
func (d definitions) call(info *types.Info, e ast.Expr) (*ast.CallExpr, bool) {
	if e == nil {
		return nil, false
	}
	call, ok := d.resolve(info, e).(*ast.CallExpr)
	return call, ok
}

// fieldAssigned returns the constant last assigned to the field name of the variable e
// names (x.RetryMax = 2).
func (d definitions) fieldAssigned(info *types.Info, e ast.Expr, name string) (int, bool) {
	for range 4 {
		if o := d.holder(info, e); o != nil {
			if v, ok := d.fields[fieldKey{o, name}]; ok {
				n, ok := constInt(info, v)
				return int(n), ok
			}
		}
		def, ok := d.only(info, e)
		if !ok || def.index != 0 {
			return 0, false
		}
		e = def.rhs
	}
	return 0, false
}

// executorPolicies returns the policies a failsafe-go executor was built with
// (failsafe.With(p...) or failsafe.NewExecutor(p...), then any With... method).
func (d definitions) executorPolicies(info *types.Info, e ast.Expr) []ast.Expr {
	for range 8 {
		call, ok := d.call(info, e)
		if !ok {
			return nil
		}
		switch id := funcID(callee(info, call)); {
		case id == "github.com/failsafe-go/failsafe-go.With" || id == "github.com/failsafe-go/failsafe-go.NewExecutor":
			return call.Args
		case strings.HasPrefix(id, "github.com/failsafe-go/failsafe-go.Executor."):
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok {
				return nil
			}
			e = sel.X
		default:
			return nil
		}
	}
	return nil
}

// retryPolicyAttempts reports whether p is a failsafe-go retry policy and, if so, how many
// attempts it allows: WithMaxRetries(n) gives n + 1, WithMaxAttempts(n) n, the default 3.
func (d definitions) retryPolicyAttempts(info *types.Info, p ast.Expr) (int, bool) {
	t := info.TypeOf(p)
	n := namedOf(t)
	if n == nil || n.Obj().Pkg() == nil || basePath(n.Obj().Pkg().Path()) != "github.com/failsafe-go/failsafe-go/retrypolicy" {
		return 0, false
	}
	attempts := 3
	e := p
	for range 12 {
		call, ok := d.call(info, e)
		if !ok {
			break
		}
		f := callee(info, call)
		if f == nil {
			break
		}
		switch f.Name() {
		case "WithMaxRetries":
			if v, ok := constInt(info, call.Args[0]); ok {
				if v < 0 {
					return unbounded, true
				}
				return int(v) + 1, true
			}
			return 0, true
		case "WithMaxAttempts":
			if v, ok := constInt(info, call.Args[0]); ok {
				if v < 0 {
					return unbounded, true
				}
				return int(v), true
			}
			return 0, true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			break
		}
		e = sel.X
	}
	return attempts, true
}
