package retrycheck

import (
	"go/ast"
	"go/token"
	"go/types"
)

// What retrycheck knows of this project's own library, github.com/retrykit/retry. Every
// name below is checked against the library's real packages by ours_test.go, so that a
// change of the API that retrycheck relies on breaks a test of retrycheck.

// ourPath and ourHTTPPath are the library's packages read here.
const (
	ourPath     = "github.com/retrykit/retry"
	ourHTTPPath = "github.com/retrykit/retry/retryhttp"
)

// ourLoop is one of the library's loop functions: where its policy and its attempt are
// among its arguments.
type ourLoop struct {
	// policy is the index of the *retry.Policy argument.
	policy int
	// op is the index of the attempt: a func(ctx context.Context) error (or (T, error)),
	// or, when operation is true, a retry.Operation[T] whose Attempt field is the attempt,
	// a func(ctx context.Context) (T, retry.Outcome).
	op        int
	operation bool
}

// ourLoops are the library's loops by name. Each runs its attempt with a context of the
// attempt's own (its deadline the earlier of AttemptTimeout and the loop's), and retries
// any error not marked permanent, as Policy says (DefaultMaxAttempts attempts by default).
var ourLoops = map[string]ourLoop{
	"Do":              {policy: 1, op: 2},
	"DoValue":         {policy: 1, op: 2},
	"DoFallback":      {policy: 1, op: 2},
	"Run":             {policy: 1, op: 2, operation: true},
	"RunIn":           {policy: 2, op: 3, operation: true},
	"RunConcurrent":   {policy: 1, op: 2, operation: true},
	"RunConcurrentIn": {policy: 2, op: 3, operation: true},
}

// The library's names that the checks read, besides the loops. ours_test.go checks each.
const (
	// ourDefaultMaxAttempts is DefaultMaxAttempts: the attempts of a policy whose
	// MaxAttempts is 0, or of a nil policy.
	ourDefaultMaxAttempts = 3
	// ourNoLimit is NoLimit: MaxAttempts or Timeout without a limit.
	ourNoLimit = -1
	// ourNestedRetry is NestedRetry, the zero Nested: a nested loop retries as if alone.
	// Any other value (NestedSingleAttempt) makes one attempt inside another loop of the
	// library.
	ourNestedRetry = 0
)

// ourDefaultRetryableStatuses is DefaultRetryableStatuses: the statuses a policy whose
// RetryableStatuses is nil retries.
var ourDefaultRetryableStatuses = []int{408, 429, 500, 502, 503, 504}

// ourPolicyFields are the fields of retry.Policy read here, with the type each has.
var ourPolicyFields = map[string]string{
	"MaxAttempts":       "int",
	"Timeout":           "time.Duration",
	"AttemptTimeout":    "time.Duration",
	"RetryableStatuses": "[]int",
	"Classifier":        "func(github.com/retrykit/retry.Outcome) github.com/retrykit/retry.Class",
	"Nested":            "github.com/retrykit/retry.Nested",
}

// ourOperationFields and ourOutcomeFields are the fields of retry.Operation[T] and
// retry.Outcome read here.
var (
	ourOperationFields = map[string]string{
		"Attempt": "func(ctx context.Context) (T, github.com/retrykit/retry.Outcome)",
		"Discard": "func(T)",
	}
	ourOutcomeFields = map[string]string{
		"Err":    "error",
		"Status": "int",
	}
)

// ourFuncs are the other functions of the library read here, with their signatures.
var ourFuncs = map[string]string{
	ourPath + ".Permanent":      "func(err error) error",
	ourHTTPPath + ".NewClient":  "func(p *github.com/retrykit/retry.Policy) *net/http.Client",
	ourHTTPPath + ".WithPolicy": "func(ctx context.Context, p *github.com/retrykit/retry.Policy) context.Context",
}

// ourTransportFields are the fields of retryhttp.Transport read here.
var ourTransportFields = map[string]string{
	"Base":   "net/http.RoundTripper",
	"Policy": "*github.com/retrykit/retry.Policy",
}

// isOurPolicy reports whether t is retry.Policy or *retry.Policy.
func isOurPolicy(t types.Type) bool { return isNamed(t, ourPath, "Policy") }

// attemptOf returns the attempt function of an Operation expression: the Attempt field of
// a retry.Operation literal, directly or through a variable assigned once.
func (d definitions) attemptOf(info *types.Info, op ast.Expr) ast.Expr {
	lit := d.composite(info, op)
	if lit == nil || !isNamed(info.TypeOf(lit), ourPath, "Operation") {
		return nil
	}
	v, _ := fieldValue(lit, "Attempt")
	return v
}

// policyField returns the value given to the field name of the retry.Policy that e is
// (or points to): a key of its composite literal, or the one assignment to that field of
// the variable or struct field that holds it (p.Nested = ...). e may be a variable or a
// struct field assigned once, &x, or a call of a function of the package that returns
// one policy.
func (d definitions) policyField(info *types.Info, e ast.Expr, name string) (ast.Expr, bool) {
	for range 6 {
		if e == nil {
			return nil, false
		}
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		if o := d.holder(info, e); o != nil {
			if v, ok := d.fields[fieldKey{o, name}]; ok {
				return v, true
			}
		}
		switch x := e.(type) {
		case *ast.CompositeLit:
			return fieldValue(x, name)
		case *ast.CallExpr:
			r := d.returned[callee(info, x)]
			if r == nil {
				return nil, false
			}
			e = r
			continue
		}
		next := d.resolve(info, e)
		if next == e {
			return nil, false
		}
		e = next
	}
	return nil, false
}

// holder returns the object whose fields an expression's assignments are recorded
// under: a variable, or a struct field (w.pol).
func (d definitions) holder(info *types.Info, e ast.Expr) types.Object {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return objOf(info, x)
	case *ast.SelectorExpr:
		if v, ok := info.Uses[x.Sel].(*types.Var); ok && v.IsField() {
			return v
		}
	}
	return nil
}

// nestedSingle reports whether the library's loop, or a retryhttp client, given the
// policy p makes a single attempt inside another loop of the library: its Nested is set
// to anything but NestedRetry.
func (d definitions) nestedSingle(info *types.Info, p ast.Expr) bool {
	v, ok := d.policyField(info, p, "Nested")
	if !ok {
		return false
	}
	n, ok := constInt(info, v)
	return !ok || n != ourNestedRetry
}
