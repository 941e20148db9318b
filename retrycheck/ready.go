package retrycheck

import (
	"go/ast"
	"go/types"
	"strings"
)

// testCode reports whether the loop is in test code: a _test.go file, or a function given
// a *testing.T, *testing.B, *testing.F or testing.TB (a test helper, wherever it lives).
func (a *checker) testCode(l *retryLoop) bool {
	if strings.HasSuffix(a.pass.Fset.Position(l.node.Pos()).Filename, "_test.go") {
		return true
	}
	ft := a.loops.funcs[l.funcBody]
	if ft == nil || ft.Params == nil {
		return false
	}
	for _, f := range ft.Params.List {
		t := a.pass.TypesInfo.TypeOf(f.Type)
		if t == nil {
			continue
		}
		for _, name := range []string{"T", "B", "F", "TB"} {
			if isNamed(t, "testing", name) {
				return true
			}
		}
	}
	return false
}

// starters are the calls that start a process, a server or a container: by function
// (path.Name, or path.Type.Name for a method), or by name for the container clients
// (Docker's ContainerStart, dockertest's Run and RunWithOptions, testcontainers'
// GenericContainer).
var starters = map[string]bool{
	"os/exec.Cmd.Start": true, "net/http/httptest.NewServer": true, "net/http/httptest.NewTLSServer": true,
	"net/http/httptest.Server.Start": true, "net/http/httptest.Server.StartTLS": true,
	"net/http.Server.ListenAndServe": true, "net/http.Server.ListenAndServeTLS": true, "net/http.Server.Serve": true,
	"net/http.ListenAndServe": true, "net/http.Serve": true,
}

var starterNames = map[string]bool{
	"ContainerStart": true, "StartContainer": true, "RunWithOptions": true, "GenericContainer": true,
}

// startsServer reports whether the function the loop is in starts, before the loop, a
// process, a server or a container (see starters): the loop then waits for what the code
// itself started.
func (a *checker) startsServer(l *retryLoop) bool {
	found := false
	ast.Inspect(l.funcBody, func(n ast.Node) bool {
		if found || n == nil || n.Pos() >= l.node.Pos() {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		f := callee(a.pass.TypesInfo, call)
		if f != nil && (starters[funcID(f)] || starterNames[f.Name()]) {
			found = true
		}
		return true
	})
	return found
}

// readinessWait reports whether a loop's request only asks whether a server is up, where
// any answer but the one awaited (a 404 before the routes are up) is worth asking again: a
// hand-written loop that only probes with its request (see probe) or is in a test file (a
// test waiting for the server it started), and a request that changes nothing (not a
// POST, PUT, PATCH or DELETE) sent by any loop in test code (a test helper given a
// *testing.T) or in a function that started a process, a server or a container before
// the loop.
func (a *checker) readinessWait(l *retryLoop, s *send, resp types.Object) bool {
	if l.hand != nil && (a.probe(l, s, resp) || strings.HasSuffix(a.pass.Fset.Position(s.call.Pos()).Filename, "_test.go")) {
		return true
	}
	switch a.method(s) {
	case "POST", "PUT", "PATCH", "DELETE":
		return false
	}
	return a.testCode(l) || a.startsServer(l)
}
