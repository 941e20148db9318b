package retrycheck

import (
	"go/ast"
	"go/constant"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// callee returns the function or method a call statically names, or nil (a call of a
// function value, a conversion, a builtin).
func callee(info *types.Info, call *ast.CallExpr) *types.Func {
	f, _ := typeutil.Callee(info, call).(*types.Func)
	return f
}

// majorSuffix matches a module's major version element (/v2, /v10).
var majorSuffix = regexp.MustCompile(`/v[0-9]+$`)

// basePath returns a package path without its major version element:
// github.com/cenkalti/backoff/v4 gives github.com/cenkalti/backoff, and
// github.com/avast/retry-go/v4 gives github.com/avast/retry-go. Other elements stay.
func basePath(path string) string {
	return majorSuffix.ReplaceAllString(path, "")
}

// funcID names a function as "path.Name" or a method as "path.Type.Name", the path
// without its major version element, for matching against the tables of known APIs.
func funcID(f *types.Func) string {
	if f == nil || f.Pkg() == nil {
		return ""
	}
	path := basePath(f.Pkg().Path())
	sig, _ := f.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		if n := namedOf(sig.Recv().Type()); n != nil {
			return path + "." + n.Obj().Name() + "." + f.Name()
		}
		return path + ".?." + f.Name()
	}
	return path + "." + f.Name()
}

// namedOf returns the named type of t or of what t points to, or nil.
func namedOf(t types.Type) *types.Named {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// isNamed reports whether t (or what t points to) is the named type path.name.
func isNamed(t types.Type, path, name string) bool {
	n := namedOf(t)
	return n != nil && n.Obj().Pkg() != nil && n.Obj().Name() == name && basePath(n.Obj().Pkg().Path()) == path
}

// isContext reports whether t is context.Context.
func isContext(t types.Type) bool { return isNamed(t, "context", "Context") }

// isError reports whether t is the error interface.
func isError(t types.Type) bool { return types.Identical(t, types.Universe.Lookup("error").Type()) }

// isResponse reports whether t is *net/http.Response.
func isResponse(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), "net/http", "Response")
}

// isRequest reports whether t is *net/http.Request.
func isRequest(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), "net/http", "Request")
}

// objOf returns the object an identifier (possibly parenthesized) uses or defines, or nil.
func objOf(info *types.Info, e ast.Expr) types.Object {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	if o := info.Uses[id]; o != nil {
		return o
	}
	return info.Defs[id]
}

// isNil reports whether e is the predeclared nil.
func isNil(info *types.Info, e ast.Expr) bool {
	_, ok := objOf(info, e).(*types.Nil)
	return ok
}

// constInt returns the value of an integer constant expression.
func constInt(info *types.Info, e ast.Expr) (int64, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	return constant.Int64Val(constant.ToInt(tv.Value))
}

// constString returns the value of a string constant expression.
func constString(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return "", false
	}
	if tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// pureCall reports whether f belongs to a package whose functions compute values or
// write locally and never make an outbound call: such a call is never an attempt.
func pureCall(f *types.Func) bool {
	if f == nil || f.Pkg() == nil {
		return true
	}
	switch p := f.Pkg().Path(); {
	case strings.HasPrefix(p, "net"), p == "database/sql", strings.HasPrefix(p, "os"):
		return false
	}
	return isStandard(f.Pkg().Path()) // the rest of the standard library: fmt, errors, strings, time, log, ...
}

// standardRoots are the first elements of the standard library's package paths.
var standardRoots = map[string]bool{}

func init() {
	for _, r := range strings.Fields(`archive bufio bytes cmp compress container context crypto database debug
		embed encoding errors expvar flag fmt go hash html image index io iter log maps math mime net os
		path plugin reflect regexp runtime slices sort strconv strings structs sync syscall testing text
		time unicode unique unsafe weak`) {
		standardRoots[r] = true
	}
}

// isStandard reports whether path is a package of the standard library.
func isStandard(path string) bool {
	root, _, _ := strings.Cut(path, "/")
	return standardRoots[root]
}

// loggingCall reports whether a call only logs or traces: passing a context to it uses
// no deadline.
func loggingCall(f *types.Func) bool {
	if f == nil || f.Pkg() == nil {
		return false
	}
	p := f.Pkg().Path()
	switch {
	case p == "log" || p == "log/slog" || strings.Contains(p, "zap") || strings.Contains(p, "zerolog") ||
		strings.Contains(p, "logr") || strings.Contains(p, "logrus") || strings.Contains(p, "/log"):
		return true
	case strings.HasPrefix(p, "go.opentelemetry.io/"):
		return true
	}
	switch f.Name() {
	case "Debug", "Debugf", "Info", "Infof", "Warn", "Warnf", "Error", "Errorf", "Log", "Logf",
		"DebugContext", "InfoContext", "WarnContext", "ErrorContext", "Printf", "Println":
		return true
	}
	return false
}
