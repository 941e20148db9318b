package retrycheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"

	"golang.org/x/tools/go/analysis"
)

// loopsAnalyzer finds the retry loops of a package, hand-written and through retry
// libraries, and the calls that retry, for the analyzers that report. It exports two
// facts: which functions retry, and which wait (sleep helpers), so that a retry in
// another package is seen where it is called.
var loopsAnalyzer = &analysis.Analyzer{
	Name:       "retryloops",
	Doc:        "finds retry loops and the calls that retry, for the retrycheck analyzers (reports nothing)",
	URL:        "https://pkg.go.dev/github.com/retrykit/retry/retrycheck",
	Run:        runLoops,
	ResultType: reflect.TypeFor[*loops](),
	FactTypes:  []analysis.Fact{new(retriesFact), new(waitsFact), new(responseFact)},
}

// retriesFact marks a function that retries: it holds a retry loop, calls a retry
// library, sends through a retrying client or calls a function that does.
type retriesFact struct {
	// What names the retry and where it is: "a hand-written retry loop at client.go:40".
	What string
	// Attempts is the retry's total number of attempts: > 0 when constant, 0 when not,
	// -1 when unbounded.
	Attempts int
	// Origins name the retry loops the function reaches ("pkg file.go:40"), at most
	// maxOrigins, so that a loop is not reported as nested in itself through recursion.
	Origins []string
	// Depth is 0 for a function that retries itself, 1 for one that calls such a function;
	// facts go no deeper (maxDepth): further up, a call that may reach a retry somewhere
	// is not the operation being retried.
	Depth int
	// NestedSingle: the retry is a loop of this project that makes one attempt inside
	// another of its loops (Policy.Nested).
	NestedSingle bool
}

// originsOrNil returns f's origins, nil for a nil f.
func (f *retriesFact) originsOrNil() []string {
	if f == nil {
		return nil
	}
	return f.Origins
}

// maxDepth is the deepest retriesFact.
const maxDepth = 1

// maxOrigins bounds the origins a fact keeps.
const maxOrigins = 8

func (*retriesFact) AFact() {}

func (f *retriesFact) String() string { return "retries: " + f.What }

// waitsFact marks a function that waits (a sleep helper), and whether it watches a
// context while it does.
type waitsFact struct {
	WatchesContext bool
}

func (*waitsFact) AFact() {}

func (f *waitsFact) String() string {
	return fmt.Sprintf("waits (watches a context: %v)", f.WatchesContext)
}

// loops is the result of loopsAnalyzer.
type loops struct {
	all []*retryLoop
	// polls are the loops that are not retry loops but repeat a call with a wait between
	// (a poll of a job's result, a wait for a file to appear): only retrysleep reads them.
	polls []*retryLoop
	// retriers are the calls and loops that retry, in source order.
	retriers []*retrier
	defs     definitions
	// funcs maps every function body to its function's type, for CFGs and results.
	funcs map[*ast.BlockStmt]*ast.FuncType
	// enclosing maps every loop and call to the innermost function body around it.
	enclosing map[ast.Node]*ast.BlockStmt
	// facts holds the retriesFacts of this package's functions; importFact reads those of
	// other packages (facts belong to loopsAnalyzer, so the reporting analyzers ask here).
	facts      map[*types.Func]*retriesFact
	importFact func(types.Object, analysis.Fact) bool
	// responses holds what this package's functions do with a response handed to them.
	responses map[*types.Func]*responseFact
}

// retries returns the retriesFact of a function, of this package or another, or nil.
func (l *loops) retries(f *types.Func) *retriesFact {
	if f == nil {
		return nil
	}
	if fact := l.facts[f]; fact != nil {
		return fact
	}
	var fact retriesFact
	if l.importFact(f, &fact) {
		return &fact
	}
	return nil
}

// retryLoop is a loop that retries: hand-written, or a call of a retry library.
type retryLoop struct {
	hand *handLoop    // a hand-written loop's shape, nil for a library call
	api  *retryAPI    // the library call's API, nil for a hand-written loop
	node ast.Node     // *ast.ForStmt, *ast.RangeStmt, or the library's *ast.CallExpr
	lit  *ast.FuncLit // the attempt function, when a literal
	op   *types.Func  // the attempt function, when named
	// body is what one attempt runs: the hand-written loop's body, or the attempt
	// literal's body (nil for a named attempt function).
	body *ast.BlockStmt
	// funcBody is the body of the function the loop runs in; label the loop's label.
	funcBody *ast.BlockStmt
	label    *ast.Ident
	name     string
	attempts int
}

// retrier is a call or loop that retries.
type retrier struct {
	node     ast.Node
	what     string
	attempts int
	loop     *retryLoop // when the retrier is a loop of this package
	origins  []string   // the retry loops it reaches (see retriesFact.Origins)
	depth    int        // 0 for a loop or a library call, 1 + the fact's for a call of a function that retries
	// nestedSingle: a loop of this project (or a retryhttp client) whose policy makes one
	// attempt inside another loop of this project (Nested: retry.NestedSingleAttempt).
	nestedSingle bool
}

// origin names the retry construct at pos, unique across packages.
func (a *loopAnalysis) origin(pos token.Pos) string {
	return a.pass.Pkg.Path() + " " + a.position(pos)
}

// union adds the origins of from to into, keeping at most maxOrigins.
func union(into, from []string) []string {
	for _, o := range from {
		if len(into) < maxOrigins && !slices.Contains(into, o) {
			into = append(into, o)
		}
	}
	return into
}

// loopAnalysis is the state of one run of loopsAnalyzer.
type loopAnalysis struct {
	base
	waiters map[*types.Func]*waitsFact
	result  *loops
}

func runLoops(pass *analysis.Pass) (any, error) {
	a := &loopAnalysis{
		base:    base{pass: pass, defs: collectDefinitions(pass.TypesInfo, pass.Files)},
		waiters: map[*types.Func]*waitsFact{},
	}
	a.result = &loops{defs: a.defs, funcs: map[*ast.BlockStmt]*ast.FuncType{}, enclosing: map[ast.Node]*ast.BlockStmt{},
		importFact: pass.ImportObjectFact}
	a.findWaiters()
	a.result.responses = a.summarizeResponses()
	decls := a.walk()
	a.exportRetries(decls)
	return a.result, nil
}

// position returns "file.go:line" of pos.
func (a *loopAnalysis) position(pos token.Pos) string { return position(a.pass, pos) }

// findWaiters marks small functions that wait (time.Sleep, a timer, a select on one) and
// hold no loop: sleep helpers.
func (a *loopAnalysis) findWaiters() {
	info := a.pass.TypesInfo
	for _, f := range a.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || len(fd.Body.List) > 12 {
				continue
			}
			waits, ctx, loop := false, false, false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.ForStmt, *ast.RangeStmt:
					loop = true
				case *ast.CallExpr:
					if funcID(callee(info, n)) == "time.Sleep" {
						waits = true
					}
					if isDoneChan(info, n) {
						ctx = true
					}
				case *ast.UnaryExpr:
					if n.Op == token.ARROW && isTimeChan(info, n.X) {
						waits = true
					}
				}
				return true
			})
			if waits && !loop {
				fn := info.Defs[fd.Name].(*types.Func)
				fact := &waitsFact{WatchesContext: ctx}
				a.waiters[fn] = fact
				a.pass.ExportObjectFact(fn, fact)
			}
		}
	}
}

// declInfo is what walk learns of one function declaration.
type declInfo struct {
	fn    *types.Func
	own   []*retrier      // retries it runs itself
	calls []*ast.CallExpr // static calls of this package's functions that it runs itself
	// every is every static call of this package's functions in its body, callbacks and
	// go statements included, for the retriers that retrynested reads.
	every []*ast.CallExpr
}

// walk finds every loop and retrying call, and returns what each declaration holds.
func (a *loopAnalysis) walk() []*declInfo {
	info := a.pass.TypesInfo
	var decls []*declInfo
	for _, file := range a.pass.Files {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			di := &declInfo{fn: info.Defs[fd.Name].(*types.Func)}
			decls = append(decls, di)
			a.result.funcs[fd.Body] = fd.Type
			bodies := []*ast.BlockStmt{fd.Body}
			labels := map[ast.Stmt]*ast.Ident{}
			// Code the function does not run itself is left out of its fact: go statements,
			// and function literals other than those called at once (callbacks, handlers,
			// attempt functions, whose loops are reported where they are).
			inGo := 0
			var goEnds []token.Pos
			invoked := map[*ast.FuncLit]bool{}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
						invoked[lit] = true
					}
				}
				return true
			})
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if n == nil {
					return true
				}
				for len(bodies) > 1 && n.Pos() >= bodies[len(bodies)-1].End() {
					bodies = bodies[:len(bodies)-1]
				}
				for len(goEnds) > 0 && n.Pos() >= goEnds[len(goEnds)-1] {
					goEnds = goEnds[:len(goEnds)-1]
					inGo--
				}
				fnBody := bodies[len(bodies)-1]
				switch n := n.(type) {
				case *ast.GoStmt:
					inGo++
					goEnds = append(goEnds, n.End())
				case *ast.FuncLit:
					a.result.funcs[n.Body] = n.Type
					bodies = append(bodies, n.Body)
					if !invoked[n] {
						inGo++
						goEnds = append(goEnds, n.End())
					}
				case *ast.LabeledStmt:
					labels[n.Stmt] = n.Label
				case *ast.ForStmt, *ast.RangeStmt:
					s := n.(ast.Stmt)
					if h := a.analyzePollLoop(s, labels[s]); h != nil && a.analyzeHandLoop(s, labels[s]) == nil {
						a.result.polls = append(a.result.polls, &retryLoop{hand: h, node: s, body: loopBody(info, s), funcBody: fnBody,
							label: labels[s], name: "a polling loop", attempts: handAttempts(info, s, h)})
						a.result.enclosing[s] = fnBody
					}
					if h := a.analyzeHandLoop(s, labels[s]); h != nil {
						l := &retryLoop{hand: h, node: s, body: loopBody(info, s), funcBody: fnBody, label: labels[s],
							name: "a hand-written retry loop", attempts: handAttempts(info, s, h)}
						a.add(l, fnBody)
						r := &retrier{node: s, what: "a hand-written retry loop at " + a.position(s.Pos()), attempts: l.attempts, loop: l,
							origins: []string{a.origin(s.Pos())}}
						a.result.retriers = append(a.result.retriers, r)
						if inGo == 0 {
							di.own = append(di.own, r)
						}
					}
				case *ast.CallExpr:
					a.result.enclosing[n] = fnBody
					if r := a.callRetrier(n, fnBody); r != nil {
						a.result.retriers = append(a.result.retriers, r)
						if inGo == 0 {
							di.own = append(di.own, r)
						}
					} else if f := callee(info, n); f != nil && f.Pkg() == a.pass.Pkg {
						di.every = append(di.every, n)
						if inGo == 0 {
							di.calls = append(di.calls, n)
						}
					}
				}
				return true
			})
		}
	}
	return decls
}

// add records a loop found in the function whose body is fnBody.
func (a *loopAnalysis) add(l *retryLoop, fnBody *ast.BlockStmt) {
	a.result.all = append(a.result.all, l)
	a.result.enclosing[l.node] = fnBody
}

// callRetrier returns the retrier a call is: a retry library's loop, a request through a
// retrying client, or a call of a function of another package that retries (a fact).
// Calls of this package's functions are resolved later, in exportRetries.
func (a *loopAnalysis) callRetrier(call *ast.CallExpr, fnBody *ast.BlockStmt) *retrier {
	info := a.pass.TypesInfo
	if api := matchAPI(info, call); api != nil {
		n := api.attempts(&apiCall{info: info, call: call, defs: a.defs, api: api})
		if n == 1 {
			return nil
		}
		where := a.position(call.Pos())
		r := &retrier{node: call, what: api.name + " at " + where, attempts: n, origins: []string{a.origin(call.Pos())}}
		if api.ours && api.policy < len(call.Args) {
			r.nestedSingle = a.defs.nestedSingle(info, call.Args[api.policy])
		}
		if api.op >= 0 && api.op < len(call.Args) {
			l := &retryLoop{api: api, node: call, funcBody: fnBody, name: api.name, attempts: n}
			op := call.Args[api.op]
			if api.operation {
				op = a.defs.attemptOf(info, op)
			}
			switch op := ast.Unparen(op).(type) {
			case *ast.FuncLit:
				l.lit, l.body = op, op.Body
			case nil:
			default:
				if f, ok := objOf(info, op).(*types.Func); ok {
					l.op = f
				} else if sel, ok := op.(*ast.SelectorExpr); ok {
					l.op, _ = info.Uses[sel.Sel].(*types.Func)
				}
			}
			a.add(l, fnBody)
			r.loop = l
		}
		return r
	}
	if s := isSend(info, call); s != nil && s.client != nil {
		if c, ok := a.retryingClient(s.client); ok && c.attempts != 1 {
			return &retrier{node: call, what: c.what + " at " + a.position(call.Pos()), attempts: c.attempts, origins: []string{a.origin(call.Pos())},
				nestedSingle: c.nestedSingle}
		}
	}
	if f := callee(info, call); f != nil && f.Pkg() != a.pass.Pkg {
		var fact retriesFact
		if a.pass.ImportObjectFact(f, &fact) && fact.Depth <= maxDepth {
			return &retrier{node: call, what: f.Name() + ", which retries (" + fact.What + ")", attempts: fact.Attempts, origins: fact.Origins,
				depth: fact.Depth + 1, nestedSingle: fact.NestedSingle}
		}
	}
	return nil
}

// retryingClient is an *http.Client or RoundTripper that retries by itself.
type retryingClient struct {
	what     string
	attempts int
	// nestedSingle: a retryhttp client whose policy makes one attempt inside another loop
	// of this project.
	nestedSingle bool
}

// retryingClient reports whether e is an *http.Client or http.RoundTripper that retries by
// itself: retryhttp.NewClient, a retryhttp.Transport, go-retryablehttp's StandardClient, a
// failsafehttp RoundTripper with a retry policy; built in this package and kept in a
// variable or a struct field, or given directly.
func (a *base) retryingClient(e ast.Expr) (retryingClient, bool) {
	info := a.pass.TypesInfo
	if call, ok := a.defs.call(info, e); ok {
		switch id := funcID(callee(info, call)); id {
		case ourHTTPPath + ".NewClient":
			return retryingClient{"retryhttp.NewClient's client", attemptsOfPolicy(info, a.defs, call.Args[0]), a.defs.nestedSingle(info, call.Args[0])}, true
		case "github.com/hashicorp/go-retryablehttp.Client.StandardClient":
			return retryingClient{what: "retryablehttp's StandardClient", attempts: 5}, true
		case "github.com/failsafe-go/failsafe-go/failsafehttp.NewRoundTripper":
			for _, p := range call.Args[1:] {
				if n, ok := a.defs.retryPolicyAttempts(info, p); ok {
					return retryingClient{what: "a failsafehttp RoundTripper", attempts: n}, true
				}
			}
		}
		return retryingClient{}, false
	}
	lit := a.defs.composite(info, e)
	if lit == nil {
		return retryingClient{}, false
	}
	switch t := info.TypeOf(lit); {
	case isNamed(t, ourHTTPPath, "Transport"):
		p, _ := fieldValue(lit, "Policy")
		return retryingClient{"a retryhttp.Transport", attemptsOfPolicy(info, a.defs, p), p != nil && a.defs.nestedSingle(info, p)}, true
	case isNamed(t, "github.com/hashicorp/go-retryablehttp", "RoundTripper"):
		return retryingClient{what: "a retryablehttp.RoundTripper", attempts: 5}, true
	case isNamed(t, "net/http", "Client"):
		if tr, ok := fieldValue(lit, "Transport"); ok {
			return a.retryingClient(tr)
		}
	}
	return retryingClient{}, false
}

// exportRetries gives a retriesFact to every function of the package that retries, by
// itself or through a call of another that does, and adds those calls to the retriers.
// A function's origins are the union of its own loops' and its callees'.
func (a *loopAnalysis) exportRetries(decls []*declInfo) {
	info := a.pass.TypesInfo
	facts := map[*types.Func]*retriesFact{}
	for _, d := range decls {
		for _, r := range d.own {
			if r.depth > maxDepth {
				continue
			}
			f := facts[d.fn]
			if f == nil || r.depth < f.Depth {
				f = &retriesFact{What: r.what, Attempts: r.attempts, Depth: r.depth, Origins: f.originsOrNil(), NestedSingle: r.nestedSingle}
				facts[d.fn] = f
			}
			f.Origins = union(f.Origins, r.origins)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range decls {
			for _, c := range d.calls {
				g := facts[callee(info, c)]
				if g == nil || g.Depth >= maxDepth {
					continue
				}
				f := facts[d.fn]
				if f == nil {
					f = &retriesFact{What: callee(info, c).Name() + ", which retries (" + g.What + ")", Attempts: g.Attempts, Depth: g.Depth + 1,
						NestedSingle: g.NestedSingle}
					facts[d.fn] = f
					changed = true
				}
				if f.Depth > g.Depth+1 {
					continue
				}
				if n := len(f.Origins); len(union(f.Origins, g.Origins)) > n {
					f.Origins = union(f.Origins, g.Origins)
					changed = true
				}
			}
		}
	}
	a.result.facts = facts
	for _, d := range decls {
		if f := facts[d.fn]; f != nil {
			a.pass.ExportObjectFact(d.fn, f)
		}
		for _, c := range d.every {
			if f := facts[callee(info, c)]; f != nil && callee(info, c) != d.fn {
				a.result.retriers = append(a.result.retriers, &retrier{node: c, what: callee(info, c).Name() + ", which retries (" + f.What + ")",
					attempts: f.Attempts, origins: f.Origins, depth: f.Depth + 1, nestedSingle: f.NestedSingle})
			}
		}
	}
}

// handAttempts returns a hand-written loop's constant number of attempts (for i := 0;
// i < 3; i++ makes 3; for range 5 makes 5), 0 when it is bounded otherwise, unbounded
// when nothing bounds it.
func handAttempts(info *types.Info, s ast.Stmt, h *handLoop) int {
	switch s := s.(type) {
	case *ast.RangeStmt:
		if n, ok := constInt(info, s.X); ok {
			return int(n)
		}
		return 0
	case *ast.ForStmt:
		if n, ok := counted(info, s); ok {
			return n
		}
	}
	if !h.bounded && !h.deadline && !h.watchesContext {
		return unbounded
	}
	return 0
}

// counted reads for i := a; i < b (or <=); i++ with constant a and b.
func counted(info *types.Info, s *ast.ForStmt) (int, bool) {
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return 0, false
	}
	from, ok := constInt(info, init.Rhs[0])
	if !ok {
		return 0, false
	}
	cond, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	if !ok || objOf(info, cond.X) != objOf(info, init.Lhs[0]) {
		return 0, false
	}
	to, ok := constInt(info, cond.Y)
	if !ok {
		return 0, false
	}
	if inc, ok := s.Post.(*ast.IncDecStmt); !ok || inc.Tok != token.INC {
		return 0, false
	}
	switch cond.Op {
	case token.LSS:
		return int(max(to-from, 0)), true
	case token.LEQ:
		return int(max(to-from+1, 0)), true
	}
	return 0, false
}
