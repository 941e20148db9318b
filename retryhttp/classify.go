package retryhttp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// idempotentMethod reports whether RFC 9110 section 9.2.2 makes method idempotent: GET, HEAD,
// OPTIONS, TRACE (safe), PUT and DELETE. "" means GET in net/http.
func idempotentMethod(method string) bool {
	switch method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// declinedStatus reports whether a status says the server did not process the request, so
// that even a non-idempotent one may be sent again: 429 Too Many Requests (RFC 6585 section
// 4), 503 Service Unavailable (RFC 9110 section 15.6.4) and 408 Request Timeout, sent when
// the server did not receive a complete request (RFC 9110 section 15.5.9).
func declinedStatus(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable ||
		status == http.StatusRequestTimeout
}

// permanentTransportError reports whether err is a failure a retry cannot fix: a server
// certificate that does not verify, or a TLS handshake with a server that is not speaking
// TLS.
func permanentTransportError(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &record)
}

// sendProbe learns from net/http/httptrace, attempt by attempt, whether the request may have
// reached the server and how many times the transport sent it. One probe serves a whole call
// (its trace is on the context every attempt derives from); begin starts an attempt. Its
// hooks run on net/http's goroutines, hence the atomics.
type sendProbe struct {
	trace     httptrace.ClientTrace
	askedConn atomic.Bool  // GetConn: the transport started to get a connection
	wrote     atomic.Bool  // WroteHeaders: the request's headers were written
	conns     atomic.Int32 // GotConn, over the call: one for every exchange the transport sent
}

// init sets p's hooks; p must not move afterwards.
func (p *sendProbe) init() {
	p.trace = httptrace.ClientTrace{
		GetConn:      func(string) { p.askedConn.Store(true) },
		GotConn:      func(httptrace.GotConnInfo) { p.conns.Add(1) },
		WroteHeaders: func() { p.wrote.Store(true) },
	}
}

// begin starts an attempt: it clears what the previous one reported and returns the count of
// connections so far, for resends. A hook of an earlier attempt that runs late may still
// mark this one as written: the safe side for a write.
func (p *sendProbe) begin() int32 {
	p.askedConn.Store(false)
	p.wrote.Store(false)
	return p.conns.Load()
}

// resends returns how many exchanges the transport sent again by itself in the attempt that
// began with count start: net/http gets a connection for every exchange it sends (a second
// one when it re-sends a request whose reused connection died, SPEC R3.3), and HTTP/2
// reports one for every retry of a refused stream.
func (p *sendProbe) resends(start int32) int {
	return max(0, int(p.conns.Load()-start)-1)
}

// sent reports whether the request may have reached the server in the current attempt: true
// unless the transport reported that it went to get a connection and never reported the
// headers written (a dial refused, a DNS failure, no route). A base RoundTripper that reports
// nothing counts as sent, the safe side for a write (SPEC R3.3).
func (p *sendProbe) sent() bool {
	return !p.askedConn.Load() || p.wrote.Load()
}
