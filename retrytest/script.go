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
	// Step is the index in Script.Steps of the step that answered it.
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

// ledger plays a Script and keeps its counts; it is shared by Server and RoundTripper.
type ledger struct {
	mu       sync.Mutex
	script   Script
	received []Received
	orders   int
	keys     map[string][]byte // Idempotency-Key → body of its first POST
}

func newLedger(s Script) (*ledger, error) {
	for i, st := range s.Steps {
		if st.Action > Refuse {
			return nil, fmt.Errorf("retrytest: step %d has unknown Action %d: use Respond, Reset, Drop or Refuse", i, st.Action)
		}
		if st.Status != 0 && (st.Status < 100 || st.Status > 999) {
			return nil, fmt.Errorf("retrytest: step %d has Status %d: an HTTP status is a number from 100 to 999, or 0 for 200", i, st.Status)
		}
		if st.Delay < 0 {
			return nil, fmt.Errorf("retrytest: step %d has negative Delay %v: use zero or more", i, st.Delay)
		}
	}
	steps := append([]Step(nil), s.Steps...)
	return &ledger{script: Script{Steps: steps, Dedupe: s.Dedupe}, keys: map[string][]byte{}}, nil
}

// next picks the step for a request arriving now and records its arrival.
func (l *ledger) next(r *http.Request) (Step, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, st := len(l.received), Step{}
	if n := len(l.script.Steps); n > 0 {
		i = min(i, n-1)
		st = l.script.Steps[i]
	}
	rec := Received{Step: i, Action: st.Action, Method: r.Method, Path: r.URL.Path,
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
	if rec.Method != http.MethodPost || !applies {
		return status
	}
	if key := rec.Header.Get(IdempotencyKeyHeader); l.script.Dedupe && key != "" {
		if first, seen := l.keys[key]; seen {
			if !bytes.Equal(first, body) {
				return http.StatusUnprocessableEntity
			}
			return status
		}
		l.keys[key] = body
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
