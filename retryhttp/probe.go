package retryhttp

import (
	"net/http/httptrace"
	"sync/atomic"
)

// sendProbe learns from net/http/httptrace, attempt by attempt, whether the request may have
// reached the server and how many times the transport sent it. One probe serves a whole call
// (its trace is on the context every attempt derives from); begin starts an attempt. Its
// hooks run on net/http's goroutines, hence the atomics.
type sendProbe struct {
	trace     httptrace.ClientTrace
	askedConn atomic.Bool  // GetConn: the transport started to get a connection
	wrote     atomic.Bool  // WroteHeaders, or WroteRequest: bytes of the request were written
	conns     atomic.Int32 // GotConn, over the call: one for every exchange the transport sent
	// refusal is the error WroteRequest reported when net/http refused to write the
	// attempt's request (refusedRequest), nil otherwise.
	refusal atomic.Pointer[error]
}

// init sets p's hooks; p must not move afterwards.
func (p *sendProbe) init() {
	p.trace = httptrace.ClientTrace{
		GetConn:      func(string) { p.askedConn.Store(true) },
		GotConn:      func(httptrace.GotConnInfo) { p.conns.Add(1) },
		WroteHeaders: func() { p.wrote.Store(true) },
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			switch { // a failed write may have written nothing; WroteHeaders says if it did
			case info.Err == nil:
				p.wrote.Store(true)
			case refusedRequest(info.Err):
				p.refusal.Store(&info.Err)
			}
		},
	}
}

// begin starts an attempt: it clears what the previous one reported and returns the count of
// connections so far, for resends. A hook of an earlier attempt that runs late may still
// mark this one as written: the safe side for a write.
func (p *sendProbe) begin() int32 {
	p.askedConn.Store(false)
	p.wrote.Store(false)
	p.refusal.Store(nil)
	return p.conns.Load()
}

// cause returns the error the current attempt failed with, given err, the one the transport
// returned: net/http's refusal to write the request when WroteRequest reported one, else err.
// net/http's HTTP/1 transport finds some refusals (a control byte in the URL, an invalid Host)
// only as it writes the request, then closes the connection; its RoundTrip returns either the
// refusal or, at random, the read error of that closed connection ("use of closed network
// connection"), which alone would make a refused request look like a network failure worth
// a retry. The hook has run before RoundTrip returns (its writer has ended by then). An
// untraced call (a GET nobody watches) cannot tell; its next attempt meets the refusal.
func (p *sendProbe) cause(err error) error {
	if refusal := p.refusal.Load(); refusal != nil {
		return *refusal
	}
	return err
}

// resends returns how many exchanges the transport sent again by itself in the attempt that
// began with count start: net/http gets a connection for every exchange it sends (a second
// one when it re-sends a request whose reused connection died), and HTTP/2
// reports one for every retry of a refused stream.
func (p *sendProbe) resends(start int32) int {
	return max(0, int(p.conns.Load()-start)-1)
}

// sent reports whether the request may have reached the server in the current attempt,
// which ended with err (nil for a response): "sent" means that bytes of the request were
// written, as the transport reports with WroteHeaders or WroteRequest. It is false when the
// transport went to get a connection and reported nothing written (a dial refused, a DNS
// failure, no route), and when err is net/http's own refusal to send the request (see
// refusedRequest), which comes before any connection. A base RoundTripper that reports
// nothing at all counts as sent, the safe side for a write.
func (p *sendProbe) sent(err error) bool {
	if p.wrote.Load() {
		return true
	}
	if p.askedConn.Load() {
		return false
	}
	return err == nil || !refusedRequest(err)
}
