package retrycheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Cancel reports retries of what a retry cannot fix: context.Canceled or
// context.DeadlineExceeded classified as retryable (the caller gave up, or its time is
// over), and an HTTP 4xx other than 408 and 429 retried as if transient (the server
// refused the request; it gives the same answer again). Classifiers are the functions
// given to retry-go's RetryIf, failsafe-go's HandleIf, go-retryablehttp's CheckRetry and
// retry.Policy's Classifier, and functions named as retry predicates (isRetryable,
// shouldRetry); loops are the retry loops whose next attempt a 4xx reaches, but for
// readiness waits (see readinessWait).
var Cancel = &analysis.Analyzer{
	Name:     "retrycancel",
	Doc:      "reports context.Canceled or DeadlineExceeded classified as retryable, and a 4xx retried as transient",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retrycancel",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runCancel,
}

func runCancel(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	for _, c := range a.classifiers() {
		if !strings.HasSuffix(pass.Fset.Position(c.body.Pos()).Filename, "_test.go") {
			a.checkClassifier(c) // a classifier in a test file is a test of the hook
		}
	}
	a.checkRetryableStatuses()
	a.checkContextRetryLoops()
	for _, l := range a.loops.all {
		for _, s := range a.sends(l) {
			errVar, resp := a.results(s.call, l.body)
			if resp == nil || a.readinessWait(l, s, resp) {
				continue // a probe, or a wait for a server the code started: any other answer is worth asking again
			}
			if l.api != nil && a.ownClassifier(l) {
				continue // the call's classifier decides which errors are retried, and is checked as one
			}
			for _, p := range a.paths(l, s.call, errVar, resp, true).walk() {
				if codes := p.retried(permanentCodes); codes != 0 {
					pass.Reportf(p.decision().Pos(), "a %s response is retried by %s as if transient: the server refused the request "+
						"and answers the same again (retry 408, 429 and 5xx only)", joinCodes(codes), l.name)
					break
				}
			}
		}
	}
	return nil, nil
}

// ownClassifier reports whether a library loop's call gives a classifier of its own that
// decides which of the attempt's errors are retried: retry-go's RetryIf, a failsafe-go
// retry policy built with HandleIf or HandleErrors, this project's Policy.Classifier. A
// classifier that retries every error (return true, return err != nil) decides nothing.
func (a *checker) ownClassifier(l *retryLoop) bool {
	info := a.pass.TypesInfo
	call := l.node.(*ast.CallExpr)
	decides := func(e ast.Expr) bool {
		lit, ok := ast.Unparen(e).(*ast.FuncLit)
		if !ok {
			return true // a named function: it may decide
		}
		if len(lit.Body.List) != 1 {
			return true
		}
		ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) == 0 {
			return true
		}
		r := ast.Unparen(ret.Results[0])
		if objOf(info, r) == types.Universe.Lookup("true") {
			return false
		}
		if b, ok := r.(*ast.BinaryExpr); ok && b.Op == token.NEQ && (isNil(info, b.X) || isNil(info, b.Y)) {
			return false
		}
		return true
	}
	if l.api.ours {
		if l.api.policy < len(call.Args) {
			if v, ok := a.defs.policyField(info, call.Args[l.api.policy], "Classifier"); ok {
				return decides(v)
			}
		}
		return false
	}
	for _, arg := range call.Args {
		for e, i := arg, 0; e != nil && i < 12; i++ {
			c, ok := a.defs.call(info, e)
			if !ok {
				break
			}
			f := callee(info, c)
			switch id := funcID(f); {
			case id == "github.com/avast/retry-go.RetryIf" && len(c.Args) == 1:
				return decides(c.Args[0])
			case strings.HasPrefix(id, "github.com/failsafe-go/failsafe-go/retrypolicy.") && (f.Name() == "HandleIf" || f.Name() == "HandleErrors" || f.Name() == "HandleErrorTypes"):
				return f.Name() != "HandleIf" || len(c.Args) != 1 || decides(c.Args[0])
			}
			sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
			if !ok {
				break
			}
			e = sel.X
		}
	}
	return false
}

// probe reports whether a hand-written loop only probes with its request: it reads the
// response's status and headers and closes its body, and neither returns, stores nor reads
// it, and the request's method is not one that changes something (POST, PUT, PATCH,
// DELETE). Such a loop waits for a server to come up, where any answer but the one awaited
// (a 404 before the routes are ready) is worth asking again.
func (a *checker) probe(l *retryLoop, s *send, resp types.Object) bool {
	info := a.pass.TypesInfo
	switch a.method(s) {
	case "POST", "PUT", "PATCH", "DELETE":
		return false // a request that changes something is no probe
	}
	used := false
	var stack []ast.Node
	ast.Inspect(l.funcBody, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == resp && len(stack) > 0 {
			switch p := stack[len(stack)-1].(type) {
			case *ast.SelectorExpr:
				if p.Sel.Name == "Body" && len(stack) > 2 {
					if outer, ok := stack[len(stack)-2].(*ast.SelectorExpr); ok && outer.Sel.Name == "Close" {
						break // resp.Body.Close()
					}
					if b, ok := stack[len(stack)-2].(*ast.BinaryExpr); ok && (isNil(info, b.X) || isNil(info, b.Y)) {
						break // resp.Body != nil
					}
				}
				if !readOnlyFields[p.Sel.Name] {
					used = true
				}
			case *ast.BinaryExpr:
				if !isNil(info, p.X) && !isNil(info, p.Y) {
					used = true
				}
			case *ast.AssignStmt:
				if !slices.Contains(p.Lhs, ast.Expr(id)) {
					used = true // resp, err = client.Get(url) assigns it, and is no use
				}
			default:
				used = true
			}
		}
		stack = append(stack, n)
		return !used
	})
	return !used
}

// classifier is a function that decides whether to retry.
type classifier struct {
	typ  *ast.FuncType
	body *ast.BlockStmt
	// class is true for a classifier returning retry.Class (ClassRetryable means retry),
	// false for one returning a bool (true means retry).
	class bool
}

// classifiers returns the package's retry classifiers.
func (a *checker) classifiers() []classifier {
	info := a.pass.TypesInfo
	var out []classifier
	lit := func(e ast.Expr) {
		switch e := ast.Unparen(e).(type) {
		case *ast.FuncLit:
			out = append(out, classifier{typ: e.Type, body: e.Body, class: returnsClass(info, e.Type)})
		case *ast.Ident:
			if fn, ok := info.Uses[e].(*types.Func); ok && a.declOf(fn) != nil && !predicateName(fn.Name()) {
				fd := a.declOf(fn)
				out = append(out, classifier{typ: fd.Type, body: fd.Body, class: returnsClass(info, fd.Type)})
			}
		}
	}
	for _, f := range a.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body != nil && predicateName(n.Name.Name) && returnsBool(info, n.Type) {
					out = append(out, classifier{typ: n.Type, body: n.Body})
				}
			case *ast.CallExpr:
				switch id := funcID(callee(info, n)); {
				case id == "github.com/avast/retry-go.RetryIf" && len(n.Args) == 1:
					lit(n.Args[0])
				case strings.HasPrefix(id, "github.com/failsafe-go/failsafe-go/retrypolicy.") && strings.HasSuffix(id, ".HandleIf") && len(n.Args) == 1:
					lit(n.Args[0])
				case strings.HasPrefix(id, "github.com/failsafe-go/failsafe-go/retrypolicy.") && strings.HasSuffix(id, ".HandleErrors"):
					for _, arg := range n.Args {
						if which := contextError(info, arg); which != "" {
							a.pass.Reportf(arg.Pos(), "%s handled as retryable: the caller gave up or its time is over, and a retry cannot change that", which)
						}
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && (k.Name == "CheckRetry" || k.Name == "Classifier") {
					lit(n.Value)
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
					if sel, ok := n.Lhs[0].(*ast.SelectorExpr); ok && (sel.Sel.Name == "CheckRetry" || sel.Sel.Name == "Classifier") {
						lit(n.Rhs[0])
					}
				}
			}
			return true
		})
	}
	return out
}

// predicateName reports whether a function's name says it decides whether to retry:
// isRetryable, shouldRetry, retryableError, IsRetriable, canRetry.
func predicateName(name string) bool {
	n := strings.ToLower(name)
	if strings.Contains(n, "not") || strings.Contains(n, "non") || strings.Contains(n, "permanent") {
		return false
	}
	for _, p := range []string{"isretr", "shouldretry", "canretry", "retryable", "retriable"} {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

// returnsBool reports whether a function's first result is a bool.
func returnsBool(info *types.Info, ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return false
	}
	t, ok := types.Unalias(info.TypeOf(ft.Results.List[0].Type)).(*types.Basic)
	return ok && t.Kind() == types.Bool
}

// returnsClass reports whether a function returns this project's retry.Class.
func returnsClass(info *types.Info, ft *ast.FuncType) bool {
	return ft.Results != nil && len(ft.Results.List) == 1 && isNamed(info.TypeOf(ft.Results.List[0].Type), "github.com/retrykit/retry", "Class")
}

// checkClassifier reports the returns of c that say retry for a context's error or for a
// 4xx status.
func (a *checker) checkClassifier(c classifier) {
	info := a.pass.TypesInfo
	if !c.class && !returnsBool(info, c.typ) {
		return
	}
	watchesContext := false
	ast.Inspect(c.body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && funcID(callee(info, call)) == "context.Context.Err" {
			watchesContext = true
		}
		return true
	})
	// The classifier's response or status, and error, parameters.
	var respVar, errVar types.Object
	for _, f := range c.typ.Params.List {
		for _, name := range f.Names {
			o := info.Defs[name]
			switch t := o.Type(); {
			case isResponse(t):
				respVar = o
			case isError(t):
				errVar = o
			case isInt(t) && (strings.Contains(strings.ToLower(name.Name), "status") || strings.Contains(strings.ToLower(name.Name), "code")):
				respVar = o
			}
		}
		if isNamed(info.TypeOf(f.Type), "github.com/retrykit/retry", "Outcome") && len(f.Names) == 1 {
			respVar = info.Defs[f.Names[0]] // o.Status
		}
	}
	eval := &attemptPaths{a: a, errVar: errVar, respVar: respVar, errNil: true}
	var stack []ast.Node
	reportedContext, reportedStatus := false, false
	ast.Inspect(c.body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		stack = append(stack, n)
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) == 0 {
			return true
		}
		value := ret.Results[0]
		says := a.saysRetry(value, c.class)
		var guards []ast.Expr
		if says == unknown && !c.class {
			guards = append(guards, value) // return <condition>
		} else if says != yes {
			return true
		}
		guards = append(guards, enclosingGuards(stack)...)
		for _, g := range guards {
			if which := positiveContextTest(info, g); which != "" && !watchesContext && !reportedContext {
				reportedContext = true
				a.pass.Reportf(ret.Pos(), "%s classified as retryable: the caller gave up or its time is over, "+
					"and a retry cannot change that (return false for the context's errors)", which)
			}
		}
		if respVar != nil && !reportedStatus {
			if codes := a.statusGuards(eval, guards); codes != 0 {
				reportedStatus = true
				a.pass.Reportf(ret.Pos(), "a %s response is classified as retryable: the server refused the request "+
					"and answers the same again (retry 408, 429 and 5xx only)", joinCodes(codes))
			}
		}
		return true
	})
}

// statusGuards returns the permanent 4xx statuses for which every guard can hold and at
// least one reads the status.
func (a *checker) statusGuards(eval *attemptPaths, guards []ast.Expr) codeSet {
	seen := false
	for _, g := range guards {
		if a.mentionsStatusOf(g, eval.respVar) {
			seen = true
		}
	}
	if !seen {
		return 0
	}
	var codes codeSet
	for i, code := range statusCodes {
		bit := codeSet(1) << i
		if permanentCodes&bit == 0 {
			continue
		}
		ok := true
		for _, g := range guards {
			reads := a.mentionsStatus(g, eval.respVar) || mentionsResponse(a.pass.TypesInfo, g, eval.respVar)
			if eval.eval(g, code) == no || reads && !eval.readable(g, g, code) {
				ok = false // ruled out, or decided by what the analysis cannot read (a set, a call)
			}
		}
		if ok {
			codes |= bit
		}
	}
	return codes
}

// mentionsStatusOf is mentionsStatus for a response, an Outcome or a status parameter.
func (a *checker) mentionsStatusOf(n ast.Node, v types.Object) bool { return a.mentionsStatus(n, v) }

// saysRetry tells whether a classifier's returned value means retry.
func (a *checker) saysRetry(e ast.Expr, class bool) tri {
	info := a.pass.TypesInfo
	if class {
		if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
			if sel.Sel.Name == "ClassRetryable" {
				return yes
			}
			return no
		}
		return unknown
	}
	switch objOf(info, e) {
	case types.Universe.Lookup("true"):
		return yes
	case types.Universe.Lookup("false"):
		return no
	}
	return unknown
}

// enclosingGuards returns the conditions under which the innermost node of stack runs:
// the conditions of the ifs whose then branch holds it, and the expressions of its case
// clause (as tag == value for a switch with a tag).
func enclosingGuards(stack []ast.Node) []ast.Expr {
	var guards []ast.Expr
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.IfStmt:
			if i+1 < len(stack) && stack[i+1] == s.Body {
				guards = append(guards, s.Cond)
			}
		case *ast.CaseClause:
			if len(s.List) == 1 {
				if i > 1 {
					if sw, ok := stack[i-2].(*ast.SwitchStmt); ok && sw.Tag != nil {
						guards = append(guards, &ast.BinaryExpr{X: sw.Tag, Op: token.EQL, Y: s.List[0], OpPos: s.List[0].Pos()})
						continue
					}
				}
				guards = append(guards, s.List[0])
			} else if len(s.List) > 1 {
				if i > 1 {
					if sw, ok := stack[i-2].(*ast.SwitchStmt); ok && sw.Tag == nil {
						var or ast.Expr
						for _, v := range s.List {
							if or == nil {
								or = v
							} else {
								or = &ast.BinaryExpr{X: or, Op: token.LOR, Y: v, OpPos: v.Pos()}
							}
						}
						guards = append(guards, or)
						continue
					}
					if sw, ok := stack[i-2].(*ast.SwitchStmt); ok && sw.Tag != nil {
						var or ast.Expr
						for _, v := range s.List {
							eq := &ast.BinaryExpr{X: sw.Tag, Op: token.EQL, Y: v, OpPos: v.Pos()}
							if or == nil {
								or = eq
							} else {
								or = &ast.BinaryExpr{X: or, Op: token.LOR, Y: eq, OpPos: v.Pos()}
							}
						}
						guards = append(guards, or)
					}
				}
			}
		}
	}
	return guards
}

// positiveContextTest returns the context error a condition tests for when it holds
// (errors.Is(err, context.Canceled), err == context.DeadlineExceeded, a test of the error's
// text, alone or in an || or an &&: err != nil && (errors.Is(err, context.Canceled) || ...)),
// or "".
func positiveContextTest(info *types.Info, e ast.Expr) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LOR, token.LAND:
			if w := positiveContextTest(info, e.X); w != "" {
				return w
			}
			return positiveContextTest(info, e.Y)
		case token.EQL:
			if w := contextError(info, e.X); w != "" {
				return w
			}
			return contextError(info, e.Y)
		}
	case *ast.CallExpr:
		switch funcID(callee(info, e)) {
		case "errors.Is":
			if len(e.Args) == 2 {
				return contextError(info, e.Args[1])
			}
		case "strings.Contains", "strings.HasSuffix", "strings.HasPrefix":
			if len(e.Args) == 2 {
				switch text, _ := constString(info, e.Args[1]); text {
				case "context canceled":
					return "context.Canceled"
				case "context deadline exceeded":
					return "context.DeadlineExceeded"
				}
			}
		}
	}
	return ""
}

// contextError returns "context.Canceled" or "context.DeadlineExceeded" when e is one of
// them, or "".
func contextError(info *types.Info, e ast.Expr) string {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	v, ok := info.Uses[sel.Sel].(*types.Var)
	if !ok || v.Pkg() == nil || v.Pkg().Path() != "context" {
		return ""
	}
	switch v.Name() {
	case "Canceled", "DeadlineExceeded":
		return "context." + v.Name()
	}
	return ""
}

// isInt reports whether t is an integer type.
func isInt(t types.Type) bool {
	b, ok := types.Unalias(t).Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}
