package retrycheck

import (
	"go/ast"
	"go/types"
	"strings"
)

// retryAPI is a function of a retry library that calls an attempt function until it
// succeeds, or a client method that sends one request with retries of its own.
type retryAPI struct {
	// name is how reports call it.
	name string
	// op is the index of the attempt function among the call's arguments; -1 when the
	// call itself is one request that the library retries (a retrying client's Do).
	op int
	// operation is true when that argument is a retry.Operation, whose Attempt field is
	// the attempt function (this project's Run and its kin).
	operation bool
	// ours is true for this project's loops; policy is then the index of their
	// *retry.Policy argument.
	ours   bool
	policy int
	// ctxParam is true when the attempt function's first parameter is the attempt's
	// context.
	ctxParam bool
	// ownContext is true when the attempt's context is not the caller's: it carries the
	// attempt's own deadline (this project's loops; gax with a per-attempt timeout).
	ownContext bool
	// onlyMarked is true when the loop retries only errors marked retryable
	// (sethvargo/go-retry's RetryableError); otherwise it retries every non-nil error but
	// one marked permanent (retry.Permanent, backoff.Permanent, retry-go's Unrecoverable).
	onlyMarked bool
	// attempts returns the total number of attempts of one call: > 0 when known, 0 when
	// unknown, unbounded when unbounded, 1 when the call does not retry at all (a
	// failsafe executor without a retry policy, an SDK call with retries off).
	attempts func(c *apiCall) int
}

// unbounded is the attempt count of a loop with no bound.
const unbounded = -1

// apiCall is one call of a retryAPI being matched.
type apiCall struct {
	info *types.Info
	call *ast.CallExpr
	defs definitions
	api  *retryAPI
}

// arg returns the i-th argument, or nil.
func (c *apiCall) arg(i int) ast.Expr {
	if i < len(c.call.Args) {
		return c.call.Args[i]
	}
	return nil
}

// apis maps funcID to the retrying APIs this analyzer knows. SDK clients (AWS, OpenAI,
// Anthropic) are matched by sdkAPI instead, since their methods are many.
var apis = map[string]*retryAPI{}

func init() {
	for n, l := range ourLoops {
		apis[ourPath+"."+n] = &retryAPI{name: "retry." + n, op: l.op, operation: l.operation, ours: true, policy: l.policy,
			ctxParam: true, ownContext: true, attempts: policyAttempts}
	}
	for _, n := range []string{"Do", "Get", "Head", "Post", "PostForm"} {
		apis["github.com/hashicorp/go-retryablehttp.Client."+n] = &retryAPI{name: "retryablehttp.Client." + n, op: -1, attempts: retryablehttpAttempts}
		if n != "Do" {
			apis["github.com/hashicorp/go-retryablehttp."+n] = &retryAPI{name: "retryablehttp." + n, op: -1, attempts: fixed(5)}
		}
	}
	for _, n := range []string{"Do", "Get", "Head", "Post", "PostForm"} {
		apis["github.com/sethgrid/pester.Client."+n] = &retryAPI{name: "pester.Client." + n, op: -1, attempts: pesterAttempts}
		apis["github.com/sethgrid/pester."+n] = &retryAPI{name: "pester." + n, op: -1, attempts: fixed(3)}
	}
	for _, n := range []string{"Retry", "RetryNotify", "RetryNotifyWithTimer", "RetryWithData", "RetryNotifyWithData", "RetryNotifyWithTimerAndData"} {
		apis["github.com/cenkalti/backoff."+n] = &retryAPI{name: "backoff." + n, op: 0, attempts: backoffAttempts}
	}
	for _, n := range []string{"Do", "DoWithData"} {
		apis["github.com/avast/retry-go."+n] = &retryAPI{name: "retry-go " + n, op: 0, attempts: retryGoAttempts}
	}
	for _, n := range []string{"Run", "Get", "RunWithExecution", "GetWithExecution"} {
		apis["github.com/failsafe-go/failsafe-go."+n] = &retryAPI{name: "failsafe." + n, op: 0, attempts: failsafeAttempts}
		for _, m := range []string{n, n + "Async"} {
			apis["github.com/failsafe-go/failsafe-go.Executor."+m] = &retryAPI{name: "failsafe Executor." + m, op: 0, attempts: failsafeAttempts}
		}
	}
	for _, n := range []string{"Do", "DoValue"} {
		apis["github.com/sethvargo/go-retry."+n] = &retryAPI{name: "go-retry " + n, op: 2, ctxParam: true, onlyMarked: true, attempts: sethvargoAttempts}
	}
	apis["github.com/googleapis/gax-go.Invoke"] = &retryAPI{name: "gax.Invoke", op: 1, ctxParam: true, ownContext: true, attempts: gaxAttempts}
}

// matchAPI returns the retrying API a call names, or nil.
func matchAPI(info *types.Info, call *ast.CallExpr) *retryAPI {
	f := callee(info, call)
	if f == nil {
		return nil
	}
	id := funcID(f)
	if a := apis[id]; a != nil {
		if strings.HasPrefix(id, "github.com/cenkalti/backoff.") && firstParamIsContext(f) {
			return backoffV5[f.Name()] // v5: Retry(ctx, op, opts...)
		}
		return a
	}
	return sdkAPI(f)
}

// backoffV5 is cenkalti/backoff v5's Retry, whose attempt function comes second.
var backoffV5 = map[string]*retryAPI{
	"Retry": {name: "backoff.Retry", op: 1, attempts: backoffV5Attempts},
}

// firstParamIsContext reports whether f's first parameter is a context.Context.
func firstParamIsContext(f *types.Func) bool {
	sig := f.Type().(*types.Signature)
	return sig.Params().Len() > 0 && isContext(sig.Params().At(0).Type())
}

// sdkAPI matches a request method of an SDK client that retries by default: the AWS SDK
// for Go v2 (standard retryer: 3 attempts), openai-go and anthropic-sdk-go (2 retries: 3
// attempts).
func sdkAPI(f *types.Func) *retryAPI {
	if !firstParamIsContext(f) {
		return nil
	}
	sig := f.Type().(*types.Signature)
	if sig.Recv() == nil {
		return nil
	}
	recv := namedOf(sig.Recv().Type())
	if recv == nil || f.Pkg() == nil {
		return nil
	}
	path := basePath(f.Pkg().Path())
	switch {
	case strings.HasPrefix(path, "github.com/aws/aws-sdk-go-v2/service/") && recv.Obj().Name() == "Client" && f.Exported():
		return &retryAPI{name: "the AWS SDK's " + shortPkg(path) + ".Client." + f.Name(), op: -1, attempts: awsAttempts}
	case (path == "github.com/openai/openai-go" || path == "github.com/anthropics/anthropic-sdk-go") &&
		strings.HasSuffix(recv.Obj().Name(), "Service") && f.Exported():
		sdk := "openai-go"
		if strings.Contains(path, "anthropic") {
			sdk = "anthropic-sdk-go"
		}
		return &retryAPI{name: sdk + " " + recv.Obj().Name() + "." + f.Name(), op: -1, attempts: optionRetries}
	}
	return nil
}

// shortPkg returns the last element of a package path.
func shortPkg(path string) string { return path[strings.LastIndex(path, "/")+1:] }

func fixed(n int) func(*apiCall) int { return func(*apiCall) int { return n } }

// policyAttempts reads MaxAttempts from the retry.Policy argument of this project's loops.
func policyAttempts(c *apiCall) int {
	p := c.arg(c.api.policy)
	if p == nil {
		return 0
	}
	return attemptsOfPolicy(c.info, c.defs, p)
}

// attemptsOfPolicy reads MaxAttempts from a *retry.Policy expression: a composite literal
// or a variable or field it was assigned to, with the fields assigned to it after (see
// policyField); nil or absent means DefaultMaxAttempts, NoLimit unbounded, 0 unknown.
func attemptsOfPolicy(info *types.Info, defs definitions, p ast.Expr) int {
	if p == nil || isNil(info, p) {
		return ourDefaultMaxAttempts
	}
	v, ok := defs.policyField(info, p, "MaxAttempts")
	if !ok {
		if defs.composite(info, p) != nil {
			return ourDefaultMaxAttempts
		}
		return 0
	}
	n, ok := constInt(info, v)
	switch {
	case !ok:
		return 0
	case n == ourNoLimit:
		return unbounded
	case n == 0:
		return ourDefaultMaxAttempts
	}
	return int(n)
}

// retryablehttpAttempts reads RetryMax from the client a retryablehttp method is called
// on (RetryMax + 1 attempts; 5 by default).
func retryablehttpAttempts(c *apiCall) int {
	sel, ok := ast.Unparen(c.call.Fun).(*ast.SelectorExpr)
	if !ok {
		return 0
	}
	lit := c.defs.composite(c.info, sel.X)
	if lit == nil {
		if call, ok := c.defs.call(c.info, sel.X); ok && funcID(callee(c.info, call)) == "github.com/hashicorp/go-retryablehttp.NewClient" {
			if n, ok := c.defs.fieldAssigned(c.info, sel.X, "RetryMax"); ok {
				return n + 1
			}
			return 5
		}
		return 0
	}
	v, ok := fieldValue(lit, "RetryMax")
	if !ok {
		return 1 // a Client literal without RetryMax makes no retries
	}
	if n, ok := constInt(c.info, v); ok {
		return int(n) + 1
	}
	return 0
}

// pesterAttempts reads MaxRetries, pester's number of attempts (3 by default), from the
// client a sethgrid/pester method is called on.
func pesterAttempts(c *apiCall) int {
	sel, ok := ast.Unparen(c.call.Fun).(*ast.SelectorExpr)
	if !ok {
		return 0
	}
	if call, ok := c.defs.call(c.info, sel.X); ok && funcID(callee(c.info, call)) == "github.com/sethgrid/pester.New" {
		if n, ok := c.defs.fieldAssigned(c.info, sel.X, "MaxRetries"); ok {
			return max(n, 1)
		}
		return 3
	}
	return 0
}

// backoffAttempts reads cenkalti/backoff v4's WithMaxRetries(b, n): n + 1 attempts.
func backoffAttempts(c *apiCall) int {
	b := c.arg(1)
	withContext := false
	for b != nil {
		call, ok := c.defs.call(c.info, b)
		if !ok {
			return 0
		}
		id := funcID(callee(c.info, call))
		switch id {
		case "github.com/cenkalti/backoff.WithMaxRetries":
			if n, ok := constInt(c.info, call.Args[1]); ok {
				return int(n) + 1
			}
			return 0
		case "github.com/cenkalti/backoff.WithContext":
			b, withContext = call.Args[0], true
		case "github.com/cenkalti/backoff.NewConstantBackOff":
			if withContext {
				return 0
			}
			return unbounded
		default:
			return 0
		}
	}
	return 0
}

// backoffV5Attempts reads cenkalti/backoff v5's WithMaxTries(n) option.
func backoffV5Attempts(c *apiCall) int {
	for _, a := range c.call.Args[min(2, len(c.call.Args)):] {
		if call, ok := c.defs.call(c.info, a); ok && funcID(callee(c.info, call)) == "github.com/cenkalti/backoff.WithMaxTries" {
			if n, ok := constInt(c.info, call.Args[0]); ok {
				return int(n)
			}
		}
	}
	return 0
}

// retryGoAttempts reads avast/retry-go's Attempts(n) option (0 is unlimited; the default
// is 10).
func retryGoAttempts(c *apiCall) int {
	for _, a := range c.call.Args[min(1, len(c.call.Args)):] {
		if call, ok := c.defs.call(c.info, a); ok && funcID(callee(c.info, call)) == "github.com/avast/retry-go.Attempts" {
			n, ok := constInt(c.info, call.Args[0])
			switch {
			case !ok:
				return 0
			case n == 0:
				return unbounded
			}
			return int(n)
		}
	}
	return 10
}

// sethvargoAttempts reads sethvargo/go-retry's WithMaxRetries(n, b): n + 1 attempts.
func sethvargoAttempts(c *apiCall) int {
	if call, ok := c.defs.call(c.info, c.arg(1)); ok && funcID(callee(c.info, call)) == "github.com/sethvargo/go-retry.WithMaxRetries" {
		if n, ok := constInt(c.info, call.Args[0]); ok {
			return int(n) + 1
		}
	}
	return 0
}

// gaxAttempts: gax.Invoke retries only when given call options (a retryer); its retries
// are bounded by the context's deadline, not counted.
func gaxAttempts(c *apiCall) int {
	if len(c.call.Args) <= 2 {
		return 1
	}
	return 0
}

// failsafeAttempts: a failsafe-go execution retries only through a retry policy among its
// policies (the arguments of failsafe.Run and failsafe.Get, or of the failsafe.With or
// NewExecutor call that built the executor). A policy whose type is not known to be a
// retry policy counts as none.
func failsafeAttempts(c *apiCall) int {
	policies := c.call.Args[min(1, len(c.call.Args)):]
	if sel, ok := ast.Unparen(c.call.Fun).(*ast.SelectorExpr); ok && isNamed(c.info.TypeOf(sel.X), "github.com/failsafe-go/failsafe-go", "Executor") {
		policies = c.defs.executorPolicies(c.info, sel.X)
	}
	for _, p := range policies {
		if n, ok := c.defs.retryPolicyAttempts(c.info, p); ok {
			return n
		}
	}
	return 1
}

// awsAttempts: an AWS SDK call makes 3 attempts unless its options set RetryMaxAttempts
// or a Retryer (aws.NopRetryer: 1), or the package loads its configurations with
// config.WithRetryMaxAttempts (the most of them).
func awsAttempts(c *apiCall) int {
	for _, a := range c.call.Args[min(2, len(c.call.Args)):] {
		lit, ok := ast.Unparen(a).(*ast.FuncLit)
		if !ok {
			continue
		}
		n := 3
		ast.Inspect(lit.Body, func(x ast.Node) bool {
			as, ok := x.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			sel, ok := as.Lhs[0].(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "RetryMaxAttempts":
				if v, ok := constInt(c.info, as.Rhs[0]); ok {
					n = int(v)
				} else {
					n = 0
				}
			case "Retryer":
				if isNamed(c.info.TypeOf(as.Rhs[0]), "github.com/aws/aws-sdk-go-v2/aws", "NopRetryer") {
					n = 1
				} else {
					n = 0
				}
			}
			return true
		})
		return n
	}
	if c.defs.awsConfigAttempts > 0 { // the package configures its clients
		return c.defs.awsConfigAttempts
	}
	return 3
}

// optionRetries: openai-go and anthropic-sdk-go make 3 attempts unless a request option
// option.WithMaxRetries(n) says n + 1.
func optionRetries(c *apiCall) int {
	for _, a := range c.call.Args[min(1, len(c.call.Args)):] {
		if call, ok := ast.Unparen(a).(*ast.CallExpr); ok && callee(c.info, call) != nil && callee(c.info, call).Name() == "WithMaxRetries" {
			if n, ok := constInt(c.info, call.Args[0]); ok {
				return int(n) + 1
			}
			return 0
		}
	}
	return 3
}

// fieldValue returns the value of a keyed field of a composite literal.
func fieldValue(lit *ast.CompositeLit, name string) (ast.Expr, bool) {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == name {
				return kv.Value, true
			}
		}
	}
	return nil, false
}
