package retrycheck

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Write reports a POST or PATCH sent again by a retry loop after an attempt that may have
// been applied (a transport error once the request may have left, or a 500, 502 or 504),
// without an Idempotency-Key: the server may carry out the write twice (RFC 9110 section
// 9.2.2). A loop that retries only declined requests (408, 429, 503) is not reported.
var Write = &analysis.Analyzer{
	Name:     "retrywrite",
	Doc:      "reports a non-idempotent request (POST, PATCH) sent again after an attempt that may have been applied",
	URL:      "https://pkg.go.dev/github.com/retrykit/retry/retrycheck#hdr-retrywrite",
	Requires: []*analysis.Analyzer{loopsAnalyzer},
	Run:      runWrite,
}

func runWrite(pass *analysis.Pass) (any, error) {
	a := newChecker(pass)
	for _, l := range a.loops.all {
		if mentionsIdempotencyKey(pass, l.funcBody) {
			continue
		}
		for _, s := range a.sends(l) {
			method := a.method(s)
			if method != "POST" && method != "PATCH" {
				continue
			}
			if s.client != nil {
				if _, retrying := a.retryingClient(s.client); retrying {
					continue // retryhttp knows writes; a retrying client is retrynested's
				}
			}
			errVar, resp := a.results(s.call, l.body)
			when := ""
			if errVar != nil && len(a.paths(l, s.call, errVar, resp, false).walk()) > 0 {
				when = "after a transport error (the request may have reached the server)"
			} else if resp != nil {
				for _, p := range a.paths(l, s.call, errVar, resp, true).walk() {
					if codes := p.retried(appliedCodes); codes != 0 {
						when = "after a " + joinCodes(codes) + " (the server may have applied it)"
						break
					}
				}
			}
			if when == "" {
				continue
			}
			pass.Reportf(s.call.Pos(), "%s sent again by %s %s without an Idempotency-Key: the write may be applied twice "+
				"(send an idempotency key, or use retryhttp.Transport, which retries a write only when that is safe)", method, l.name, when)
		}
	}
	a.retryingClientWrites()
	return nil, nil
}

// retryingClientWrites reports a POST or PATCH sent through go-retryablehttp, whose
// default retry policy sends any method again after a connection error or a 5xx, unless
// the client's CheckRetry was set in this package (it may look at the method).
func (a *checker) retryingClientWrites() {
	info := a.pass.TypesInfo
	for _, f := range a.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			api := matchAPI(info, call)
			if api == nil || api.op != -1 || !strings.HasPrefix(api.name, "retryablehttp.") && !strings.HasPrefix(api.name, "pester.") {
				return true
			}
			s := isSend(info, call)
			if s == nil {
				return true
			}
			method := s.method
			if method == "" && s.req != nil {
				if c, ok := a.defs.call(info, s.req); ok {
					if r := buildsRequest(info, c); r != nil {
						method = r.method
					}
				}
			}
			if method != "POST" && method != "PATCH" {
				return true
			}
			if s.client != nil && strings.HasPrefix(api.name, "retryablehttp.") && a.customCheckRetry(s.client) || ownPackage(a.pass, callee(info, call)) {
				return true // the client may refuse to retry writes; or the library's own wrappers and tests
			}
			if body := a.loops.enclosing[call]; body != nil && mentionsIdempotencyKey(a.pass, body) {
				return true
			}
			fix := "a CheckRetry that retries writes only when safe"
			if strings.HasPrefix(api.name, "pester.") {
				fix = "a client with MaxRetries 1 for writes"
			}
			a.pass.Reportf(call.Pos(), "%s sent through %s, which sends it again after a connection error or a 5xx, "+
				"without an Idempotency-Key: the write may be applied twice (send an idempotency key, or %s)",
				method, api.name, fix)
			return true
		})
	}
}

// ownPackage reports whether f belongs to the package being analyzed (or the package its
// external test package tests): a library's own wrappers of its API and its own tests
// are not its users.
func ownPackage(pass *analysis.Pass, f *types.Func) bool {
	return f != nil && f.Pkg() != nil && strings.TrimSuffix(pass.Pkg.Path(), "_test") == f.Pkg().Path()
}

// customCheckRetry reports whether the retryablehttp client e has a CheckRetry of its
// own, set in a composite literal or by an assignment in this package, following the
// variables and struct fields it was kept in back to where it was made. A client whose
// making is not seen here (a parameter, a field set elsewhere) may have one.
func (a *checker) customCheckRetry(e ast.Expr) bool {
	info := a.pass.TypesInfo
	for range 6 {
		if lit := a.defs.composite(info, e); lit != nil {
			_, ok := fieldValue(lit, "CheckRetry")
			return ok
		}
		if o := a.defs.holder(info, e); o != nil {
			if _, ok := a.defs.fields[fieldKey{o, "CheckRetry"}]; ok {
				return true
			}
		}
		if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
			return funcID(callee(info, call)) != "github.com/hashicorp/go-retryablehttp.NewClient"
		}
		def, ok := a.defs.only(info, e)
		if !ok || def.index != 0 {
			return true
		}
		e = def.rhs
	}
	return true
}

// method returns the HTTP method a send uses when it is known: Post's, or the constant
// given to http.NewRequest for the request sent.
func (a *checker) method(s *send) string {
	if s.method != "" {
		return s.method
	}
	if s.req == nil {
		return ""
	}
	call, ok := a.defs.call(a.pass.TypesInfo, s.req)
	if !ok {
		return ""
	}
	r := buildsRequest(a.pass.TypesInfo, call)
	if r == nil {
		return ""
	}
	if r.method == "" {
		idx := 0
		if strings.HasSuffix(calleeName(call), "WithContext") {
			idx = 1
		}
		if m, ok := constString(a.pass.TypesInfo, a.defs.resolve(a.pass.TypesInfo, call.Args[idx])); ok {
			return strings.ToUpper(m)
		}
	}
	return r.method
}

// mentionsIdempotencyKey reports whether a function sets an idempotency key: any string
// constant in it naming one (Idempotency-Key, X-Idempotency-Key, idempotency_key).
func mentionsIdempotencyKey(pass *analysis.Pass, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(strings.ToLower(lit.Value), "idempotency") {
			found = true
		}
		if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "idempotency") {
			found = true
		}
		return !found
	})
	return found
}

// joinCodes writes statuses as "500, 502 or 504".
func joinCodes(s codeSet) string {
	var parts []string
	for _, c := range s.codes() {
		parts = append(parts, strconv.Itoa(c))
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
