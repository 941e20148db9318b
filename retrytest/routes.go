package retrytest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
)

// Routes gives each kind of request a [Script] of its own, for a client with several
// upstreams, or for a write and the lookup that reconciles it: each route plays its steps
// for its own requests only, so a GET looking up an order does not consume the next step
// scripted for the POST that created it.
//
// A key is a net/http [http.ServeMux] pattern, "[METHOD ][HOST]/[PATH]", matched and ranked
// as ServeMux does (the most specific pattern wins; a pattern with a host wins over one
// without): "pricing.test/" takes every request to host pricing.test, "POST /orders" every
// POST to /orders on any host, "GET /orders/{id}" the lookups. A [Server] sees its own
// address as the host, so its routes usually name methods and paths; a [RoundTripper] sees
// the request URL's host, so it can stand for several upstreams at once. A request that no
// route matches is answered 404 with a body naming it, and recorded with Step -1.
//
// Counts (Requests, Orders, Received) cover all the routes; Received.Route says which
// route answered each request. Dedupe applies per route.
type Routes map[string]Script

// NewRoutedServer is [NewServer] for a script per route: it starts a server on a free port
// of 127.0.0.1 that answers each request by the script of the route it matches. It returns
// NewServer's errors, naming the route, and an error for a pattern ServeMux rejects (not a
// pattern, or one that conflicts with another).
func NewRoutedServer(routes Routes) (*Server, error) {
	l, err := newRoutedLedger(routes)
	if err != nil {
		return nil, err
	}
	return startServer(l)
}

// NewRoutedRoundTripper is [NewRoundTripper] for a script per route. It returns an error for
// an invalid step, naming the route, and for a pattern ServeMux rejects.
func NewRoutedRoundTripper(routes Routes) (*RoundTripper, error) {
	l, err := newRoutedLedger(routes)
	if err != nil {
		return nil, err
	}
	return &RoundTripper{ledger: l}, nil
}

func newRoutedLedger(routes Routes) (*ledger, error) {
	if len(routes) == 0 {
		return nil, fmt.Errorf("retrytest: no routes: give at least one pattern and its script")
	}
	l := &ledger{mux: http.NewServeMux(), routes: make(map[string]*route, len(routes))}
	for _, p := range slices.Sorted(maps.Keys(routes)) { // the first bad route named is the same on every run
		r, err := newRoute(p, routes[p])
		if err != nil {
			return nil, err
		}
		if err := register(l.mux, p); err != nil {
			return nil, err
		}
		l.routes[p] = r
	}
	return l, nil
}

// register adds pattern to mux, turning ServeMux's panic on a bad pattern into an error.
func register(mux *http.ServeMux, pattern string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("retrytest: route %q: %v", pattern, p)
		}
	}()
	if pattern == "" {
		return fmt.Errorf("retrytest: route \"\": a pattern is \"[METHOD ][HOST]/[PATH]\", such as \"/\" or \"POST /orders\"")
	}
	mux.Handle(pattern, http.NotFoundHandler()) // never called: only the pattern matters
	return nil
}

// routePrefix begins an error about the route of pattern: "route \"POST /orders\": ", or ""
// for a plain Script (pattern "").
func routePrefix(pattern string) string {
	if pattern == "" {
		return ""
	}
	return fmt.Sprintf("route %q: ", pattern)
}
