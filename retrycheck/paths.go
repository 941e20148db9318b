package retrycheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/cfg"
)

// The path walker follows the control flow from an attempt to the next attempt: to the
// head of a hand-written loop, or to a return of an attempt function that makes the
// library try again. Along the way it assumes what the attempt answered (its error nil or
// not, and its HTTP status, one of a few representative codes) and prunes the branches
// those answers rule out.

// statusCodes are the representative HTTP statuses a path is followed for.
var statusCodes = []int{200, 400, 403, 404, 422, 401, 409, 408, 429, 503, 500, 502, 504}

// Sets of statusCodes, as bit masks over its indexes.
const (
	allCodes codeSet = 1<<13 - 1
	// 400, 403, 404, 422: a retry gets the same answer. 401 (retried after refreshing a
	// token) and 409 (a lock or a version conflict, retried by design in some APIs) are
	// not counted.
	permanentCodes codeSet = 0b1111 << 1
	declinedCodes  codeSet = 0b111 << 7  // 408, 429, 503: the server did not act on the request
	appliedCodes   codeSet = 0b111 << 10 // 500, 502, 504: the request may have been applied
)

// codeSet is a set of statusCodes.
type codeSet uint16

// codes lists the statuses of s.
func (s codeSet) codes() []int {
	var out []int
	for i, c := range statusCodes {
		if s&(1<<i) != 0 {
			out = append(out, c)
		}
	}
	return out
}

// tri is a three-valued truth.
type tri int8

const (
	unknown tri = iota
	yes
	no
)

func (t tri) not() tri {
	switch t {
	case yes:
		return no
	case no:
		return yes
	}
	return unknown
}

// attemptPaths describes the walk from one attempt.
type attemptPaths struct {
	a     *checker
	loop  *retryLoop
	graph *cfg.CFG
	// call is the attempt; errVar and respVar what it returned.
	call            *ast.CallExpr
	errVar, respVar types.Object
	// errNil is the assumption: the attempt returned no error (and so a response).
	errNil bool
	// stop, when set, ends a path at a node (the response was closed, say).
	stop func(n ast.Node) bool
	// deferStops says whether a defer statement for which stop is true ends the path; in
	// a hand-written loop a deferred call runs only when the function returns.
	deferStops bool
	// tags maps each case expression of a switch with a tag to the tag.
	tags map[ast.Expr]ast.Expr
}

// retryPath is one path that reaches the next attempt.
type retryPath struct {
	// codes are the statuses for which the path can be taken; decided those for which a
	// condition on the status said where to go, undecided those for which a condition on
	// the response could not be read (shouldRetry(resp.StatusCode)): it may be the real
	// decision.
	codes, decided, undecided codeSet
	deferred                  bool     // a deferred statement for which stop is true was passed
	at                        ast.Node // the return or continue that goes round, or the last node passed
	// decider is the last condition on the path that read the status (an if's condition,
	// a case of a switch on it): the line that decides to go round when the path ends in
	// a wait rather than a continue or a return.
	decider ast.Node
}

// decision returns where a path decides to go round: its continue or return, else the
// last condition on the status it passed, else the last node.
func (p retryPath) decision() ast.Node {
	switch p.at.(type) {
	case *ast.BranchStmt, *ast.ReturnStmt:
		return p.at
	}
	if p.decider != nil {
		return p.decider
	}
	return p.at
}

// retried returns the statuses of want that the path sends round on a condition that
// read the status, and on none it could not read.
func (p retryPath) retried(want codeSet) codeSet {
	return p.codes & p.decided &^ p.undecided & want
}

// walk returns the paths that reach the next attempt.
func (p *attemptPaths) walk() []retryPath {
	start, index := p.find()
	if start == nil {
		return nil
	}
	p.tags = map[ast.Expr]ast.Expr{}
	ast.Inspect(p.loop.funcOrBody(), func(n ast.Node) bool {
		if sw, ok := n.(*ast.SwitchStmt); ok && sw.Tag != nil {
			for _, c := range sw.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					p.tags[e] = sw.Tag
				}
			}
		}
		return true
	})
	type state struct {
		block                     int32
		codes, decided, undecided codeSet
		defr                      bool
	}
	var out []retryPath
	visited := map[state]bool{}
	var visit func(b *cfg.Block, from int, s retryPath)
	visit = func(b *cfg.Block, from int, s retryPath) {
		key := state{b.Index, s.codes, s.decided, s.undecided, s.deferred}
		if from == 0 {
			if visited[key] {
				return
			}
			visited[key] = true
		}
		if cc, ok := b.Stmt.(*ast.CaseClause); ok && b.Kind == cfg.KindSwitchCaseBody && from == 0 && s.decider != nil &&
			(len(cc.List) == 0 || p.tags[cc.List[0]] != nil) {
			s.decider = cc // the case of a switch on the status whose body goes round
		}
		for _, n := range b.Nodes[from:] {
			if d, ok := n.(*ast.DeferStmt); ok && p.stop != nil && p.stop(d) && !p.deferStops {
				s.deferred = true
				continue
			}
			if p.stop != nil && p.stop(n) {
				return
			}
			if ret, ok := n.(*ast.ReturnStmt); ok {
				if p.loop.hand == nil && p.retries(ret) {
					s.at = ret
					out = append(out, s)
				}
				return
			}
			s.at = n
		}
		succs := b.Succs
		if len(succs) == 2 && len(b.Nodes) > 0 {
			if cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr); ok {
				then, els := p.branch(cond, s)
				if then.codes != 0 {
					p.next(succs[0], then, visit, &out)
				}
				if els.codes != 0 {
					p.next(succs[1], els, visit, &out)
				}
				return
			}
		}
		for _, succ := range succs {
			p.next(succ, s, visit, &out)
		}
	}
	visit(start, index+1, retryPath{codes: p.initialCodes()})
	return out
}

// initialCodes: with a response, every status; without one, a single stand-in.
func (p *attemptPaths) initialCodes() codeSet {
	if p.errNil && p.respVar != nil {
		return allCodes
	}
	return 1
}

// next follows an edge: the head of the hand-written loop ends the path as a retry.
func (p *attemptPaths) next(b *cfg.Block, s retryPath, visit func(*cfg.Block, int, retryPath), out *[]retryPath) {
	if p.loop.hand != nil && b.Stmt == p.loop.node {
		switch b.Kind {
		case cfg.KindForLoop, cfg.KindForPost, cfg.KindRangeLoop, cfg.KindForBody:
			*out = append(*out, s)
			return
		case cfg.KindForDone, cfg.KindRangeDone:
			return
		}
	}
	visit(b, 0, s)
}

// find returns the block and index of the node holding the attempt call.
func (p *attemptPaths) find() (*cfg.Block, int) {
	for _, b := range p.graph.Blocks {
		if !b.Live {
			continue
		}
		for i, n := range b.Nodes {
			if n.Pos() <= p.call.Pos() && p.call.End() <= n.End() {
				switch n.(type) {
				case *ast.AssignStmt, *ast.ValueSpec, *ast.ExprStmt, *ast.ReturnStmt, ast.Expr:
					return b, i
				}
			}
		}
	}
	return nil, 0
}

// branch splits a path at a condition into its then and else continuations, keeping in
// each only the statuses for which it can be taken (none: the branch is ruled out).
func (p *attemptPaths) branch(cond ast.Expr, s retryPath) (then, els retryPath) {
	then, els = s, s
	then.codes, els.codes = 0, 0
	tested := ast.Expr(cond)
	if tag, ok := p.tags[cond]; ok {
		tested = tag
	}
	withResponse := p.errNil && p.respVar != nil
	status := withResponse && p.a.mentionsStatus(tested, p.respVar)
	response := withResponse && (status || mentionsResponse(p.a.pass.TypesInfo, tested, p.respVar))
	var decided, undecided codeSet
	for i := range statusCodes {
		bit := codeSet(1) << i
		if s.codes&bit == 0 {
			continue
		}
		code := statusCodes[i]
		if !p.errNil || p.respVar == nil {
			code = -1
		}
		var v tri
		if tag, ok := p.tags[cond]; ok {
			v = p.compare(token.EQL, tag, cond, code)
		} else {
			v = p.eval(cond, code)
		}
		if v != no {
			then.codes |= bit
		}
		if v != yes {
			els.codes |= bit
		}
		if response {
			switch read := p.readable(tested, cond, code); {
			case read && status:
				decided |= bit
			case !read:
				undecided |= bit
			}
		}
	}
	if status && decided != 0 {
		then.decider, els.decider = cond, cond
	}
	then.decided, els.decided = s.decided|decided, s.decided|decided
	then.undecided, els.undecided = s.undecided|undecided, s.undecided|undecided
	return then, els
}

// readable reports whether every part of a condition (its operands of &&, || and !)
// that uses the response evaluates for the status code; other parts (a counter, a flag)
// may stay unknown. For a switch case, tested is the tag and cond the case's value.
func (p *attemptPaths) readable(tested, cond ast.Expr, code int) bool {
	info := p.a.pass.TypesInfo
	if tested != cond {
		return p.compare(token.EQL, tested, cond, code) != unknown
	}
	switch e := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return p.readable(e.X, e.X, code)
		}
	case *ast.BinaryExpr:
		if e.Op == token.LAND || e.Op == token.LOR {
			return p.readable(e.X, e.X, code) && p.readable(e.Y, e.Y, code)
		}
	}
	if !p.a.mentionsStatus(cond, p.respVar) && !mentionsResponse(info, cond, p.respVar) {
		return true // not about the response
	}
	return p.eval(cond, code) != unknown
}

// mentionsResponse reports whether e uses resp other than in a nil test.
func mentionsResponse(info *types.Info, e ast.Expr, resp types.Object) bool {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && (b.Op == token.EQL || b.Op == token.NEQ) &&
		(isNil(info, b.X) || isNil(info, b.Y)) {
		return false
	}
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && (b.Op == token.LAND || b.Op == token.LOR) {
		return mentionsResponse(info, b.X, resp) || mentionsResponse(info, b.Y, resp)
	}
	return mentionsAny(info, e, []types.Object{resp})
}

// eval evaluates a condition for the status code (-1: no response), under the path's
// assumption about the error.
func (p *attemptPaths) eval(e ast.Expr, code int) tri {
	info := p.a.pass.TypesInfo
	switch e := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return p.eval(e.X, code).not()
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			x := p.eval(e.X, code)
			if x == no {
				return no
			}
			y := p.eval(e.Y, code)
			switch {
			case y == no:
				return no
			case x == yes && y == yes:
				return yes
			}
			return unknown
		case token.LOR:
			x := p.eval(e.X, code)
			if x == yes {
				return yes
			}
			y := p.eval(e.Y, code)
			switch {
			case y == yes:
				return yes
			case x == no && y == no:
				return no
			}
			return unknown
		}
		if isComparison(e.Op) {
			return p.compare(e.Op, e.X, e.Y, code)
		}
	case *ast.CallExpr:
		if funcID(callee(info, e)) == "errors.Is" && len(e.Args) == 2 && p.errVar != nil && objOf(info, e.Args[0]) == p.errVar && p.errNil {
			return no
		}
	case *ast.Ident:
		switch objOf(info, e) {
		case types.Universe.Lookup("true"):
			return yes
		case types.Universe.Lookup("false"):
			return no
		}
	}
	return unknown
}

// compare evaluates x op y for the status code.
func (p *attemptPaths) compare(op token.Token, x, y ast.Expr, code int) tri {
	info := p.a.pass.TypesInfo
	nilTest := func(v types.Object, isNilNow bool) tri {
		switch {
		case op == token.EQL && isNilNow, op == token.NEQ && !isNilNow:
			return yes
		case op == token.EQL || op == token.NEQ:
			return no
		}
		return unknown
	}
	for _, pair := range [2][2]ast.Expr{{x, y}, {y, x}} {
		a, b := pair[0], pair[1]
		if isNil(info, b) {
			switch o := objOf(info, a); {
			case o == nil:
			case o == p.errVar:
				return nilTest(o, p.errNil)
			case o == p.respVar:
				return nilTest(o, !p.errNil)
			}
		}
	}
	if code < 0 || p.respVar == nil {
		return unknown
	}
	value := func(e ast.Expr) (int64, bool) {
		if p.a.isStatus(e, p.respVar) {
			if !isInt(info.TypeOf(e)) {
				return 0, false // http.Response's Status is a string
			}
			return int64(code), true
		}
		if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.QUO && p.a.isStatus(b.X, p.respVar) {
			if d, ok := constInt(info, b.Y); ok && d != 0 {
				return int64(code) / d, true
			}
		}
		return constInt(info, e)
	}
	if !p.a.mentionsStatus(x, p.respVar) && !p.a.mentionsStatus(y, p.respVar) {
		return unknown
	}
	xv, ok1 := value(x)
	yv, ok2 := value(y)
	if !ok1 || !ok2 {
		return unknown
	}
	var r bool
	switch op {
	case token.EQL:
		r = xv == yv
	case token.NEQ:
		r = xv != yv
	case token.LSS:
		r = xv < yv
	case token.LEQ:
		r = xv <= yv
	case token.GTR:
		r = xv > yv
	case token.GEQ:
		r = xv >= yv
	}
	if r {
		return yes
	}
	return no
}

// retries reports whether a return statement of an attempt function makes the library
// try again: it returns a non-nil error that is not marked permanent (for go-retry: one
// marked retryable).
func (p *attemptPaths) retries(ret *ast.ReturnStmt) bool {
	return p.a.returnRetries(p.loop, ret, p.errVar, p.errNil)
}

// implementsError reports whether t is the error interface or a type that implements it
// (*StatusError).
func implementsError(t types.Type) bool {
	if t == nil {
		return false
	}
	return isError(t) || types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
}

// funcOrBody returns the body the loop's control flow is walked in.
func (l *retryLoop) funcOrBody() *ast.BlockStmt {
	if l.hand != nil {
		return l.funcBody
	}
	return l.body
}

// returnRetries reports whether ret, a return of loop's attempt function, makes the loop
// try again. errVar is the attempt's error, nil on the path when errNil.
func (a *checker) returnRetries(loop *retryLoop, ret *ast.ReturnStmt, errVar types.Object, errNil bool) bool {
	info := a.pass.TypesInfo
	if len(ret.Results) == 0 {
		return false
	}
	last := ast.Unparen(ret.Results[len(ret.Results)-1])
	if len(ret.Results) == 1 && loop.lit != nil && loop.lit.Type.Results != nil && loop.lit.Type.Results.NumFields() > 1 {
		return true // a call returning the results: unknown, count it as a retry
	}
	if lit, ok := last.(*ast.CompositeLit); ok && isNamed(info.TypeOf(lit), ourPath, "Outcome") {
		err, ok := fieldValue(lit, "Err")
		if !ok {
			return false // a status alone: the policy's RetryableStatuses decide (see Cancel)
		}
		last = ast.Unparen(err)
	}
	if !isNil(info, last) && !implementsError(info.TypeOf(last)) {
		return false // not an error
	}
	if isNil(info, last) {
		return false
	}
	if errVar != nil && objOf(info, last) == errVar && errNil {
		return false
	}
	retryable, permanent := false, false
	ast.Inspect(last, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			f := callee(info, call)
			switch funcID(f) {
			case "github.com/sethvargo/go-retry.RetryableError":
				retryable = true
			case "github.com/avast/retry-go.Unrecoverable":
				permanent = true
			}
			if f != nil && strings.Contains(strings.ToLower(f.Name()), "permanent") {
				permanent = true // backoff.Permanent, retry.Permanent, helpers of the same name
			}
		}
		return true
	})
	if loop.api != nil && loop.api.onlyMarked {
		return retryable
	}
	return !permanent
}
