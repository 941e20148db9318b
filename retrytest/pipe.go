package retrytest

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// PipeServer serves an http.Handler with net/http's own HTTP/1.1 server over in-memory
// connections (net.Pipe) instead of sockets. The exchanges are net/http's, byte for byte
// (headers, chunked and streamed bodies, a connection the handler hijacks and closes), and a
// goroutine waiting on one is durably blocked, so that the server and its clients can run
// inside a testing/synctest bubble, on its fake clock: a server on 127.0.0.1 cannot, since a
// goroutine reading a socket is not durably blocked. Use it to play an API whose real
// servers a test cannot reach, with the waits it asks for checked exactly.
//
// Create it inside the bubble, send requests through [PipeServer.Transport], and call
// [PipeServer.Close] before the bubble's function returns (a deferred Close does): it also
// closes the idle connections of the transports it made, so that no goroutine of theirs
// outlives the bubble. It is safe for concurrent use.
type PipeServer struct {
	// URL is "http://pipe.test", a base URL for requests: through Transport, any host
	// reaches the server.
	URL string

	srv         *http.Server
	conns       chan net.Conn
	closed      chan struct{}
	closeOnce   sync.Once
	served      chan struct{}
	connections atomic.Int64

	mu         sync.Mutex
	transports []*http.Transport
}

// NewPipeServer starts serving h on in-memory connections.
func NewPipeServer(h http.Handler) *PipeServer {
	s := &PipeServer{URL: "http://pipe.test", conns: make(chan net.Conn), closed: make(chan struct{}),
		served: make(chan struct{})}
	s.srv = &http.Server{Handler: h, ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.connections.Add(1)
		}
	}}
	go func() {
		defer close(s.served)
		s.srv.Serve(pipeListener{s})
	}()
	return s
}

// Transport returns a new *http.Transport whose every connection, whatever the request's
// host, is a new in-memory connection to the server. A dial after Close fails with
// net.ErrClosed.
func (s *PipeServer) Transport() *http.Transport {
	t := &http.Transport{DialContext: s.dial}
	s.mu.Lock()
	s.transports = append(s.transports, t)
	s.mu.Unlock()
	return t
}

func (s *PipeServer) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case s.conns <- server:
		return client, nil
	case <-s.closed:
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
	client.Close()
	server.Close()
	return nil, net.ErrClosed
}

// Connections returns how many connections the server has accepted: 1 for any number of
// requests on a reused connection.
func (s *PipeServer) Connections() int { return int(s.connections.Load()) }

// Close stops the server: it closes the idle connections of the transports it made, then
// every connection but those a handler hijacked, and returns once the server stopped
// accepting. Handlers still running go on until they return. A connection whose response
// body its client never closed stays open: close every body.
func (s *PipeServer) Close() {
	s.mu.Lock()
	for _, t := range s.transports {
		t.CloseIdleConnections()
	}
	s.mu.Unlock()
	s.closeOnce.Do(func() { close(s.closed) })
	s.srv.Close()
	<-s.served
}

// pipeListener hands the server the connections that dial makes.
type pipeListener struct{ s *PipeServer }

func (l pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.s.conns:
		return c, nil
	case <-l.s.closed:
		return nil, net.ErrClosed
	}
}

func (l pipeListener) Close() error {
	l.s.closeOnce.Do(func() { close(l.s.closed) })
	return nil
}

func (pipeListener) Addr() net.Addr { return pipeAddr{} }

// pipeAddr is the address of a PipeServer.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe.test:80" }
