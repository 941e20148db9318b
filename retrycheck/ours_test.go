package retrycheck

import (
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestOurAPI checks what retrycheck knows of this project's library (ours.go) against the
// library's real packages, type-checked from this repository's workspace (issue 36): every
// loop, field, constant and function the checks rely on exists with the type they expect.
// Names the library adds are no concern of this test; a name it removes or changes
// breaks it.
func TestOurAPI(t *testing.T) {
	analyzeTestdata(t)
	retry, retryhttp := ourPackage(t, ourPath), ourPackage(t, ourHTTPPath)
	scope := retry.Types.Scope()
	typeOf := func(t types.Type) string { return types.TypeString(t, nil) }

	policy := scope.Lookup("Policy")
	if policy == nil {
		t.Fatal("retry.Policy is gone")
	}
	policyPtr := types.NewPointer(policy.Type())
	for name, l := range ourLoops {
		f, ok := scope.Lookup(name).(*types.Func)
		if !ok {
			t.Errorf("retry.%s: not a function of the library", name)
			continue
		}
		sig := f.Type().(*types.Signature)
		params := sig.Params()
		if params.Len() <= max(l.op, l.policy) {
			t.Errorf("retry.%s%s: want the policy at %d and the attempt at %d", name, sig, l.policy, l.op)
			continue
		}
		if !isContext(params.At(0).Type()) {
			t.Errorf("retry.%s%s: the first parameter is not a context.Context", name, sig)
		}
		if !types.Identical(params.At(l.policy).Type(), policyPtr) {
			t.Errorf("retry.%s%s: parameter %d is not a *retry.Policy", name, sig, l.policy)
		}
		op := params.At(l.op).Type()
		switch {
		case l.operation:
			if !isNamed(op, ourPath, "Operation") {
				t.Errorf("retry.%s%s: parameter %d is not a retry.Operation", name, sig, l.op)
			}
		default:
			attempt, ok := op.Underlying().(*types.Signature)
			if !ok || attempt.Params().Len() != 1 || !isContext(attempt.Params().At(0).Type()) ||
				!isError(attempt.Results().At(attempt.Results().Len()-1).Type()) {
				t.Errorf("retry.%s%s: parameter %d is not an attempt func(context.Context) (..., error)", name, sig, l.op)
			}
		}
	}

	fields := func(typeName string, obj types.Object, want map[string]string) {
		t.Helper()
		st, ok := obj.Type().Underlying().(*types.Struct)
		if !ok {
			t.Errorf("%s is not a struct", typeName)
			return
		}
		for name, wantType := range want {
			i := -1
			for j := range st.NumFields() {
				if st.Field(j).Name() == name {
					i = j
				}
			}
			if i < 0 {
				t.Errorf("%s.%s is gone", typeName, name)
				continue
			}
			if got := typeOf(st.Field(i).Type()); got != wantType {
				t.Errorf("%s.%s is a %s, want %s", typeName, name, got, wantType)
			}
		}
	}
	fields("retry.Policy", policy, ourPolicyFields)
	fields("retry.Operation", scope.Lookup("Operation"), ourOperationFields)
	fields("retry.Outcome", scope.Lookup("Outcome"), ourOutcomeFields)
	fields("retryhttp.Transport", retryhttp.Types.Scope().Lookup("Transport"), ourTransportFields)

	constants := map[string]int64{"DefaultMaxAttempts": ourDefaultMaxAttempts, "NoLimit": ourNoLimit, "NestedRetry": ourNestedRetry}
	for name, want := range constants {
		c, ok := scope.Lookup(name).(*types.Const)
		if !ok {
			t.Errorf("retry.%s: not a constant of the library", name)
			continue
		}
		if got, _ := constant.Int64Val(c.Val()); got != want {
			t.Errorf("retry.%s = %d, retrycheck assumes %d", name, got, want)
		}
	}
	if c, ok := scope.Lookup("NestedSingleAttempt").(*types.Const); !ok || !types.Identical(c.Type(), scope.Lookup("Nested").Type()) {
		t.Error("retry.NestedSingleAttempt: not a constant of type retry.Nested")
	} else if v, _ := constant.Int64Val(c.Val()); v == ourNestedRetry {
		t.Error("retry.NestedSingleAttempt is NestedRetry")
	}
	if got := defaultStatuses(t, retry); !slices.Equal(got, ourDefaultRetryableStatuses) {
		t.Errorf("retry.DefaultRetryableStatuses = %v, retrycheck assumes %v", got, ourDefaultRetryableStatuses)
	}

	for id, want := range ourFuncs {
		pkg := retry
		if strings.HasPrefix(id, ourHTTPPath+".") {
			pkg = retryhttp
		}
		f, ok := pkg.Types.Scope().Lookup(id[len(pkg.PkgPath)+1:]).(*types.Func)
		if !ok {
			t.Errorf("%s: not a function of the library", id)
			continue
		}
		if got := typeOf(f.Type()); got != want {
			t.Errorf("%s is %s, want %s", id, got, want)
		}
	}
}

// ourPackage returns the library's package path among the packages the tests loaded.
func ourPackage(t *testing.T, path string) *packages.Package {
	t.Helper()
	var found *packages.Package
	var roots []*packages.Package
	for _, p := range analyzed.pkgs {
		roots = append(roots, p)
	}
	packages.Visit(roots, func(p *packages.Package) bool {
		if p.PkgPath == path {
			found = p
		}
		return found == nil
	}, nil)
	if found == nil {
		t.Fatalf("%s: not loaded", path)
	}
	return found
}

// defaultStatuses evaluates the library's DefaultRetryableStatuses from its source.
func defaultStatuses(t *testing.T, retry *packages.Package) []int {
	t.Helper()
	for _, f := range retry.Syntax {
		for _, d := range f.Decls {
			var found []int
			ast.Inspect(d, func(n ast.Node) bool {
				spec, ok := n.(*ast.ValueSpec)
				if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "DefaultRetryableStatuses" || len(spec.Values) != 1 {
					return true
				}
				lit, ok := spec.Values[0].(*ast.CompositeLit)
				if !ok {
					t.Fatal("retry.DefaultRetryableStatuses is no longer a literal: read it another way")
				}
				for _, e := range lit.Elts {
					v, ok := constInt(retry.TypesInfo, e)
					if !ok {
						t.Fatalf("retry.DefaultRetryableStatuses: %v is not a constant", e)
					}
					found = append(found, int(v))
				}
				return false
			})
			if found != nil {
				return found
			}
		}
	}
	t.Fatal("retry.DefaultRetryableStatuses is gone")
	return nil
}
