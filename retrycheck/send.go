package retrycheck

import (
	"go/ast"
	"go/types"
	"strings"
)

// send is one HTTP request sent by a call.
type send struct {
	call *ast.CallExpr
	// req is the request sent (Do, RoundTrip), nil for Get, Post, PostForm and Head.
	req ast.Expr
	// method is the request's method when the call names it (Post: "POST"), "" for Do.
	method string
	// body is the body argument of Post, nil otherwise.
	body ast.Expr
	// client is the receiver (the *http.Client, the RoundTripper), nil for http.Get and
	// the like.
	client ast.Expr
}

// isSend returns the request a call sends over HTTP, or nil: (*http.Client).Do, Get, Head,
// Post and PostForm, http.Get and the like, a RoundTrip, go-retryablehttp's, and any
// method with Do's signature, func(*http.Request) (*http.Response, error), as HTTP client
// interfaces declare it.
func isSend(info *types.Info, call *ast.CallExpr) *send {
	f := callee(info, call)
	if f == nil {
		return nil
	}
	sig := f.Type().(*types.Signature)
	s := &send{call: call}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sig.Recv() != nil {
		s.client = sel.X
	}
	path := ""
	if f.Pkg() != nil {
		path = basePath(f.Pkg().Path())
	}
	switch {
	case path == "net/http" || path == "github.com/hashicorp/go-retryablehttp" || path == "github.com/sethgrid/pester":
		switch f.Name() {
		case "Do", "RoundTrip":
			if len(call.Args) == 1 {
				s.req = call.Args[0]
				return s
			}
		case "Get", "Head":
			s.method = strings.ToUpper(f.Name())
			return s
		case "Post":
			s.method = "POST"
			if len(call.Args) == 3 {
				s.body = call.Args[2]
			}
			return s
		case "PostForm":
			s.method = "POST"
			return s
		}
		return nil
	}
	// A method shaped like Do or RoundTrip: func(*http.Request) (*http.Response, error).
	if sig.Recv() != nil && sig.Params().Len() == 1 && isRequest(sig.Params().At(0).Type()) &&
		sig.Results().Len() == 2 && isResponse(sig.Results().At(0).Type()) && isError(sig.Results().At(1).Type()) {
		s.req = call.Args[0]
		return s
	}
	return nil
}

// request is what the analysis knows of how a request was built.
type request struct {
	call   *ast.CallExpr // http.NewRequest(WithContext) or retryablehttp's
	method string        // its constant method, "" when not constant
	body   ast.Expr      // its body argument
}

// buildsRequest returns the request a call builds, or nil.
func buildsRequest(info *types.Info, call *ast.CallExpr) *request {
	id := funcID(callee(info, call))
	var m, b int
	switch id {
	case "net/http.NewRequest", "github.com/hashicorp/go-retryablehttp.NewRequest":
		m, b = 0, 2
	case "net/http.NewRequestWithContext", "github.com/hashicorp/go-retryablehttp.NewRequestWithContext":
		m, b = 1, 3
	default:
		return nil
	}
	if len(call.Args) <= b {
		return nil
	}
	r := &request{call: call, body: call.Args[b]}
	if s, ok := constString(info, call.Args[m]); ok {
		r.method = strings.ToUpper(s)
	}
	return r
}
