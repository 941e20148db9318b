package retrycheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// A hand-written retry loop is a for statement (or a range over an integer) whose body,
// in this order, makes an attempt (a call whose error or *http.Response it keeps), leaves
// the loop on an answer of that attempt (success), and otherwise waits (time.Sleep,
// <-time.After, a select on a timer, a helper that sleeps) before going round again,
// retrying failed attempts: errors, or HTTP statuses. Loops that only poll (they return on
// every error) and worker loops (they never leave on success) are not retry loops.

// waitKind says how a loop waits between attempts.
type waitKind uint8

const (
	waitSleep    waitKind = iota // time.Sleep(d)
	waitAfter                    // a bare <-time.After(d) or <-timer.C
	waitSelect                   // a select with a timer case
	waitHelper                   // a call of a function that waits
	waitLone                     // a select whose only case is a timer's: a bare wait
	waitStrategy                 // a Rican7/retry strategy that sleeps: wait := strategy.Backoff(...); wait(n)
)

// wait is one wait between attempts.
type wait struct {
	stmt ast.Stmt
	kind waitKind
	// call is time.Sleep's or time.After's call, or the helper's.
	call *ast.CallExpr
	// watchesContext is true for a select with a <-ctx.Done() case, or a helper given a
	// context.
	watchesContext bool
}

// handLoop is what the analysis knows of a hand-written retry loop.
type handLoop struct {
	waits []wait
	// attempt is the call whose answer the loop retries on; errVar and respVar its error
	// and *http.Response results, when kept.
	attempt         *ast.CallExpr
	errVar, respVar types.Object
	// bounded: the loop counts its attempts; deadline: it checks the time; watchesContext:
	// it checks a context (ctx.Err(), <-ctx.Done(), a wait that does).
	bounded, deadline, watchesContext bool
}

// loopBody returns the body of a for statement or a range statement over an integer (or
// with no range expression), nil for other statements and for a loop that never runs (for
// i := 10; i <= 0; i--: its condition is false for its first value).
func loopBody(info *types.Info, s ast.Stmt) *ast.BlockStmt {
	switch s := s.(type) {
	case *ast.ForStmt:
		if neverRuns(info, s) {
			return nil
		}
		return s.Body
	case *ast.RangeStmt:
		if t, ok := types.Unalias(info.TypeOf(s.X)).Underlying().(*types.Basic); ok && t.Info()&types.IsInteger != 0 {
			return s.Body
		}
	}
	return nil
}

// neverRuns reports whether a for statement's condition, a comparison of its counter with
// a constant, is false for the constant the counter starts at.
func neverRuns(info *types.Info, s *ast.ForStmt) bool {
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return false
	}
	from, ok := constInt(info, init.Rhs[0])
	cond, ok2 := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	if !ok || !ok2 || objOf(info, cond.X) == nil || objOf(info, cond.X) != objOf(info, init.Lhs[0]) {
		return false
	}
	to, ok := constInt(info, cond.Y)
	if !ok {
		return false
	}
	switch cond.Op {
	case token.LSS:
		return !(from < to)
	case token.LEQ:
		return !(from <= to)
	case token.GTR:
		return !(from > to)
	case token.GEQ:
		return !(from >= to)
	}
	return false
}

// direct calls f for every node of body that runs in the loop's own iteration: it does not
// descend into nested loops (their bodies are loops of their own) nor into function
// literals, but for those called at once (err := func() error { ... }()), whose body runs
// in the iteration.
func direct(body *ast.BlockStmt, f func(n ast.Node, stack []ast.Node) bool) {
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if n != body {
			switch n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				return false
			case *ast.FuncLit:
				if len(stack) == 0 {
					return false
				}
				if call, ok := stack[len(stack)-1].(*ast.CallExpr); !ok || call.Fun != n {
					return false
				}
			}
		}
		if !f(n, stack) {
			return false
		}
		stack = append(stack, n)
		return true
	})
}

// analyzeHandLoop returns the loop's retry shape, or nil when s is not a retry loop.
func (a *loopAnalysis) analyzeHandLoop(s ast.Stmt, label *ast.Ident) *handLoop {
	info := a.pass.TypesInfo
	body := loopBody(info, s)
	if body == nil || len(body.List) == 0 {
		return nil
	}
	h := &handLoop{}
	a.findWaits(body, h)
	if len(h.waits) == 0 {
		return nil
	}
	a.findAttempt(s, body, h)
	if h.attempt == nil {
		return nil
	}
	results := append([]types.Object{h.errVar, h.respVar}, a.derived(body, h)...)
	mentions := func(e ast.Node) bool { return mentionsAny(info, e, results) || a.mentionsStatus(e, h.respVar) }

	// Leaving the loop on the attempt's answer.
	exits := false
	if f, ok := s.(*ast.ForStmt); ok && f.Cond != nil && mentions(f.Cond) {
		exits = true
	}
	var retryBranch bool // an if on the answer that continues or waits
	direct(body, func(n ast.Node, stack []ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			if n.Pos() > h.attempt.Pos() && mentions(n.Cond) && containsRetry(n.Body, s, label, h) {
				retryBranch = true
			}
		case *ast.ReturnStmt, *ast.BranchStmt:
			if !leavesLoop(n, stack, s, label) {
				return true
			}
			if n.Pos() < h.attempt.Pos() || inCommClause(stack) {
				return true // a select case that leaves is the stop path (shutdown, ctx.Done())
			}
			if a.onFailureBranch(n, stack, h) || a.givesUp(n, stack, []types.Object{h.errVar}) {
				return true // leaving on an error is giving up, not succeeding
			}
			for i := len(stack) - 1; i >= 0; i-- {
				switch x := stack[i].(type) {
				case *ast.IfStmt:
					exits = exits || mentions(x.Cond)
				case *ast.CaseClause: // switch { case err == nil: return }, switch resp.StatusCode { case 200: return }
					for _, e := range x.List {
						exits = exits || mentions(e)
					}
					if i > 1 {
						if sw, ok := stack[i-2].(*ast.SwitchStmt); ok && sw.Tag != nil {
							exits = exits || mentions(sw.Tag)
						}
					}
				}
			}
			if len(stack) == 1 { // at the top level of the body, after an if that retries
				exits = exits || retryBranch
			}
		}
		return true
	})
	if !exits {
		return nil
	}
	if !a.retriesFailures(body, h) || a.waitsOnlyAfterSuccess(body, h) {
		return nil
	}
	a.findBounds(s, body, h)
	// An exit under a condition that is not about the attempt (if p.closed() { return })
	// is a stop check.
	direct(body, func(n ast.Node, stack []ast.Node) bool {
		switch n.(type) {
		case *ast.ReturnStmt, *ast.BranchStmt:
			if !leavesLoop(n, stack, s, label) {
				return true
			}
			for i := len(stack) - 1; i >= 0; i-- {
				if ifs, ok := stack[i].(*ast.IfStmt); ok && i+1 < len(stack) && stack[i+1] == ifs.Body && !mentions(ifs.Cond) {
					h.watchesContext = true
				}
			}
		}
		return true
	})
	return h
}

// analyzePollLoop returns the shape of a loop that repeats a call with a wait between and
// leaves on an answer of a call other than a failure (a poll: if status != "running" {
// return }), or of a loop that waits after a failed call before making it again (a worker
// retrying, with only those waits kept), or nil: its waits and what bounds it. Its attempt
// is left unset.
func (a *loopAnalysis) analyzePollLoop(s ast.Stmt, label *ast.Ident) *handLoop {
	info := a.pass.TypesInfo
	body := loopBody(info, s)
	if body == nil || len(body.List) == 0 {
		return nil
	}
	h := &handLoop{}
	a.findWaits(body, h)
	if len(h.waits) == 0 {
		return nil
	}
	if f, ok := s.(*ast.ForStmt); ok && f.Cond != nil {
		a.scanBound(f.Cond, body, h, true)
	}
	if _, ok := s.(*ast.RangeStmt); ok {
		h.bounded = true
	}
	// The answers of the calls the loop makes: their results, and what they were given
	// to fill in (getFileHeader(meta, ...) sets meta.resStatus).
	var answers []types.Object
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if _, isWait := a.waitCall(call); isWait {
			return true
		}
		if f := callee(info, call); f == nil || pureCall(f) || loggingCall(f) {
			return true
		}
		for _, arg := range call.Args {
			if o := objOf(info, arg); o != nil {
				answers = append(answers, o)
			}
		}
		return true
	})
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
			if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok {
				if f := callee(info, call); f == nil || !pureCall(f) {
					for _, l := range as.Lhs {
						if o := objOf(info, l); o != nil {
							answers = append(answers, o)
						}
					}
				}
			}
		}
		return true
	})
	if len(answers) == 0 {
		return nil
	}
	var errs []types.Object // the errors among the answers
	for _, o := range answers {
		if isError(o.Type()) {
			errs = append(errs, o)
		}
	}
	// onFailure reports whether the innermost statements of stack run only when a call
	// failed: in the then branch of an if err != nil (alone or first in an &&).
	onFailure := func(stack []ast.Node, n ast.Node) bool {
		for i, x := range stack {
			ifs, ok := x.(*ast.IfStmt)
			if !ok || !(i+1 < len(stack) && stack[i+1] == ifs.Body || i+1 == len(stack) && n == ifs.Body) {
				continue
			}
			cond := ast.Unparen(ifs.Cond)
			for {
				b, ok := cond.(*ast.BinaryExpr)
				if !ok || b.Op != token.LAND {
					break
				}
				cond = ast.Unparen(b.X)
			}
			for _, e := range errs {
				if isNilTest(info, cond, e, token.NEQ) {
					return true
				}
			}
		}
		return false
	}
	exits := false
	if f, ok := s.(*ast.ForStmt); ok && f.Cond != nil && mentionsAny(info, f.Cond, answers) {
		exits = true // for job.Status == "running" { ... }
	}
	var retryWaits []wait // waits on the failure branch of a call: a retry of it
	direct(body, func(n ast.Node, stack []ast.Node) bool {
		for _, w := range h.waits {
			if w.stmt == n && onFailure(stack, n) {
				retryWaits = append(retryWaits, w)
			}
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			a.scanCall(n, h)
		case *ast.ReturnStmt, *ast.BranchStmt:
			if !leavesLoop(n, stack, s, label) || inCommClause(stack) || onFailure(stack, n) || a.givesUp(n, stack, errs) {
				return true // a stop, or giving up on a failure
			}
			for i := len(stack) - 1; i >= 0; i-- { // leaving on an answer: if done { break }
				switch x := stack[i].(type) {
				case *ast.IfStmt:
					exits = exits || mentionsAny(info, x.Cond, answers)
				case *ast.CaseClause:
					for _, e := range x.List {
						exits = exits || mentionsAny(info, e, answers)
					}
					if i > 1 {
						if sw, ok := stack[i-2].(*ast.SwitchStmt); ok && sw.Tag != nil {
							exits = exits || mentionsAny(info, sw.Tag, answers)
						}
					}
				}
			}
		case *ast.SelectStmt:
			for _, c := range n.Body.List {
				if ch := recvChan(c.(*ast.CommClause).Comm); ch != nil && (isDoneChan(info, ch) || a.isStopChan(ch, body) && leaves(c.(*ast.CommClause).Body)) {
					h.watchesContext = true
				}
			}
		}
		return true
	})
	for _, w := range h.waits {
		h.watchesContext = h.watchesContext || w.watchesContext
	}
	switch {
	case exits:
	case len(retryWaits) > 0: // a worker that retries a failed call after a wait
		h.waits = retryWaits
	default:
		return nil // a worker, or a loop pacing its calls
	}
	return h
}

// onFailureBranch reports whether n runs only when the attempt failed: in the then branch
// of an if err != nil (alone or first in an &&).
func (a *loopAnalysis) onFailureBranch(n ast.Node, stack []ast.Node, h *handLoop) bool {
	if h.errVar == nil {
		return false
	}
	for i, s := range stack {
		var cond ast.Expr
		switch x := s.(type) {
		case *ast.IfStmt:
			if i+1 >= len(stack) && n != x.Body || i+1 < len(stack) && stack[i+1] != x.Body {
				continue
			}
			cond = ast.Unparen(x.Cond)
		case *ast.CaseClause: // switch { case err != nil: ... }
			if i < 2 {
				continue
			}
			sw, ok := stack[i-2].(*ast.SwitchStmt)
			if !ok {
				continue
			}
			if sw.Tag != nil && x.List != nil && a.isErrorCode(sw.Tag, h.errVar) && !listsOK(x.List) {
				return true // switch status.Code(err) { case codes.Unavailable: ... }
			}
			if len(x.List) != 1 || sw.Tag != nil {
				continue
			}
			cond = ast.Unparen(x.List[0])
		default:
			continue
		}
		for {
			b, ok := cond.(*ast.BinaryExpr)
			if !ok || b.Op != token.LAND {
				break
			}
			cond = ast.Unparen(b.X)
		}
		if isNilTest(a.pass.TypesInfo, cond, h.errVar, token.NEQ) {
			return true
		}
	}
	return false
}

// inCommClause reports whether the innermost node of stack is in a select case.
func inCommClause(stack []ast.Node) bool {
	for _, n := range stack {
		if _, ok := n.(*ast.CommClause); ok {
			return true
		}
	}
	return false
}

// leavesLoop reports whether a return or branch statement, reached through stack inside
// the body of loop, leaves loop.
func leavesLoop(n ast.Node, stack []ast.Node, loop ast.Stmt, label *ast.Ident) bool {
	for _, p := range stack {
		if _, ok := p.(*ast.FuncLit); ok {
			return false // it leaves a function literal called in the iteration
		}
	}
	switch n := n.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		switch n.Tok {
		case token.GOTO:
			return true
		case token.BREAK:
			if n.Label != nil {
				return label != nil && n.Label.Name == label.Name
			}
			for _, p := range stack {
				switch p.(type) {
				case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
					return false
				}
			}
			return true
		}
	}
	return false
}

// containsRetry reports whether n holds a continue of loop or one of h's waits.
func containsRetry(n ast.Node, loop ast.Stmt, label *ast.Ident, h *handLoop) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.BranchStmt:
			if x.Tok == token.CONTINUE && (x.Label == nil || label != nil && x.Label.Name == label.Name) {
				found = true
			}
		case ast.Stmt:
			for _, w := range h.waits {
				if w.stmt == x {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// retriesFailures reports whether the loop goes round again after a failed attempt: an
// error that does not leave the loop at once, or an HTTP status it checks.
func (a *loopAnalysis) retriesFailures(body *ast.BlockStmt, h *handLoop) bool {
	info := a.pass.TypesInfo
	if h.respVar != nil {
		statusChecked := false
		direct(body, func(n ast.Node, _ []ast.Node) bool {
			if ifs, ok := n.(*ast.IfStmt); ok && (a.mentionsStatus(ifs.Cond, h.respVar) || mentionsResponse(info, ifs.Cond, h.respVar)) {
				statusChecked = true // the status, or a helper given the response (if !retryable(resp))
			}
			if sw, ok := n.(*ast.SwitchStmt); ok && sw.Tag != nil && a.mentionsStatus(sw.Tag, h.respVar) {
				statusChecked = true
			}
			return true
		})
		if statusChecked {
			return true
		}
	}
	if h.errVar == nil {
		return false
	}
	errorsLeave := false
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || ifs.Cond.Pos() < h.attempt.Pos() {
			return true
		}
		if isNilTest(info, ifs.Cond, h.errVar, token.NEQ) && endsInExit(ifs.Body) && !containsContinue(ifs.Body) {
			errorsLeave = true
		}
		return true
	})
	return !errorsLeave
}

// waitsOnlyAfterSuccess reports whether every wait of the loop is in the then branch of an
// if err == nil: the loop paces successful calls (sends until the stream ends) and does not
// wait to retry a failure.
func (a *loopAnalysis) waitsOnlyAfterSuccess(body *ast.BlockStmt, h *handLoop) bool {
	if h.errVar == nil {
		return false
	}
	info := a.pass.TypesInfo
	for _, w := range h.waits {
		inSuccess := false
		direct(body, func(n ast.Node, _ []ast.Node) bool {
			if ifs, ok := n.(*ast.IfStmt); ok && isNilTest(info, ifs.Cond, h.errVar, token.EQL) &&
				ifs.Body.Pos() <= w.stmt.Pos() && w.stmt.End() <= ifs.Body.End() {
				inSuccess = true
			}
			return !inSuccess
		})
		if !inSuccess {
			return false
		}
	}
	return true
}

// isNilTest reports whether e is exactly `v op nil` (or `nil op v`).
func isNilTest(info *types.Info, e ast.Expr, v types.Object, op token.Token) bool {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != op {
		return false
	}
	return objOf(info, b.X) == v && isNil(info, b.Y) || objOf(info, b.Y) == v && isNil(info, b.X)
}

// givesUp reports whether n is a return that gives up: its last result an error made
// there (errors.New, fmt.Errorf), or an error of the attempt (errs) after an if err == nil that
// leaves in the same block (if err == nil { return errors.New("...") }; return err). A
// loop whose every exit on the answer gives up never leaves on success: it is no retry
// loop but a sequence of calls, some meant to fail (cometbft's e2e runner submits
// evidence so, some of it invalid).
func (a *loopAnalysis) givesUp(n ast.Node, stack []ast.Node, errs []types.Object) bool {
	info := a.pass.TypesInfo
	ret, ok := n.(*ast.ReturnStmt)
	if !ok || len(ret.Results) == 0 {
		return false
	}
	switch last := ast.Unparen(ret.Results[len(ret.Results)-1]).(type) {
	case *ast.CallExpr:
		switch funcID(callee(info, last)) {
		case "errors.New", "fmt.Errorf":
			return true
		}
	case *ast.Ident:
		e := objOf(info, last)
		if e == nil || !slices.Contains(errs, e) || len(stack) == 0 {
			return false
		}
		block, ok := stack[len(stack)-1].(*ast.BlockStmt)
		if !ok {
			return false
		}
		for _, st := range block.List {
			if st == ret {
				break
			}
			if ifs, ok := st.(*ast.IfStmt); ok && ifs.Else == nil && isNilTest(info, ifs.Cond, e, token.EQL) && endsInExit(ifs.Body) {
				return true
			}
		}
	}
	return false
}

// isErrorCode reports whether e is the code of the attempt's error: a call of a function
// named Code given it (grpc's status.Code(err), connect's CodeOf(err)).
func (a *loopAnalysis) isErrorCode(e ast.Expr, errVar types.Object) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || objOf(a.pass.TypesInfo, call.Args[0]) != errVar {
		return false
	}
	name := calleeName(call)
	return name == "Code" || name == "CodeOf"
}

// listsOK reports whether a case lists a code named OK (codes.OK), the code of no error.
func listsOK(list []ast.Expr) bool {
	for _, e := range list {
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			if e.Name == "OK" {
				return true
			}
		case *ast.SelectorExpr:
			if e.Sel.Name == "OK" {
				return true
			}
		}
	}
	return false
}

// endsInExit reports whether a block's last statement leaves the function or the loop
// (return, break, goto, panic, a Fatal call).
func endsInExit(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch last := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return last.Tok == token.BREAK || last.Tok == token.GOTO
	case *ast.ExprStmt:
		if call, ok := last.X.(*ast.CallExpr); ok {
			name := calleeName(call)
			return name == "panic" || strings.HasPrefix(name, "Fatal") || name == "Exit"
		}
	}
	return false
}

// calleeName returns the name a call's function is written with (f, pkg.F, x.M).
func calleeName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr:
		if sel, ok := f.X.(*ast.SelectorExpr); ok {
			return sel.Sel.Name
		}
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// containsContinue reports whether b holds a continue statement outside nested loops.
func containsContinue(b *ast.BlockStmt) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.BranchStmt:
			found = found || n.Tok == token.CONTINUE
		}
		return !found
	})
	return found
}

// mentionsAny reports whether n refers to any of the objects (nil ones ignored).
func mentionsAny(info *types.Info, n ast.Node, objs []types.Object) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			if o := info.Uses[id]; o != nil {
				for _, want := range objs {
					if want != nil && o == want {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// mentionsStatus reports whether n reads the status of resp (resp.StatusCode, resp.Status)
// or of a variable assigned from it.
func (a *base) mentionsStatus(n ast.Node, resp types.Object) bool {
	if resp == nil {
		return false
	}
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if e, ok := x.(ast.Expr); ok && a.isStatus(e, resp) {
			found = true
		}
		return !found
	})
	return found
}

// isStatus reports whether e is resp.StatusCode (or resp.Status), or a variable assigned
// only from it.
func (a *base) isStatus(e ast.Expr, resp types.Object) bool {
	info := a.pass.TypesInfo
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return (e.Sel.Name == "StatusCode" || e.Sel.Name == "Status") && objOf(info, e.X) == resp
	case *ast.Ident:
		if o := objOf(info, e); o == resp && isInt(o.Type()) {
			return true // a status parameter
		}
		if def, ok := a.defs.only(info, e); ok {
			if sel, ok := ast.Unparen(def.rhs).(*ast.SelectorExpr); ok && def.index == 0 {
				return sel.Sel.Name == "StatusCode" && objOf(info, sel.X) == resp
			}
		}
	}
	return false
}

// findWaits records the waits of the loop's own iteration.
func (a *loopAnalysis) findWaits(body *ast.BlockStmt, h *handLoop) {
	direct(body, func(n ast.Node, stack []ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectStmt:
			timer, ctx := false, false
			var after *ast.CallExpr
			for _, c := range n.Body.List {
				cc := c.(*ast.CommClause)
				if ch := recvChan(cc.Comm); ch != nil {
					switch {
					case a.isTimerChan(ch, body):
						timer = true
						after, _ = ast.Unparen(ch).(*ast.CallExpr)
					case a.isStopChan(ch, body):
						ctx = true
					}
				}
			}
			switch {
			case timer && len(n.Body.List) == 1: // select { case <-time.After(d): }
				h.waits = append(h.waits, wait{stmt: n, kind: waitLone, call: after})
			case timer:
				h.waits = append(h.waits, wait{stmt: n, kind: waitSelect, watchesContext: ctx})
			}
			return false
		case *ast.ExprStmt:
			if call, ok := ast.Unparen(n.X).(*ast.CallExpr); ok {
				if w, ok := a.waitCall(call); ok {
					w.stmt = n
					h.waits = append(h.waits, w)
				}
				return true
			}
			if ch := recvChan(n); ch != nil && a.isTimerChan(ch, body) {
				call, _ := ast.Unparen(ch).(*ast.CallExpr)
				h.waits = append(h.waits, wait{stmt: n, kind: waitAfter, call: call})
			}
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					if w, ok := a.waitCall(call); ok && w.kind == waitHelper {
						w.stmt = n
						h.waits = append(h.waits, w)
					}
				}
			}
		case *ast.IfStmt:
			if as, ok := n.Init.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
				if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok {
					if w, ok := a.waitCall(call); ok && w.kind == waitHelper {
						w.stmt = n
						h.waits = append(h.waits, w)
					}
				}
			}
		}
		return true
	})
}

// waitCall reports whether call waits: time.Sleep, or a function that sleeps (a fact, or a
// name with "sleep" given a duration or a context).
func (a *loopAnalysis) waitCall(call *ast.CallExpr) (wait, bool) {
	info := a.pass.TypesInfo
	f := callee(info, call)
	if funcID(f) == "time.Sleep" {
		return wait{kind: waitSleep, call: call}, true
	}
	if sleepingStrategy(info, a.defs, call) {
		return wait{kind: waitStrategy, call: call}, true
	}
	ctx := false
	for _, arg := range call.Args {
		if isContext(info.TypeOf(arg)) {
			ctx = true
		}
	}
	if f != nil {
		var fact waitsFact
		if a.pass.ImportObjectFact(f, &fact) || a.waiters[f] != nil {
			if a.waiters[f] != nil {
				fact = *a.waiters[f]
			}
			return wait{kind: waitHelper, call: call, watchesContext: ctx || fact.WatchesContext}, true
		}
	}
	if strings.Contains(strings.ToLower(calleeName(call)), "sleep") {
		for _, arg := range call.Args {
			if isNamed(info.TypeOf(arg), "time", "Duration") || isContext(info.TypeOf(arg)) {
				return wait{kind: waitHelper, call: call, watchesContext: ctx}, true
			}
		}
	}
	return wait{}, false
}

// sleepingStrategy reports whether call runs a strategy of github.com/Rican7/retry that
// sleeps with time.Sleep (Backoff, BackoffWithJitter, Wait, Delay), kept in a variable:
// wait := strategy.Backoff(backoff.Linear(d)); wait(attempt).
func sleepingStrategy(info *types.Info, defs definitions, call *ast.CallExpr) bool {
	def, ok := defs.only(info, call.Fun)
	if !ok || def.index != 0 {
		return false
	}
	c, ok := ast.Unparen(def.rhs).(*ast.CallExpr)
	if !ok {
		return false
	}
	f := callee(info, c)
	if f == nil || f.Pkg() == nil || f.Pkg().Path() != "github.com/Rican7/retry/strategy" {
		return false
	}
	switch f.Name() {
	case "Backoff", "BackoffWithJitter", "Wait", "Delay":
		return true
	}
	return false
}

// recvChan returns ch of a statement `<-ch`, `v := <-ch` or `v, ok = <-ch`, or nil.
func recvChan(s ast.Stmt) ast.Expr {
	var e ast.Expr
	switch s := s.(type) {
	case *ast.ExprStmt:
		e = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			e = s.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// isTimerChan reports whether ch is a timer's channel made for this iteration: a call
// returning <-chan time.Time (time.After, clock.After), or timer.C / ticker.C of a timer
// started in the loop. A timer channel made before the loop is a deadline, not a wait.
func (a *loopAnalysis) isTimerChan(ch ast.Expr, body *ast.BlockStmt) bool {
	info := a.pass.TypesInfo
	c, ok := types.Unalias(info.TypeOf(ch)).Underlying().(*types.Chan)
	if !ok || !isNamed(c.Elem(), "time", "Time") {
		return false
	}
	switch ch := ast.Unparen(ch).(type) {
	case *ast.CallExpr:
		return true
	case *ast.SelectorExpr:
		if o := objOf(info, ch.X); o != nil && o.Pos() < body.Pos() {
			// a timer made before the loop, Reset in it, is a wait too
			return a.resetIn(o, body)
		}
		return true
	case *ast.Ident:
		o := objOf(info, ch)
		return o != nil && o.Pos() > body.Pos()
	}
	return false
}

// resetIn reports whether the timer o is Reset inside body.
func (a *loopAnalysis) resetIn(o types.Object, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Reset" && objOf(a.pass.TypesInfo, sel.X) == o {
				found = true
			}
		}
		return !found
	})
	return found
}

// isDoneChan reports whether ch is ctx.Done() of a context, or a request's
// req.Context().Done().
func isDoneChan(info *types.Info, ch ast.Expr) bool {
	call, ok := ast.Unparen(ch).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Done" && isContext(info.TypeOf(sel.X))
}

// isStopChan reports whether ch is a channel a select waits on to stop: ctx.Done(), a
// variable holding one, or any other channel that is not a timer's (shutdownCh, quit).
func (a *loopAnalysis) isStopChan(ch ast.Expr, body *ast.BlockStmt) bool {
	info := a.pass.TypesInfo
	if isDoneChan(info, ch) {
		return true
	}
	if _, ok := types.Unalias(info.TypeOf(ch)).Underlying().(*types.Chan); !ok {
		return false
	}
	return !a.isTimerChan(ch, body) && !isTimeChan(info, ch)
}

// findAttempt picks the call the loop retries on: of the calls that keep an error or a
// response, the last one whose result a condition of the loop tests, preferring a request
// sent over HTTP. (The wait may come before it: if attempt > 0 { sleep }.)
func (a *loopAnalysis) findAttempt(s ast.Stmt, body *ast.BlockStmt, h *handLoop) {
	info := a.pass.TypesInfo
	type candidate struct {
		call          *ast.CallExpr
		err, resp     types.Object
		tested, sends bool
	}
	var cands []candidate
	consider := func(lhs []ast.Expr, call *ast.CallExpr) {
		f := callee(info, call)
		if f != nil && (pureCall(f) || requestBuilder(f)) {
			return
		}
		if _, isWait := a.waitCall(call); isWait {
			return
		}
		c := candidate{call: call, sends: isSend(info, call) != nil}
		for _, l := range lhs {
			o := objOf(info, l)
			if o == nil {
				continue
			}
			switch {
			case isError(o.Type()):
				c.err = o
			case isResponse(o.Type()):
				c.resp = o
			}
		}
		if c.err != nil || c.resp != nil {
			cands = append(cands, c)
		}
	}
	var conds []ast.Node
	if f, ok := s.(*ast.ForStmt); ok && f.Cond != nil {
		conds = append(conds, f.Cond) // for shouldRetry(resp, err) && ctx.Err() == nil
	}
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					consider(n.Lhs, call)
				}
			}
		case *ast.ValueSpec:
			if len(n.Values) == 1 {
				if call, ok := ast.Unparen(n.Values[0]).(*ast.CallExpr); ok {
					lhs := make([]ast.Expr, len(n.Names))
					for i, id := range n.Names {
						lhs[i] = id
					}
					consider(lhs, call)
				}
			}
		case *ast.IfStmt:
			conds = append(conds, n.Cond)
			if n.Init != nil {
				conds = append(conds, n.Init) // if wait, ok := throttled(resp, err); ok
			}
		case *ast.SwitchStmt:
			if n.Tag != nil {
				conds = append(conds, n.Tag)
			}
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					conds = append(conds, e)
				}
			}
		}
		return true
	})
	for i := range cands {
		for _, c := range conds {
			if mentionsAny(info, c, []types.Object{cands[i].err, cands[i].resp}) {
				cands[i].tested = true
			}
		}
	}
	var best *candidate
	for i := range cands {
		c := &cands[i]
		if !c.tested {
			continue
		}
		if best == nil || c.sends || !best.sends {
			best = c
		}
	}
	if best != nil {
		h.attempt, h.errVar, h.respVar = best.call, best.err, best.resp
	}
}

// requestBuilder reports whether f only builds a request or parses (http.NewRequest,
// url.Parse, json encoding): never an attempt.
func requestBuilder(f *types.Func) bool {
	switch funcID(f) {
	case "net/http.NewRequest", "net/http.NewRequestWithContext", "net/url.Parse", "net/http.ReadResponse",
		"github.com/hashicorp/go-retryablehttp.NewRequest", "github.com/hashicorp/go-retryablehttp.NewRequestWithContext",
		"github.com/hashicorp/go-retryablehttp.FromRequest":
		return true
	}
	return strings.HasPrefix(funcID(f), "net/url.") || strings.HasPrefix(funcID(f), "net/netip.")
}

// findBounds records what bounds the loop: a counter, a deadline, a context.
func (a *loopAnalysis) findBounds(s ast.Stmt, body *ast.BlockStmt, h *handLoop) {
	info := a.pass.TypesInfo
	switch s := s.(type) {
	case *ast.RangeStmt:
		h.bounded = true
	case *ast.ForStmt:
		if s.Cond != nil {
			a.scanBound(s.Cond, body, h, true)
		}
	}
	for _, w := range h.waits {
		h.watchesContext = h.watchesContext || w.watchesContext
	}
	for _, arg := range h.attempt.Args {
		if o := objOf(info, arg); o != nil && isContext(o.Type()) && (o.Pos() < body.Pos() || o.Pos() >= body.End()) {
			for _, d := range a.defs.vars[o] {
				if c, ok := ast.Unparen(d.rhs).(*ast.CallExpr); ok {
					if id := funcID(callee(info, c)); id == "context.WithTimeout" || id == "context.WithDeadline" {
						h.deadline = true // the attempt fails once the deadline passes
					}
				}
			}
		}
	}
	counters := map[types.Object]bool{}
	if f, ok := s.(*ast.ForStmt); ok {
		if inc, ok := f.Post.(*ast.IncDecStmt); ok {
			if o := counterOf(info, inc.X); o != nil {
				counters[o] = true
			}
		}
	}
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		switch n := n.(type) {
		case *ast.IncDecStmt:
			if o := counterOf(info, n.X); o != nil {
				counters[o] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN {
				if o := counterOf(info, n.Lhs[0]); o != nil {
					counters[o] = true
				}
			}
		}
		return true
	})
	// A counter handed to a call whose answer the loop tests (retry, delay :=
	// t.retry(Attempt{Index: attempt})) bounds it there.
	var counted []types.Object
	for o := range counters {
		counted = append(counted, o)
	}
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok != token.ADD_ASSIGN && as.Tok != token.SUB_ASSIGN {
			for _, r := range as.Rhs {
				if call, isCall := ast.Unparen(r).(*ast.CallExpr); isCall && call != h.attempt && mentionsAny(info, r, counted) {
					for _, l := range as.Lhs {
						if o := objOf(info, l); o != nil {
							counters[o] = true
						}
					}
				}
			}
		}
		return true
	})
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			a.scanBound(n.Cond, body, h, false)
			if positiveContextTest(info, n.Cond) != "" && leaves(n.Body.List) {
				h.watchesContext = true // if errors.Is(err, context.DeadlineExceeded) { break }
			}
			var objs []types.Object
			for o := range counters {
				objs = append(objs, o)
			}
			if mentionsAny(info, n.Cond, objs) {
				h.bounded = true // a counter, or what was computed from one, decides
			}
		case *ast.CaseClause: // switch { case count > max: return err }
			for _, e := range n.List {
				var objs []types.Object
				for o := range counters {
					objs = append(objs, o)
				}
				if mentionsAny(info, e, objs) {
					h.bounded = true
				}
			}
		case *ast.SelectStmt:
			for _, c := range n.Body.List {
				cc := c.(*ast.CommClause)
				if ch := recvChan(cc.Comm); ch != nil {
					if !a.isTimerChan(ch, body) && isTimeChan(info, ch) {
						h.deadline = true // a timeout channel made before the loop
					}
					if isDoneChan(info, ch) || a.isStopChan(ch, body) && leaves(cc.Body) {
						h.watchesContext = true // ctx.Done(), a shutdown channel
					}
				}
			}
		case *ast.CallExpr:
			a.scanCall(n, h)
		}
		return true
	})
}

// leaves reports whether statements hold a return or a break (out of the select, or
// further).
func leaves(list []ast.Stmt) bool {
	found := false
	for _, s := range list {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				found = true
			case *ast.BranchStmt:
				found = found || n.Tok == token.BREAK || n.Tok == token.GOTO
			}
			return !found
		})
	}
	return found
}

// counterOf returns the variable counted by an increment: i in i++, m in m[k]++.
func counterOf(info *types.Info, e ast.Expr) types.Object {
	if ix, ok := ast.Unparen(e).(*ast.IndexExpr); ok {
		e = ix.X
	}
	return objOf(info, e)
}

// isTimeChan reports whether ch is a channel of time.Time.
func isTimeChan(info *types.Info, ch ast.Expr) bool {
	c, ok := types.Unalias(info.TypeOf(ch)).Underlying().(*types.Chan)
	return ok && isNamed(c.Elem(), "time", "Time")
}

// isComparison reports whether op compares.
func isComparison(op token.Token) bool {
	switch op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
		return true
	}
	return false
}

// scanBound records a bound in a loop condition (an ordered comparison counts: i < n) or
// an if condition, and any time or context check in it.
func (a *loopAnalysis) scanBound(cond ast.Expr, body *ast.BlockStmt, h *handLoop, loopCond bool) {
	ast.Inspect(cond, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.BinaryExpr:
			if loopCond {
				switch x.Op {
				case token.LSS, token.LEQ, token.GTR, token.GEQ:
					h.bounded = true
				}
			}
		case *ast.CallExpr:
			a.scanCall(x, h)
		}
		return true
	})
}

// scanCall records a call that checks the time or a context, or bounds the loop through a
// backoff that says stop.
func (a *loopAnalysis) scanCall(call *ast.CallExpr, h *handLoop) {
	info := a.pass.TypesInfo
	f := callee(info, call)
	switch id := funcID(f); id {
	case "time.Since", "time.Until", "time.Time.After", "time.Time.Before", "time.Time.Sub", "time.Time.Compare",
		"context.Context.Deadline":
		h.deadline = true
	case "context.Context.Err", "context.Context.Done", "context.Cause":
		h.watchesContext = true
	default:
		if f != nil && f.Name() == "NextBackOff" {
			h.bounded = true // the backoff says Stop
		}
		if f != nil && f.Name() == "Err" && isContext(recvType(info, call)) {
			h.watchesContext = true
		}
	}
}

// recvType returns the type of a method call's receiver expression, or nil.
func recvType(info *types.Info, call *ast.CallExpr) types.Type {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return info.TypeOf(sel.X)
	}
	return nil
}

// derived returns the variables the loop computes from the attempt's answer after it
// (shouldRetry, checkErr := c.CheckRetry(ctx, resp, err)), so that an exit on them is an
// exit on the answer.
func (a *loopAnalysis) derived(body *ast.BlockStmt, h *handLoop) []types.Object {
	info := a.pass.TypesInfo
	from := []types.Object{h.errVar, h.respVar}
	var out []types.Object
	direct(body, func(n ast.Node, _ []ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() <= h.attempt.Pos() {
			return true
		}
		for _, r := range as.Rhs {
			if mentionsAny(info, r, from) {
				for _, l := range as.Lhs {
					if o := objOf(info, l); o != nil && o != h.errVar && o != h.respVar {
						out = append(out, o)
						from = append(from, o)
					}
				}
			}
		}
		return true
	})
	return out
}
