package retrycheck

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// A status listed in this project's Policy.RetryableStatuses is retried by every loop
// given the policy (retry.Run's attempts that report a Status, retryhttp's clients). A
// 4xx there is retried as if transient. Not counted: 401 (retried after refreshing a
// token), 408 and 429 (declined), 409 (a conflict some APIs ask to retry), 425 Too Early
// (RFC 8470: retry once the early data is confirmed).

// transient4xx are the 4xx statuses a policy may list without a report.
var transient4xx = map[int64]bool{401: true, 408: true, 409: true, 425: true, 429: true}

// checkRetryableStatuses reports the permanent 4xx statuses in the RetryableStatuses of
// the policies the package builds (composite literals and assignments to the field),
// outside test files.
func (a *checker) checkRetryableStatuses() {
	info := a.pass.TypesInfo
	for _, f := range a.pass.Files {
		if strings.HasSuffix(a.pass.Fset.Position(f.Pos()).Filename, "_test.go") {
			continue // a test of the list itself
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if isNamed(info.TypeOf(n), ourPath, "Policy") {
					if v, ok := fieldValue(n, "RetryableStatuses"); ok {
						a.reportStatuses(v)
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i, l := range n.Lhs {
						if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "RetryableStatuses" && isOurPolicy(info.TypeOf(sel.X)) {
							a.reportStatuses(n.Rhs[i])
						}
					}
				}
			}
			return true
		})
	}
}

// reportStatuses reports the permanent 4xx statuses of a RetryableStatuses value, at the
// first of them.
func (a *checker) reportStatuses(v ast.Expr) {
	var at ast.Expr
	var codes []int64
	a.statusElements(v, 0, func(e ast.Expr, code int64) {
		if code >= 400 && code < 500 && !transient4xx[code] {
			if at == nil {
				at = e
			}
			codes = append(codes, code)
		}
	})
	if at == nil {
		return
	}
	a.pass.Reportf(at.Pos(), "a %s response is retried by retry.Policy's RetryableStatuses as if transient: the server refused the "+
		"request and answers the same again (retry 408, 429 and 5xx only)", joinInts(codes))
}

// statusElements calls f for each constant status of a list: a []int literal, a variable
// assigned one, append(list, statuses...), slices.Clone(list). The library's default list
// holds none to report and is not read.
func (a *checker) statusElements(e ast.Expr, depth int, f func(ast.Expr, int64)) {
	info := a.pass.TypesInfo
	if depth > 4 || e == nil {
		return
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		for _, el := range x.Elts {
			if code, ok := constInt(info, el); ok {
				f(el, code)
			}
		}
	case *ast.Ident:
		if def, ok := a.defs.only(info, x); ok && def.index == 0 {
			a.statusElements(def.rhs, depth+1, f)
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && id.Name == "append" && len(x.Args) > 0 {
			if _, builtin := info.Uses[id].(*types.Builtin); builtin {
				a.statusElements(x.Args[0], depth+1, f)
				for _, el := range x.Args[1:] {
					if code, ok := constInt(info, el); ok {
						f(el, code)
					}
				}
			}
			return
		}
		if funcID(callee(info, x)) == "slices.Clone" && len(x.Args) == 1 {
			a.statusElements(x.Args[0], depth+1, f)
		}
	}
}

// joinInts writes statuses as "400, 404 or 422".
func joinInts(codes []int64) string {
	var parts []string
	for _, c := range codes {
		parts = append(parts, strconv.FormatInt(c, 10))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
