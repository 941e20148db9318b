package retryhttp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
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

// declinedStatus reports whether a status says the server did not apply the request, so
// that even a non-idempotent one may be sent again: every 4xx, the server refusing the
// request as the client sent it (RFC 9110 section 15.5): 408 Request Timeout (no complete
// request received, section 15.5.9), 413 Content Too Large (section 15.5.14), 421
// Misdirected Request (section 15.5.20), 425 Too Early (RFC 8470 section 5.2), 429 Too Many
// Requests (RFC 6585 section 4), and any other 4xx that a policy retries; 503 Service
// Unavailable (RFC 9110 section 15.6.4); and 529, the overload refusal of Anthropic's API
// (overloaded_error, https://docs.anthropic.com/en/api/errors), which no registry lists. A
// keyed request's 409 is the exception its caller makes (call.settle): the original request
// with that key is still in progress. Whether a status is retried at all is the policy's to
// say (RetryableStatuses, Classifier); this says only that a retry of it cannot apply a
// write twice.
func declinedStatus(status int) bool {
	return status >= 400 && status <= 499 || status == http.StatusServiceUnavailable || status == statusOverloaded
}

// statusOverloaded is the status of Anthropic's overloaded_error.
const statusOverloaded = 529

// advice is what a response's x-should-retry header says, the word the APIs of OpenAI and
// Anthropic give on a failure, above its status.
type advice uint8

const (
	noAdvice    advice = iota // no header, or a value other than true or false
	adviseRetry               // "true": retry, as a declined request (the server did not apply it)
	adviseStop                // "false": do not retry
)

// adviceOf reads the x-should-retry header of a response's header h (case-insensitive
// "true" or "false", spaces around ignored).
func adviceOf(h http.Header) advice {
	v := h["X-Should-Retry"]
	if len(v) == 0 {
		return noAdvice
	}
	switch w := strings.Trim(v[0], " \t"); {
	case strings.EqualFold(w, "true"):
		return adviseRetry
	case strings.EqualFold(w, "false"):
		return adviseStop
	}
	return noAdvice
}

// ErrInvalidStatus is the error of an attempt whose response has a status outside 100-599,
// which RFC 9110 section 15 does not define: a server that writes a status line such as
// "HTTP/1.1 999 Odd", which net/http delivers as it is, or a RoundTripper that returns a
// response with status 0. It is a retryable failure, never a success, and for a write an
// unknown outcome (the server answered something); the response is drained and closed.
// errors.Is(err, ErrInvalidStatus) holds for the loop's error when it stops on one.
var ErrInvalidStatus = errors.New("retryhttp: invalid response status")

// invalidStatus returns the error of a response status outside 100-599, or nil.
func invalidStatus(status int) error {
	if status >= 100 && status <= 599 {
		return nil
	}
	return fmt.Errorf("%w %d: an HTTP status is from 100 to 599", ErrInvalidStatus, status)
}

// refusedMessages begin the messages of net/http's errors for a request it refuses to send
// at all, found before it writes a byte of it: an invalid header or trailer field name or
// value, method, scheme or Host, a control byte in the URL, no URL, header or host. net/http
// exports no types for them, so they are known by their text (as of Go 1.26, HTTP/1 and
// HTTP/2), and only at the start of a message: net/http quotes what a server sent inside
// its own errors ("malformed MIME header line: ..."), and a server's words must not pass for
// a refusal of a request it has read.
var refusedMessages = []string{
	"net/http: invalid header ",
	"net/http: invalid trailer ",
	"net/http: invalid method ",
	"unsupported protocol scheme",
	"http: nil Request.URL",
	"http: nil Request.Header",
	"http: no Host in request URL",
	"http: invalid Host header",
	"invalid Host header", // http2
	"net/http: can't write control character in Request.URL",
	"http: Request.Write on Request with no Host or URL set",
}

// refusedRequest reports whether err is net/http refusing to send the request at all (see
// refusedMessages): err, or an error it wraps, has a message that begins with one of them.
// Nothing reached the server, so not even a write is in doubt; and the same request is
// refused every time, so a retry cannot help: the attempt is a permanent failure, for every
// method.
func refusedRequest(err error) bool {
	return anyMessage(err, func(msg string) bool {
		for _, m := range refusedMessages {
			if strings.HasPrefix(msg, m) {
				return true
			}
		}
		return false
	})
}

// anyMessage reports whether match holds for the message of err or of an error it wraps
// (errors.Unwrap, either form). Matching each message from its start, rather than searching
// the outermost one, keeps text that net/http quotes from a server from being read as
// net/http's own words.
func anyMessage(err error, match func(msg string) bool) bool {
	for err != nil {
		if match(err.Error()) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if anyMessage(e, match) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// permanentTransportError reports whether err is a failure a retry cannot fix: a server
// certificate that does not verify, a TLS handshake with a server that is not speaking
// TLS, or an address the dialer cannot even read (a port out of range, "[::1" in the URL's
// host: *net.AddrError), found before any connection.
func permanentTransportError(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
		address  *net.AddrError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &record) || errors.As(err, &address)
}

// dialFailed reports whether err is a failure to dial the server or the proxy (a refused
// connection, a DNS failure, no route: a *net.OpError of the dial): nothing of the request
// was written. net/http re-dials by itself after a kept-alive connection died, so with a
// reused connection an earlier exchange of the attempt may have been written; the probe
// of a traced call says so (see sendProbe.sent).
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect")
}
