package retrytest

import (
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"time"
)

// Server is a scripted flaky HTTP/1.1 server listening on 127.0.0.1 only. Create it with
// [NewServer] (one script for every request) or [NewRoutedServer] (a script per route) and
// stop it with [Server.Close]. It is safe for concurrent use.
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:PORT".
	URL string

	ts          *httptest.Server
	ledger      *ledger
	connections atomic.Int64
}

// NewServer starts a server playing s on a free port of 127.0.0.1. It returns an error for
// an invalid step (an unknown Action, a Status outside 100-999, a negative Delay), for a step
// only a RoundTripper can play (Refuse, or one with Err set) and when it cannot listen.
func NewServer(s Script) (*Server, error) {
	l, err := newLedger(s)
	if err != nil {
		return nil, err
	}
	return startServer(l)
}

// startServer checks that l has no step only a RoundTripper can play, and starts a server
// playing it.
func startServer(l *ledger) (*Server, error) {
	for _, pattern := range slices.Sorted(maps.Keys(l.routes)) { // the same route named on every run
		for i, st := range l.routes[pattern].script.Steps {
			if st.Action == Refuse || st.Err != nil {
				return nil, fmt.Errorf("retrytest: %sstep %d (%v, Err %v): %w", routePrefix(pattern), i, st.Action, st.Err, errServerOnly)
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("retrytest: listen on 127.0.0.1: %w", err)
	}
	srv := &Server{ledger: l}
	srv.ts = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(srv.serve),
		ConnState: srv.connState, ReadHeaderTimeout: 10 * time.Second}}
	srv.ts.Start()
	srv.URL = srv.ts.URL
	return srv, nil
}

// Close stops the server, closes its connections and waits for its handlers to return.
func (s *Server) Close() { s.ts.Close() }

// Requests returns how many requests have arrived, Reset ones included.
func (s *Server) Requests() int { return s.ledger.requests() }

// Connections returns how many TCP connections the server has accepted: 1 for any number
// of requests on a reused connection.
func (s *Server) Connections() int { return int(s.connections.Load()) }

// Orders returns how many orders POSTs have created (see [Script]).
func (s *Server) Orders() int { return s.ledger.ordersCreated() }

// Received returns a copy of the requests received so far, in arrival order.
func (s *Server) Received() []Received { return s.ledger.all() }

func (s *Server) connState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		s.connections.Add(1)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	st, n := s.ledger.next(r)
	if st.Action == Reset {
		if !pause(r, st.Delay) {
			return
		}
		closeConn(w, true)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away mid-body
	}
	status := s.ledger.process(n, st, body)
	if !pause(r, st.Delay) {
		return
	}
	if st.Action == Drop {
		closeConn(w, false)
		return
	}
	for k, v := range st.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	if status == http.StatusUnprocessableEntity && st.Status != status {
		io.WriteString(w, "retrytest: Idempotency-Key reused with a different body\n")
		return
	}
	io.WriteString(w, st.Body)
}

// pause waits d, or less when the request's context ends; it reports whether to go on.
func pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// closeConn takes over the connection and closes it without an answer; with reset it asks
// the kernel to send a TCP RST instead of a FIN.
func closeConn(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // not HTTP/1: abort the stream instead
	}
	if tcp, ok := conn.(*net.TCPConn); ok && reset {
		tcp.SetLinger(0)
	}
	conn.Close()
}
