package retrytest

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// IdempotencyKeyHeader is the request header a Script deduplicates POSTs by when
// Script.Dedupe is set (draft-ietf-httpapi-idempotency-key-header).
const IdempotencyKeyHeader = "Idempotency-Key"

// Action is what a [Step] does with its request.
type Action uint8

const (
	// Respond answers with the step's Status, Header and Body. It is the zero Action.
	Respond Action = iota
	// Reset closes the connection before reading the request: nothing is processed. A
	// client has usually sent its request already, so it cannot tell this from Drop.
	Reset
	// Drop reads and processes the request (a POST creates an order), then closes the
	// connection without an answer.
	Drop
	// Refuse fails before the request leaves the client, like a refused dial. Only a
	// [RoundTripper] can play it; [NewServer] rejects it.
	Refuse
)

// String returns "respond", "reset", "drop" or "refuse".
func (a Action) String() string {
	switch a {
	case Respond:
		return "respond"
	case Reset:
		return "reset"
	case Drop:
		return "drop"
	case Refuse:
		return "refuse"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Step is the scripted answer to one request.
type Step struct {
	// Action is what to do; the zero value is Respond.
	Action Action
	// Status is the response status for Respond, from 100 to 999; 0 means 200.
	Status int
	// Header holds response headers for Respond (for example Retry-After).
	Header http.Header
	// Body is the response body for Respond.
	Body string
	// Delay is how long to wait before acting (after reading the request, except for Reset
	// and Refuse); the request's context cuts it short. Under synctest it is fake time.
	Delay time.Duration
	// Err is the error a [RoundTripper] returns for Reset, Drop or Refuse instead of its
	// default one; nil means the default. A [Server] rejects it.
	Err error
}

// Script is what a [Server] or a [RoundTripper] plays.
type Script struct {
	// Steps answer the requests in arrival order; the last one repeats. None means 200.
	Steps []Step
	// Dedupe makes POSTs idempotent by their Idempotency-Key header: a key seen before
	// creates no new order, and a key seen with a different body is answered 422.
	Dedupe bool
}

// Received is a request as a Server or a RoundTripper saw it.
type Received struct {
	// Route is the pattern of the route that answered it (see [Routes]); "" for a plain
	// Script, or when no route matched.
	Route string
	// Step is the index in its script's Steps of the step that answered it; -1 when no route
	// matched (the request was answered 404).
	Step int
	// Action is what that step did.
	Action Action
	// Method, Path and Header are the request's; Header is a copy.
	Method, Path string
	Header       http.Header
	// Body is the request body as read; nil for Reset and Refuse, which read nothing.
	Body []byte
	// At is when the request arrived (fake time under synctest).
	At time.Time
	// Deadline is the request context's deadline; zero when none. Only a RoundTripper sees
	// the client's context; a Server leaves it zero.
	Deadline time.Time
}

// ledger plays a Script, or Routes, and keeps the counts; it is shared by Server and
// RoundTripper.
type ledger struct {
	mu       sync.Mutex
	mux      *http.ServeMux    // picks the route of a request; nil: routes[""] serves all
	routes   map[string]*route // by pattern
	received []Received
	orders   int
}

// route is one script with its own progress and idempotency keys.
type route struct {
	script Script
	served int               // requests this route has answered
	keys   map[string][]byte // Idempotency-Key → body of its first POST
}

func newLedger(s Script) (*ledger, error) {
	r, err := newRoute("", s)
	if err != nil {
		return nil, err
	}
	return &ledger{routes: map[string]*route{"": r}}, nil
}

// newRoute checks s's steps and copies them; the errors name the route's pattern, if any.
func newRoute(pattern string, s Script) (*route, error) {
	where := routePrefix(pattern)
	for i, st := range s.Steps {
		if st.Action > Refuse {
			return nil, fmt.Errorf("retrytest: %sstep %d has unknown Action %d: use Respond, Reset, Drop or Refuse", where, i, st.Action)
		}
		if st.Status != 0 && (st.Status < 100 || st.Status > 999) {
			return nil, fmt.Errorf("retrytest: %sstep %d has Status %d: an HTTP status is a number from 100 to 999, or 0 for 200", where, i, st.Status)
		}
		if st.Delay < 0 {
			return nil, fmt.Errorf("retrytest: %sstep %d has negative Delay %v: use zero or more", where, i, st.Delay)
		}
	}
	steps := append([]Step(nil), s.Steps...)
	return &route{script: Script{Steps: steps, Dedupe: s.Dedupe}, keys: map[string][]byte{}}, nil
}

// next picks the step for a request arriving now and records its arrival.
func (l *ledger) next(r *http.Request) (Step, int) {
	pattern := ""
	if l.mux != nil {
		_, pattern = l.mux.Handler(r)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rt, i, st := l.routes[pattern], -1, Step{}
	switch {
	case rt == nil:
		st = Step{Status: http.StatusNotFound, Body: fmt.Sprintf("retrytest: no route matches %s %s%s\n", r.Method, r.Host, r.URL.Path)}
	case len(rt.script.Steps) > 0:
		i = min(rt.served, len(rt.script.Steps)-1)
		st = rt.script.Steps[i]
		rt.served++
	default:
		i = rt.served
		rt.served++
	}
	rec := Received{Route: pattern, Step: i, Action: st.Action, Method: r.Method, Path: r.URL.Path,
		Header: r.Header.Clone(), At: time.Now()}
	rec.Deadline, _ = r.Context().Deadline()
	l.received = append(l.received, rec)
	return st, len(l.received) - 1
}

// process records the body of request n and, for a POST, creates an order when the step
// applies it. It returns the status to answer with: the step's, or 422 when Dedupe finds the
// request's key reused with another body.
func (l *ledger) process(n int, st Step, body []byte) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec := &l.received[n]
	rec.Body = body
	status := st.Status
	if status == 0 {
		status = http.StatusOK
	}
	applies := st.Action == Drop || (st.Action == Respond && status >= 200 && status < 300)
	if rec.Method != http.MethodPost || !applies || rec.Step < 0 {
		return status
	}
	rt := l.routes[rec.Route]
	if key := rec.Header.Get(IdempotencyKeyHeader); rt.script.Dedupe && key != "" {
		if first, seen := rt.keys[key]; seen {
			if !bytes.Equal(first, body) {
				return http.StatusUnprocessableEntity
			}
			return status
		}
		rt.keys[key] = body
	}
	l.orders++
	return status
}

func (l *ledger) requests() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.received)
}

func (l *ledger) ordersCreated() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.orders
}

func (l *ledger) all() []Received {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Received(nil), l.received...)
}

// errServerOnly is returned by NewServer for a step only a RoundTripper can play.
var errServerOnly = errors.New("only a RoundTripper can play it")
