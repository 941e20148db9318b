package retrycheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
)

// Sleep reports a wait between attempts that ignores cancellation: time.Sleep, or a bare
// <-time.After, in a retry loop while a context is in scope. The caller who cancels, or
// whose deadline passes, waits for the sleep to end, and the loop may start another
// attempt nobody wants. A suggested fix waits on a timer and ctx.Done(). A wait shorter
// than a second (constant, or computed from constants and the loop's counter) is not
// reported when the loop checks the context elsewhere or all its waits add up to under a
// second, nor a wait of a second or less when the loop leaves when a call given the
// context fails: it delays cancellation too little to matter. Nor is a wait on a context
// of the function's own making that no caller can cancel (context.WithTimeout of
// Background, its cancel function only deferred, or a test's t.Context()), when its waits
// add up to at most half its timeout, it has none, or the loop leaves when a call given
// it fails once it times out; nor one in a function only go statements start whose loop
// leaves first thing once its context is done. A wait capped before it is bounded by the
// cap, and in test code waits adding up to 5 s at most are not reported.
var Sleep = &analysis.Analyzer{
	Name:     "retrysleep",
	Doc:      "reports time.Sleep or <-time.After between attempts while a context is in scope",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retrysleep",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runSleep,
}

// shortWait is the longest constant wait not reported.
const shortWait = time.Second

// testWaits is the longest that the waits of a loop in test code may add up to and not be
// reported: a test's context ends when the test does, and a test that waits a few seconds
// more for a mount or a server keeps nobody waiting (restic's fuse tests, issue 36).
const testWaits = 5 * time.Second

// pause is the longest wait never reported: a hundred of them delay cancellation by a
// second at most.
const pause = 10 * time.Millisecond

func runSleep(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	for _, l := range slices.Concat(a.loops.all, a.loops.polls) {
		if l.hand == nil {
			continue
		}
		for _, w := range l.hand.waits {
			if a.fallback(l, w) {
				continue // another wait of the loop, on the other branch of an if, watches the context
			}
			if w.kind != waitSleep && w.kind != waitAfter && w.kind != waitLone && w.kind != waitStrategy || w.call == nil || len(w.call.Args) != 1 {
				continue
			}
			if d, ok := a.longestWait(w.call.Args[0], l); ok && w.kind != waitStrategy && (d <= pause || d < shortWait &&
				(l.hand.watchesContext || l.hand.deadline || l.attempts > 0 && time.Duration(l.attempts)*d <= shortWait) ||
				d <= shortWait && a.leavesOnContextError(l, true)) {
				continue // a pause, or short and the loop checks the context, ends through it, or is over within a second
			}
			if d, ok := a.longestWait(w.call.Args[0], l); ok && w.kind != waitStrategy && l.attempts > 0 &&
				time.Duration(l.attempts)*d <= testWaits && a.testCode(l) {
				continue // test code waiting a few seconds at most: its context ends with the test
			}
			ctx, v := a.contextInScope(w.stmt.Pos(), l.body)
			if ctx == "" || v != nil && a.waitsFitOwnContext(v, w, l) {
				continue
			}
			if a.detached(l) && checksContextFirst(a.pass.TypesInfo, l) {
				continue // nobody waits for the goroutine, and a cancel stops it before the next attempt
			}
			what := "time.Sleep"
			switch w.kind {
			case waitAfter:
				what = "<-time.After"
			case waitLone:
				what = "a select on a timer alone"
			case waitStrategy:
				what = "a Rican7/retry strategy's time.Sleep"
			}
			diag := analysis.Diagnostic{
				Pos: w.stmt.Pos(),
				End: w.stmt.End(),
				Message: fmt.Sprintf("%s between attempts ignores cancellation of %s: a canceled caller waits it out, "+
					"and the loop may start another attempt (wait on a timer and %s.Done())", what, ctx, ctx),
			}
			if fix, ok := a.sleepFix(w, ctx, l); ok && w.kind != waitStrategy {
				diag.SuggestedFixes = []analysis.SuggestedFix{fix}
			}
			pass.Report(diag)
		}
	}
	return nil, nil
}

// leavesOnContextError reports whether a loop gives a context to a call and leaves on that
// call's error (if err != nil { return err }, break, t.Fatal, require.NoError(t, err)):
// once the context is done, the next call fails with its error and the loop ends after at
// most one more wait. The context is the caller's, or with own, any declared outside the
// loop (a test's, that its timeout ends).
func (a *checker) leavesOnContextError(l *retryLoop, own bool) bool {
	if l.hand.attempt != nil && a.endsThroughAttempt(l) {
		return true
	}
	info := a.pass.TypesInfo
	return a.leavesOnErrorOf(l, func(call *ast.CallExpr) bool {
		if !own {
			return a.passesCallersContext(call, l)
		}
		for _, arg := range call.Args {
			if v, ok := objOf(info, arg).(*types.Var); ok && isContext(v.Type()) && (v.Pos() < l.body.Pos() || v.Pos() >= l.body.End()) {
				return true
			}
		}
		return false
	})
}

// leavesOnOwnTimeout reports whether a loop gives a context of its function's own making
// with a timeout (see ownLifetime), declared outside the loop, to a call and leaves on
// that call's error: once the timeout passes, the call fails and the loop ends after at
// most one more wait (mongo-driver's search index tests, issue 36).
func (a *checker) leavesOnOwnTimeout(l *retryLoop) bool {
	info := a.pass.TypesInfo
	return a.leavesOnErrorOf(l, func(call *ast.CallExpr) bool {
		for _, arg := range call.Args {
			v, ok := objOf(info, arg).(*types.Var)
			if !ok || !isContext(v.Type()) || v.Pos() >= l.body.Pos() && v.Pos() < l.body.End() {
				continue
			}
			if life, own := a.ownLifetime(v, 0); own && life != forever {
				return true
			}
		}
		return false
	})
}

// leavesOnErrorOf reports whether a loop leaves on the error of a call of its body that
// givesContext accepts (if err != nil { return err }, break, t.Fatal,
// require.NoError(t, err)).
func (a *checker) leavesOnErrorOf(l *retryLoop, givesContext func(*ast.CallExpr) bool) bool {
	info := a.pass.TypesInfo
	var errs []types.Object
	direct(l.body, func(n ast.Node, _ []ast.Node) bool {
		var lhs []ast.Expr
		var rhs ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				lhs, rhs = n.Lhs, n.Rhs[0]
			}
		case *ast.ValueSpec:
			if len(n.Values) == 1 {
				for _, id := range n.Names {
					lhs = append(lhs, id)
				}
				rhs = n.Values[0]
			}
		}
		if call, ok := ast.Unparen(rhs).(*ast.CallExpr); ok && givesContext(call) {
			for _, lhs := range lhs {
				if o := objOf(info, lhs); o != nil && isError(o.Type()) {
					errs = append(errs, o)
				}
			}
		}
		return true
	})
	if len(errs) == 0 {
		return false
	}
	failed := func(cond ast.Expr) bool { // err != nil, alone or first in an &&
		for {
			b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
			if !ok || b.Op != token.LAND {
				break
			}
			cond = b.X
		}
		for _, e := range errs {
			if isNilTest(info, cond, e, token.NEQ) {
				return true
			}
		}
		return false
	}
	found := false
	direct(l.body, func(n ast.Node, _ []ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			found = found || failed(n.Cond) && leaves(n.Body.List)
		case *ast.CallExpr: // require.NoError(t, err), t.Fatal(err)
			name := calleeName(n)
			if (name == "NoError" || name == "Nil" || strings.HasPrefix(name, "Fatal")) && mentionsAny(info, n, errs) {
				found = true
			}
		}
		return !found
	})
	return found
}

// fallback reports whether the bare wait w is the fallback of one that watches the
// context: the two are on the two branches of an if (if ctx != nil { select ... } else {
// time.Sleep(d) }), or the watching one is in an if on the context and the bare one
// after it (if done := ctx.Done(); done != nil { select ... continue }; time.Sleep(d)).
func (a *checker) fallback(l *retryLoop, w wait) bool {
	var watching []wait
	for _, v := range l.hand.waits {
		if v.watchesContext {
			watching = append(watching, v)
		}
	}
	if len(watching) == 0 {
		return false
	}
	within := func(n, b ast.Node) bool { return b != nil && b.Pos() <= n.Pos() && n.End() <= b.End() }
	found := false
	ast.Inspect(l.body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || ifs.Else == nil || found {
			return !found
		}
		for _, v := range watching {
			if within(w.stmt, ifs.Body) && within(v.stmt, ifs.Else) || within(w.stmt, ifs.Else) && within(v.stmt, ifs.Body) {
				found = true
			}
		}
		return !found
	})
	ast.Inspect(l.body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || found || within(w.stmt, ifs) || !a.mentionsContext(ifs.Cond) && (ifs.Init == nil || !a.mentionsContext(ifs.Init)) {
			return !found
		}
		for _, v := range watching {
			found = found || within(v.stmt, ifs.Body) && w.stmt.Pos() > ifs.End()
		}
		return !found
	})
	return found
}

// mentionsContext reports whether n uses a context.Context value.
func (a *checker) mentionsContext(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if e, ok := x.(ast.Expr); ok && isContext(a.pass.TypesInfo.TypeOf(e)) {
			found = true
		}
		return !found
	})
	return found
}

// longestWait returns the longest value a wait's duration takes when it is a constant, or
// an arithmetic expression of constants and the loop's counter with a constant bound
// (time.Duration(100*attempt) * time.Millisecond, attempt < 3: 200 ms).
func (a *checker) longestWait(e ast.Expr, l *retryLoop) (time.Duration, bool) {
	counter, top := a.counterBound(l)
	v, ok := a.evalDuration(e, counter, top, 0)
	if !ok {
		v, ok = a.cappedWait(e, l, counter, top)
	}
	return time.Duration(v), ok
}

// cappedWait bounds a wait the loop's body caps before it (the statements of the body
// before the wait, at its top level): a variable capped by an if (if d > max { d = max }:
// max, or the larger of the two constants) and not assigned after, and time.Until(t) of a
// t := time.Now().Add(d) that later statements only bring closer (if t.After(deadline) {
// t = deadline }): d's bound (couchbase's WatchIndexes waits so).
func (a *checker) cappedWait(e ast.Expr, l *retryLoop, counter types.Object, top int64) (int64, bool) {
	info := a.pass.TypesInfo
	var before []ast.Stmt // the body's statements before the wait
	for _, st := range l.body.List {
		if st.End() > e.Pos() {
			break
		}
		before = append(before, st)
	}
	assigns := func(n ast.Node, v types.Object) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					found = found || objOf(info, lhs) == v
				}
			case *ast.IncDecStmt:
				found = found || objOf(info, n.X) == v
			case *ast.UnaryExpr:
				found = found || n.Op == token.AND && objOf(info, n.X) == v
			}
			return !found
		})
		return found
	}
	// setIn returns the value a lone if's body gives v (if cond { v = x }), or nil.
	setIn := func(st ast.Stmt, v types.Object) (*ast.IfStmt, ast.Expr) {
		ifs, ok := st.(*ast.IfStmt)
		if !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 {
			return nil, nil
		}
		as, ok := ifs.Body.List[0].(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || objOf(info, as.Lhs[0]) != v {
			return nil, nil
		}
		return ifs, as.Rhs[0]
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		v := objOf(info, e)
		if v == nil {
			return 0, false
		}
		for i := len(before) - 1; i >= 0; i-- {
			ifs, set := setIn(before[i], v)
			if ifs == nil {
				if assigns(before[i], v) {
					return 0, false
				}
				continue
			}
			cond, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
			if !ok || objOf(info, cond.X) != v || cond.Op != token.GTR && cond.Op != token.GEQ {
				return 0, false
			}
			x, ok1 := a.evalDuration(cond.Y, counter, top, 0)
			y, ok2 := a.evalDuration(set, counter, top, 0)
			return max(x, y), ok1 && ok2
		}
	case *ast.CallExpr:
		if funcID(callee(info, e)) != "time.Until" || len(e.Args) != 1 {
			return 0, false
		}
		t := objOf(info, e.Args[0])
		if t == nil {
			return 0, false
		}
		for i := len(before) - 1; i >= 0; i-- {
			if ifs, _ := setIn(before[i], t); ifs != nil {
				if c, ok := ast.Unparen(ifs.Cond).(*ast.CallExpr); ok && calleeName(c) == "After" {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && objOf(info, sel.X) == t {
						continue // brought closer
					}
				}
				return 0, false
			}
			as, ok := before[i].(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || objOf(info, as.Lhs[0]) != t {
				if assigns(before[i], t) {
					return 0, false
				}
				continue
			}
			add, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr) // time.Now().Add(d)
			if !ok || len(add.Args) != 1 || calleeName(add) != "Add" {
				return 0, false
			}
			sel, ok := add.Fun.(*ast.SelectorExpr)
			if !ok {
				return 0, false
			}
			now, ok := ast.Unparen(sel.X).(*ast.CallExpr)
			if !ok || funcID(callee(info, now)) != "time.Now" {
				return 0, false
			}
			if d, ok := a.evalDuration(add.Args[0], counter, top, 0); ok {
				return d, true
			}
			return a.cappedWait(add.Args[0], &retryLoop{body: &ast.BlockStmt{List: before[:i]}}, counter, top)
		}
	}
	return 0, false
}

// counterBound returns the loop's counter and its largest value, when both are known: for
// i := a; i < b; i++ (b-1), i <= b (b), for i := range n (n-1).
func (a *checker) counterBound(l *retryLoop) (types.Object, int64) {
	info := a.pass.TypesInfo
	switch s := l.node.(type) {
	case *ast.RangeStmt:
		if n, ok := constInt(info, s.X); ok && s.Key != nil {
			return objOf(info, s.Key), n - 1
		}
	case *ast.ForStmt:
		init, ok := s.Init.(*ast.AssignStmt)
		if !ok || len(init.Lhs) != 1 {
			return nil, 0
		}
		cond, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
		if !ok || objOf(info, cond.X) != objOf(info, init.Lhs[0]) {
			return nil, 0
		}
		if to, ok := constInt(info, cond.Y); ok {
			switch cond.Op {
			case token.LSS:
				return objOf(info, init.Lhs[0]), to - 1
			case token.LEQ:
				return objOf(info, init.Lhs[0]), to
			}
		}
	}
	return nil, 0
}

// evalDuration evaluates an expression of constants, the counter (at its largest value),
// variables assigned once from such expressions, + - * and conversions, in nanoseconds.
func (a *checker) evalDuration(e ast.Expr, counter types.Object, top int64, depth int) (int64, bool) {
	info := a.pass.TypesInfo
	if depth > 6 {
		return 0, false
	}
	if v, ok := constInt(info, e); ok {
		return v, true
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		o := objOf(info, e)
		if o != nil && o == counter {
			return top, true
		}
		if def, ok := a.defs.only(info, e); ok && def.index == 0 {
			return a.evalDuration(def.rhs, counter, top, depth+1)
		}
	case *ast.BinaryExpr:
		x, ok1 := a.evalDuration(e.X, counter, top, depth+1)
		y, ok2 := a.evalDuration(e.Y, counter, top, depth+1)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch e.Op {
		case token.MUL:
			return x * y, true
		case token.ADD:
			return x + y, true
		case token.SUB:
			return x - y, true
		}
	case *ast.CallExpr:
		if tv, ok := info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 { // time.Duration(x)
			return a.evalDuration(e.Args[0], counter, top, depth+1)
		}
	}
	return 0, false
}

// contextInScope returns the expression of a caller's context in a function scope around
// pos, and its variable: a context.Context variable declared outside the loop's body (an
// attempt's own context is not the caller's), the innermost first (one named ctx
// preferred in a scope), and not assigned only context.Background() or TODO(), which
// nobody cancels; or else the context of an *http.Request variable (req.Context(), no
// variable); "" when there is none.
func (a *checker) contextInScope(pos token.Pos, body *ast.BlockStmt) (string, *types.Var) {
	pass := a.pass
	req := ""
	for s := pass.Pkg.Scope().Innermost(pos); s != nil && s != pass.Pkg.Scope() && s != types.Universe; s = s.Parent() {
		ctx := ""
		var ctxVar *types.Var
		for _, name := range s.Names() {
			v, ok := s.Lookup(name).(*types.Var)
			if !ok || v.Pos() > pos || name == "_" {
				continue
			}
			switch {
			case isContext(v.Type()) && (ctx == "" || name == "ctx"):
				if v.Pos() >= body.Pos() && v.Pos() < body.End() || a.uncancelable(v) {
					continue
				}
				ctx, ctxVar = name, v
			case isRequest(v.Type()) && req == "" && (v.Pos() < body.Pos() || v.Pos() >= body.End()) && !a.withoutContext(v):
				req = name + ".Context()" // a request made in the loop carries the attempt's context
			}
		}
		if ctx != "" {
			return ctx, ctxVar
		}
	}
	if req != "" {
		return req, nil
	}
	return a.fieldContext(pos), nil
}

// fieldContext returns a context held in a field of the receiver or of a parameter of a
// function around pos, or of a field of it (b.ctx, meta.sfa.ctx): the context of the
// object the function works for, which ends its work (a backend's, a request's, a
// transfer's); "" when there is none. A local variable's (an iterator's stream) is not
// the caller's, nor an unexported field the package only ever sets to
// context.Background() or TODO() (bun's pgdriver channel, issue 36).
func (a *checker) fieldContext(pos token.Pos) string {
	pass := a.pass
	for s := pass.Pkg.Scope().Innermost(pos); s != nil && s != pass.Pkg.Scope() && s != types.Universe; s = s.Parent() {
		names := s.Names()
		slices.Sort(names)
		for _, name := range names {
			v, ok := s.Lookup(name).(*types.Var)
			if !ok || v.Pos() > pos || name == "_" || v.Kind() != types.RecvVar && v.Kind() != types.ParamVar {
				continue
			}
			if f, field := contextField(pass.Pkg, v.Type(), 2); f != "" && (field.Exported() || !a.uncancelable(field)) {
				return name + "." + f
			}
		}
	}
	return ""
}

// contextField returns the path of a context.Context field of the struct t (or *t), at
// most depth fields deep, accessible from pkg, and the field; "" when there is none.
func contextField(pkg *types.Package, t types.Type, depth int) (string, *types.Var) {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := types.Unalias(t).Underlying().(*types.Struct)
	if !ok || depth == 0 {
		return "", nil
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != pkg || f.Embedded() {
			continue
		}
		if isContext(f.Type()) {
			return f.Name(), f
		}
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != pkg || f.Embedded() {
			continue
		}
		if sub, field := contextField(pkg, f.Type(), depth-1); sub != "" {
			return f.Name() + "." + sub, field
		}
	}
	return "", nil
}

// waitsFitOwnContext reports whether a loop's waits cannot keep anyone waiting: its
// context is the function's own, which no caller cancels (see ownLifetime), and either
// nothing but its return ends it, or all the loop's waits (a constant count of attempts
// times the longest wait) add up to at most half its timeout.
func (a *checker) waitsFitOwnContext(v *types.Var, w wait, l *retryLoop) bool {
	lifetime, own := a.ownLifetime(v, 0)
	if !own {
		return false
	}
	if lifetime == forever || a.leavesOnOwnTimeout(l) {
		return true // nothing but its return ends it, or its timeout ends the loop
	}
	if w.kind == waitStrategy {
		return false // its argument is the attempt's number, not the wait
	}
	d, ok := a.longestWait(w.call.Args[0], l)
	return ok && l.attempts > 0 && time.Duration(l.attempts)*d <= lifetime/2
}

// forever is the lifetime of a context that only its function's return ends.
const forever = time.Duration(1<<63 - 1)

// ownLifetime reports whether the context variable v is the function's own: not a
// parameter, and every value assigned to it is context.Background(), TODO(),
// WithoutCancel(x), a test's t.Context(), or a WithTimeout (of a constant) or WithCancel
// of such a context whose cancel function is only deferred. Nobody else can cancel it;
// only its timer ends it, after the returned duration (the shortest timeout on its way;
// forever without one).
func (a *checker) ownLifetime(v types.Object, depth int) (time.Duration, bool) {
	defs := a.defs.vars[v]
	if param, ok := v.(*types.Var); ok && param.Kind() == types.ParamVar && len(defs) == 0 && depth <= 4 {
		return a.closureParamLifetime(param, depth)
	}
	if param, ok := v.(*types.Var); len(defs) == 0 || depth > 4 || ok && param.Kind() == types.ParamVar {
		return 0, false // a parameter holds its caller's context until reassigned
	}
	lifetime := forever
	for _, d := range defs {
		call, ok := ast.Unparen(d.rhs).(*ast.CallExpr)
		if !ok {
			return 0, false
		}
		life, ok := a.ownContextCall(call, &d, depth)
		if !ok {
			return 0, false
		}
		lifetime = min(lifetime, life)
	}
	return lifetime, true
}

// closureParamLifetime is ownLifetime for a parameter of a function literal held in a
// local variable (getDocument := func(ctx context.Context, ...) {...}) that is only ever
// called, each call giving it a context of its caller's own making (mongo-driver's search
// index tests, issue 36): the shortest of their lifetimes.
func (a *checker) closureParamLifetime(param *types.Var, depth int) (time.Duration, bool) {
	var lit *ast.FuncLit
	index := -1
	for _, f := range a.pass.Files {
		if f.Pos() > param.Pos() || param.Pos() >= f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			fl, ok := n.(*ast.FuncLit)
			if !ok || lit != nil {
				return lit == nil
			}
			i := 0
			for _, field := range fl.Type.Params.List {
				for _, name := range field.Names {
					if name.Pos() == param.Pos() {
						lit, index = fl, i
					}
					i++
				}
				if len(field.Names) == 0 {
					i++
				}
			}
			return lit == nil
		})
	}
	if lit == nil {
		return 0, false
	}
	var holder types.Object
	for obj, defs := range a.defs.vars {
		for _, d := range defs {
			if ast.Unparen(d.rhs) == lit {
				if holder != nil || len(defs) != 1 {
					return 0, false
				}
				holder = obj
			}
		}
	}
	if holder == nil {
		return 0, false
	}
	calls := map[*ast.Ident]*ast.CallExpr{}
	for _, f := range a.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
					calls[id] = call
				}
			}
			return true
		})
	}
	lifetime, used := forever, false
	for use, obj := range a.pass.TypesInfo.Uses {
		if obj != holder {
			continue
		}
		call := calls[use]
		if call == nil || index >= len(call.Args) {
			return 0, false // passed on or stored: who calls it is unknown
		}
		arg, ok := ast.Unparen(call.Args[index]).(*ast.Ident)
		if !ok {
			return 0, false
		}
		life, own := a.ownLifetime(objOf(a.pass.TypesInfo, arg), depth+1)
		if !own {
			return 0, false
		}
		lifetime, used = min(lifetime, life), true
	}
	return lifetime, used
}

// ownContextCall is ownLifetime for one value assigned, d, a call of the context
// package (a nested call, such as WithTimeout's parent, has no d).
func (a *checker) ownContextCall(call *ast.CallExpr, d *definition, depth int) (time.Duration, bool) {
	info := a.pass.TypesInfo
	id := funcID(callee(info, call))
	switch id {
	case "context.Background", "context.TODO", "context.WithoutCancel",
		"testing.common.Context", "testing.TB.Context": // a test's, canceled once it has returned
		return forever, true
	case "context.WithCancel", "context.WithTimeout":
	default: // WithDeadline's deadline may pass during the waits
		return 0, false
	}
	if d == nil || d.index != 0 || len(call.Args) == 0 || !a.cancelOnlyDeferred(d.rhs) {
		return 0, false
	}
	var parent time.Duration
	var ok bool
	switch p := ast.Unparen(call.Args[0]).(type) {
	case *ast.CallExpr:
		parent, ok = a.ownContextCall(p, nil, depth+1)
	case *ast.Ident:
		parent, ok = a.ownLifetime(objOf(info, p), depth+1)
	}
	if !ok {
		return 0, false
	}
	if id != "context.WithTimeout" {
		return parent, true
	}
	if t, ok := constInt(info, call.Args[1]); ok {
		return min(parent, time.Duration(t)), true
	}
	return 0, false
}

// cancelOnlyDeferred reports whether the cancel function that a context call returns
// (call, the right side of ctx, cancel := ...) is only ever called in a defer statement:
// then nothing cancels the context before its function returns.
func (a *checker) cancelOnlyDeferred(call ast.Expr) bool {
	var cancel types.Object
	for obj, defs := range a.defs.vars {
		for _, d := range defs {
			if d.rhs == call && d.index == 1 {
				cancel = obj
			}
		}
	}
	if cancel == nil {
		return false // dropped with _, or passed on: vet's lostcancel reports the first
	}
	deferred := map[*ast.Ident]bool{}
	for _, f := range a.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if d, ok := n.(*ast.DeferStmt); ok {
				if id, ok := ast.Unparen(d.Call.Fun).(*ast.Ident); ok {
					deferred[id] = true
				}
			}
			return true
		})
	}
	for use, obj := range a.pass.TypesInfo.Uses {
		if obj == cancel && !deferred[use] {
			return false
		}
	}
	return true
}

// withoutContext reports whether a request variable is only ever made by http.NewRequest
// (whose context is Background) and never given another (req.WithContext).
func (a *checker) withoutContext(v *types.Var) bool {
	defs := a.defs.vars[v]
	if len(defs) == 0 {
		return false
	}
	for _, d := range defs {
		call, ok := ast.Unparen(d.rhs).(*ast.CallExpr)
		if !ok || funcID(callee(a.pass.TypesInfo, call)) != "net/http.NewRequest" {
			return false
		}
	}
	return true
}

// uncancelable reports whether a context variable is only ever assigned
// context.Background() or context.TODO().
func (a *checker) uncancelable(v *types.Var) bool {
	defs := a.defs.vars[v]
	if len(defs) == 0 {
		return false
	}
	for _, d := range defs {
		call, ok := ast.Unparen(d.rhs).(*ast.CallExpr)
		if !ok {
			return false
		}
		if id := funcID(callee(a.pass.TypesInfo, call)); id != "context.Background" && id != "context.TODO" {
			return false
		}
	}
	return true
}

// sleepFix replaces the wait with a timer and a select on ctx.Done() that returns
// ctx.Err() (with zero values for the other results). It is offered when the function's
// last result is an error, or it has none.
func (a *checker) sleepFix(w wait, ctx string, l *retryLoop) (analysis.SuggestedFix, bool) {
	var ft *ast.FuncType // the innermost function around the wait: the loop's, or a literal called in it
	var inner *ast.BlockStmt
	for body, t := range a.loops.funcs {
		if body.Pos() <= w.stmt.Pos() && w.stmt.End() <= body.End() && (inner == nil || body.Pos() > inner.Pos()) {
			inner, ft = body, t
		}
	}
	if ft == nil {
		return analysis.SuggestedFix{}, false
	}
	ret, ok := a.returnCanceled(ft, ctx)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	timer := freeName(a.pass, w.stmt.Pos(), "timer")
	var buf bytes.Buffer
	if err := format.Node(&buf, a.pass.Fset, w.call.Args[0]); err != nil {
		return analysis.SuggestedFix{}, false
	}
	indent := a.indentOf(w.stmt.Pos())
	text := strings.Join([]string{
		fmt.Sprintf("%s := time.NewTimer(%s)", timer, buf.String()),
		"select {",
		fmt.Sprintf("case <-%s.Done():", ctx),
		fmt.Sprintf("\t%s.Stop()", timer),
		"\t" + ret,
		fmt.Sprintf("case <-%s.C:", timer),
		"}",
	}, "\n"+indent)
	return analysis.SuggestedFix{
		Message:   fmt.Sprintf("wait on a timer and %s.Done()", ctx),
		TextEdits: []analysis.TextEdit{{Pos: w.stmt.Pos(), End: w.stmt.End(), NewText: []byte(text)}},
	}, true
}

// returnCanceled writes the return statement that ends the function with ctx's error.
func (a *checker) returnCanceled(ft *ast.FuncType, ctx string) (string, bool) {
	if ft.Results == nil || ft.Results.NumFields() == 0 {
		return "return", true
	}
	var types_ []types.Type
	for _, f := range ft.Results.List {
		t := a.pass.TypesInfo.TypeOf(f.Type)
		for range max(len(f.Names), 1) {
			types_ = append(types_, t)
		}
	}
	if !isError(types_[len(types_)-1]) {
		return "", false
	}
	var parts []string
	for _, t := range types_[:len(types_)-1] {
		z, ok := zeroValue(a.pass.Pkg, t)
		if !ok {
			return "", false
		}
		parts = append(parts, z)
	}
	parts = append(parts, ctx+".Err()")
	return "return " + strings.Join(parts, ", "), true
}

// zeroValue writes the zero value of t as an expression.
func zeroValue(pkg *types.Package, t types.Type) (string, bool) {
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return "false", true
		case u.Info()&types.IsString != 0:
			return `""`, true
		case u.Info()&types.IsNumeric != 0:
			return "0", true
		case u.Kind() == types.UnsafePointer:
			return "nil", true
		}
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		if _, param := types.Unalias(t).(*types.TypeParam); param {
			return "*new(" + types.TypeString(t, types.RelativeTo(pkg)) + ")", true
		}
		return "nil", true
	case *types.Struct, *types.Array:
		return types.TypeString(t, types.RelativeTo(pkg)) + "{}", true
	}
	return "", false
}

// freeName returns name, or name with a number, that no declaration in scope at pos uses.
func freeName(pass *analysis.Pass, pos token.Pos, name string) string {
	scope := pass.Pkg.Scope().Innermost(pos)
	for i := 1; ; i++ {
		candidate := name
		if i > 1 {
			candidate = fmt.Sprintf("%s%d", name, i)
		}
		if scope == nil {
			return candidate
		}
		if _, obj := scope.LookupParent(candidate, token.NoPos); obj == nil {
			return candidate
		}
	}
}

// indentOf returns the white space that starts the line of pos.
func (a *checker) indentOf(pos token.Pos) string {
	f := a.pass.Fset.File(pos)
	if f == nil {
		return ""
	}
	src, err := a.pass.ReadFile(f.Name())
	if err != nil {
		return ""
	}
	start := f.Offset(f.LineStart(f.Line(pos)))
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// detached reports whether a loop runs in a function that only go statements start: an
// unexported function or method of the package called only as go f(...), or a function
// literal a go statement calls. Nobody waits for it to end.
func (a *checker) detached(l *retryLoop) bool {
	info := a.pass.TypesInfo
	var fn types.Object
	if fd := a.declWithBody(l.funcBody); fd != nil {
		fn = info.Defs[fd.Name]
	}
	goCalls := map[*ast.Ident]bool{}
	literal := false
	for _, f := range a.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if n, ok := n.(*ast.GoStmt); ok {
				switch fun := ast.Unparen(n.Call.Fun).(type) {
				case *ast.Ident:
					goCalls[fun] = true
				case *ast.SelectorExpr:
					goCalls[fun.Sel] = true
				case *ast.FuncLit:
					literal = literal || fun.Body == l.funcBody
				}
			}
			return true
		})
	}
	if literal {
		return true
	}
	if fn == nil || fn.Exported() {
		return false
	}
	started := false
	for use, obj := range info.Uses {
		if obj == fn {
			if !goCalls[use] {
				return false // called, or passed on, elsewhere
			}
			started = true
		}
	}
	return started
}

// checksContextFirst reports whether a loop's body begins by leaving when a context is
// done (select { case <-ctx.Done(): return; default: }, or if ctx.Err() != nil { return }):
// once canceled, it starts no other attempt.
func checksContextFirst(info *types.Info, l *retryLoop) bool {
	if len(l.body.List) == 0 {
		return false
	}
	done := func(e ast.Expr) bool { // ctx.Done() or ctx.Err()
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		return ok && (sel.Sel.Name == "Done" || sel.Sel.Name == "Err") && isContext(info.TypeOf(sel.X))
	}
	switch first := l.body.List[0].(type) {
	case *ast.SelectStmt:
		hasDefault, leavesOnDone := false, false
		for _, c := range first.Body.List {
			cc := c.(*ast.CommClause)
			if cc.Comm == nil {
				hasDefault = true
				continue
			}
			var recv ast.Expr
			switch comm := cc.Comm.(type) {
			case *ast.ExprStmt:
				recv = comm.X
			case *ast.AssignStmt:
				if len(comm.Rhs) == 1 {
					recv = comm.Rhs[0]
				}
			}
			if u, ok := ast.Unparen(recv).(*ast.UnaryExpr); ok && u.Op == token.ARROW && done(u.X) && len(cc.Body) > 0 {
				if _, ok := cc.Body[len(cc.Body)-1].(*ast.ReturnStmt); ok { // a break would leave the select only
					leavesOnDone = true
				}
			}
		}
		return hasDefault && leavesOnDone
	case *ast.IfStmt:
		b, ok := ast.Unparen(first.Cond).(*ast.BinaryExpr)
		return ok && first.Init == nil && b.Op == token.NEQ && done(b.X) && endsInExit(first.Body)
	}
	return false
}
