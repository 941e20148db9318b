package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// download is the base RoundTripper of retry http, under retryhttp.Transport: it sends each
// attempt and writes the body of the response retry http keeps (a 2xx status that
// --retry-on does not name) to the output within the attempt. A body that breaks (cut off,
// a connection reset, --attempt-timeout) is then the attempt's error, which the retry loop
// retries like any failure after sending: for an idempotent request or one with a key; a
// write without a key is an unknown outcome and is not sent again.
//
// A retry after output began resumes it, as wget does, when the response allows it: a GET
// answered with Accept-Ranges: bytes and a strong validator (an ETag that is not weak, or a
// Last-Modified at least a second before the response's Date, RFC 9110 section 8.8.2.2) is
// sent again with Range: bytes=N- and If-Range (RFC 9110 sections 14.2, 13.1.5); a 206 whose
// Content-Range starts at N is appended; a 200 (the entity changed, or ranges are ignored)
// starts over. Output is never duplicated or corrupted: --output's temporary file is emptied
// to start over, while bytes written to stdout (or to a file written in place) are never
// written again: when such output cannot be resumed, the next attempt fails with a
// *cannotResume (exit 3) instead of sending.
//
// The event stream (text/event-stream) of a request that is not idempotent, such as a chat
// completion with "stream": true, is not resent when it breaks, key or no key, unless
// resendStreams (--resend-broken-stream): the generation ran, and a resent one may be billed
// twice. The attempt is then an unknown outcome (exit 4), as a write whose answer was lost.
//
// A download serves one request, whose attempts run one after another, but for hedges
// (--hedge), which run beside the attempt they copy: the first attempt with a response to
// keep claims the output, and any other that gets one while it writes fails at once (its
// record says why); a hedge never resumes, and is not sent once output began.
type download struct {
	base          http.RoundTripper
	out           *bodyOutput
	include       bool
	retryOn       []int
	resendStreams bool

	attempts  int
	resumedAt map[int]int64 // the offset each resuming attempt asked for, by attempt number
	began     bool          // something of a kept response was written to out
	written   int64         // body bytes of that response written to out
	validator string        // its If-Range value; "" when it cannot be resumed
	noRange   string        // why it cannot be resumed, when validator is ""
	complete  bool          // a kept response was written whole

	// Between an attempt and its hedges, mu guards claimed (an attempt is writing a kept
	// response to out) and resumed (the attempt began with output begun: it resumes or
	// restarts it, and no hedge is sent). The fields above are read and written by one
	// attempt at a time: the one that holds the claim, or the attempt before its hedges.
	mu      sync.Mutex
	claimed bool
	resumed bool
}

// errOutputClaimed is the error of an attempt that got a response to keep while another
// attempt of the request (its hedge, or the attempt it hedges) was writing one.
var errOutputClaimed = errors.New("another attempt of this request is writing its response")

// errOutputBegan is the error of a hedge asked for once output began: it could not add to it.
var errOutputBegan = errors.New("the output began with another attempt's response: a hedge cannot continue it")

// claim reports whether the calling attempt may write a kept response to the output: none
// other is writing one. Its release lets the next.
func (d *download) claim() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.claimed {
		return false
	}
	d.claimed = true
	return true
}

func (d *download) release() {
	d.mu.Lock()
	d.claimed = false
	d.mu.Unlock()
}

// newDownload returns the download of one request to out; transport sets its base.
func newDownload(out *bodyOutput, include bool, retryOn []int) *download {
	return &download{out: out, include: include, retryOn: retryOn, resumedAt: map[int]int64{}}
}

// RoundTrip sends attempt req, resuming or restarting the output an earlier attempt began.
func (d *download) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, hedge := retry.HedgeOf(req.Context()); hedge > 0 {
		return d.hedge(req)
	}
	d.attempts++
	began := d.began
	d.mu.Lock()
	d.resumed = began
	d.mu.Unlock()
	resuming := false
	if d.began {
		switch {
		case d.written > 0 && d.validator != "":
			resuming = true
			req = req.Clone(req.Context())
			req.Header.Set("Range", "bytes="+strconv.FormatInt(d.written, 10)+"-")
			req.Header.Set("If-Range", d.validator)
			d.resumedAt[d.attempts] = d.written
		case d.out.restart():
			d.began, d.written = false, 0
		default:
			return nil, d.cannotResume(d.noRange)
		}
	}
	resp, err := d.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	kept := d.keeps(resp)
	if kept {
		if !d.claim() {
			discardBody(resp)
			return nil, errOutputClaimed
		}
		defer d.release()
		if d.began && !began { // a hedge wrote its response meanwhile (read under the claim)
			discardBody(resp)
			return nil, errOutputClaimed
		}
	}
	var part byteRange // of a 206 that continues the body
	switch {
	case !resuming:
	case kept && resp.StatusCode == http.StatusPartialContent:
		var ok bool
		if part, ok = parseContentRange(resp.Header.Get("Content-Range")); ok && part.first <= d.written && part.last >= d.written {
			break // it continues the body, from where it broke off or from before (the overlap is skipped)
		}
		discardBody(resp)
		why := fmt.Sprintf("the server's Content-Range %q does not continue at byte %d", resp.Header.Get("Content-Range"), d.written)
		if !d.out.restart() {
			return nil, d.cannotResume(why)
		}
		d.began, d.written = false, 0
		return nil, fmt.Errorf("%s: the next attempt starts over", why) // with a plain GET
	case kept && d.out.restart(): // a 200: the entity changed, or the server ignores ranges
		d.began, d.written = false, 0
	case kept:
		resp.Body.Close()
		return nil, d.cannotResume(fmt.Sprintf("the server answered the range request with %d, the whole body again (it changed, or ranges are ignored)", resp.StatusCode))
	case !slices.Contains(d.retryOn, resp.StatusCode) && d.out.restart():
		d.began, d.written = false, 0 // a final status (404, 416): finish writes it, from the start
	case !slices.Contains(d.retryOn, resp.StatusCode):
		resp.Body.Close()
		return nil, d.cannotResume(fmt.Sprintf("the server answered the range request with %s", resp.Status))
	}
	if !kept {
		return resp, nil // a status to retry, or a final one that finish writes whole
	}
	return d.write(req, resp, part)
}

// keeps reports whether resp is a response retry http keeps: a 2xx that --retry-on does not
// name.
func (d *download) keeps(resp *http.Response) bool {
	return resp.StatusCode >= 200 && resp.StatusCode < 300 && !slices.Contains(d.retryOn, resp.StatusCode)
}

// hedge sends req, a hedge of the attempt in flight, and writes its response when it is one
// to keep and no other attempt writes or has written output.
func (d *download) hedge(req *http.Request) (*http.Response, error) {
	if d.resumedOrClaimed() {
		return nil, errOutputBegan
	}
	resp, err := d.base.RoundTrip(req)
	if err != nil || !d.keeps(resp) {
		return resp, err
	}
	if !d.claim() {
		discardBody(resp)
		return nil, errOutputClaimed
	}
	defer d.release()
	if d.began { // the attempt wrote part of its response, and broke off (read under the claim)
		discardBody(resp)
		return nil, errOutputBegan
	}
	return d.write(req, resp, byteRange{})
}

// resumedOrClaimed reports whether the attempt in flight resumes output begun, or writes its
// response now.
func (d *download) resumedOrClaimed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.resumed || d.claimed
}

// write writes resp (status line and headers with --include, unless it continues the body
// written so far) and its body to the output. For a 206 that continues the body (part), the
// bytes before where it broke off are skipped: If-Range made them the same entity's, already
// written; a part that ends before the entity does leaves the body broken, to be resumed
// again.
func (d *download) write(req *http.Request, resp *http.Response, part byteRange) (*http.Response, error) {
	defer resp.Body.Close()
	if !d.began {
		d.began = true
		d.validator, d.noRange = resumeValidator(req, resp)
		if d.include {
			if err := writeHeader(d.out, resp); err != nil {
				return nil, retry.Permanent(err)
			}
		}
	}
	cut := func(received int64, err error) *bodyBroken {
		return &bodyBroken{written: d.written, status: resp.StatusCode, received: received, length: resp.ContentLength, err: err}
	}
	broken := func(received int64, err error) error {
		b := cut(received, err)
		if !d.resumable() && repeatable(req) && req.Context().Err() == nil {
			// Stdout holds bytes already and nothing can continue them: stop at this attempt
			// rather than at a next one that would send nothing (the record says what came).
			// A break the deadline caused stops the loop anyway, and says so.
			return retry.Permanent(&cannotResume{written: d.written, where: d.out.name, why: d.noRange, cut: b})
		}
		return b
	}
	var skipped int64
	if skip := d.written - part.first; part.set && skip > 0 {
		var err error
		if skipped, err = io.CopyN(io.Discard, resp.Body, skip); err != nil {
			return nil, broken(skipped, err)
		}
	}
	n, err := io.Copy(d.out, bodyReader{resp.Body})
	d.written += n
	var rerr readError
	switch {
	case errors.As(err, &rerr) && generation(req, resp) && !d.resendStreams:
		b := cut(skipped+n, rerr.err)
		b.stream = true
		return nil, retry.UnknownOutcome(b)
	case errors.As(err, &rerr):
		return nil, broken(skipped+n, rerr.err)
	case err != nil:
		return nil, retry.Permanent(&outputError{err})
	case part.set && part.length >= 0 && d.written < part.length:
		return nil, broken(skipped+n, fmt.Errorf("the 206 ended at byte %d of %d", d.written, part.length))
	}
	d.complete = true
	d.out.done()
	resp.Body = http.NoBody
	return resp, nil
}

// nextRequest readies d for the request a redirect leads to (follow): its attempts are
// numbered from 1 again, as its records are.
func (d *download) nextRequest() {
	d.attempts = 0
	clear(d.resumedAt)
}

// record adds to dec what the download knows of its attempt: where it resumed, and, when its
// body broke off, the response's status and how many bytes of how many came (body_bytes,
// body_length: DESIGN's record).
func (d *download) record(dec *retry.Decision) {
	if at := d.resumedAt[dec.Attempt]; at != 0 && !dec.Hedge {
		dec.AddAttrs(slog.Int64("resumed_from", at))
	}
	var b *bodyBroken
	if !errors.As(dec.Err, &b) {
		return
	}
	if dec.Status == 0 {
		dec.Status = b.status
	}
	dec.AddAttrs(slog.Int64("body_bytes", b.received))
	if b.length >= 0 {
		dec.AddAttrs(slog.Int64("body_length", b.length))
	}
}

// resumable reports whether output begun can go on at a next attempt: by a range request,
// or by starting over in a file.
func (d *download) resumable() bool { return d.validator != "" || d.out.restartable() }

// repeatable reports whether req is retried after it was sent: an idempotent method (RFC
// 9110 section 9.2.2) or an idempotency key. A write without one is an unknown outcome
// when its body breaks, and retryhttp says so.
func repeatable(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return req.Header.Get(retryhttp.DefaultIdempotencyKeyHeader) != ""
}

// cannotResume returns the permanent error of an attempt that cannot continue the output
// begun, and why.
func (d *download) cannotResume(why string) error {
	return retry.Permanent(&cannotResume{written: d.written, where: d.out.name, why: why})
}

// incomplete reports whether output began and the response was not written whole.
func (d *download) incomplete() bool { return d.began && !d.complete }

// resumeValidator returns the If-Range value that lets the body of resp, the answer to
// req, be resumed, or "" and why it cannot be.
func resumeValidator(req *http.Request, resp *http.Response) (validator, why string) {
	if req.Method != http.MethodGet {
		return "", "only a GET is resumed, this is a " + req.Method
	}
	if !slices.ContainsFunc(strings.Split(resp.Header.Get("Accept-Ranges"), ","), func(s string) bool {
		return strings.EqualFold(strings.TrimSpace(s), "bytes")
	}) {
		return "", "the response did not say Accept-Ranges: bytes"
	}
	if etag := resp.Header.Get("ETag"); etag != "" && !strings.HasPrefix(etag, "W/") {
		return etag, ""
	}
	modified, err := http.ParseTime(resp.Header.Get("Last-Modified"))
	date, derr := http.ParseTime(resp.Header.Get("Date"))
	if err == nil && derr == nil && date.Sub(modified) >= time.Second {
		return resp.Header.Get("Last-Modified"), ""
	}
	return "", "the response had no strong validator (an ETag that is not weak, or a Last-Modified a second before its Date)"
}

// byteRange is a 206's Content-Range: bytes first to last (inclusive) of length, -1 when
// the length is unknown ("*"). set is false for a response that is no range.
type byteRange struct {
	first, last, length int64
	set                 bool
}

// parseContentRange parses a Content-Range such as "bytes 10-99/100" or "bytes 10-99/*"
// (RFC 9110 section 14.4).
func parseContentRange(v string) (byteRange, bool) {
	rest, ok := strings.CutPrefix(v, "bytes ")
	span, length, ok2 := strings.Cut(rest, "/")
	first, last, ok3 := strings.Cut(span, "-")
	if !ok || !ok2 || !ok3 {
		return byteRange{}, false
	}
	r := byteRange{length: -1, set: true}
	var err1, err2, err3 error
	r.first, err1 = strconv.ParseInt(first, 10, 64)
	r.last, err2 = strconv.ParseInt(last, 10, 64)
	if length != "*" {
		r.length, err3 = strconv.ParseInt(length, 10, 64)
	}
	valid := err1 == nil && err2 == nil && err3 == nil && r.first >= 0 && r.last >= r.first &&
		(r.length < 0 || r.last < r.length)
	return r, valid
}

// generation reports whether resp, the answer to req, is the event stream of a request that
// is not idempotent: a streamed generation, never resent once it began.
func generation(req *http.Request, resp *http.Response) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return false
	}
	media, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(media), "text/event-stream")
}

// bodyBroken is the error of an attempt whose response body broke after written bytes.
type bodyBroken struct {
	written  int64 // body bytes written to the output in all
	status   int   // the response's status
	received int64 // body bytes of this response that came, skipped ones included
	length   int64 // the length the response announced; -1 when it did not
	err      error
	stream   bool // a write's event stream, which is not sent again
}

func (e *bodyBroken) Error() string {
	msg := fmt.Sprintf("reading the response body after %d bytes: %v", e.written, e.err)
	if e.stream {
		msg += "; " + streamNotResent
	}
	return msg
}

// streamNotResent says why a write's broken event stream stops the loop.
const streamNotResent = "the event stream is not sent again, since a resent generation may be billed twice (--resend-broken-stream to resend it)"

func (e *bodyBroken) Unwrap() error { return e.err }

// cannotResume is the error of an attempt that could not continue the output an earlier
// one began: the bytes already written cannot be taken back (exit 3).
type cannotResume struct {
	written int64
	where   string // stdout, or the file written in place
	why     string
	cut     *bodyBroken // the break, when it is this attempt's; nil when an earlier one broke
}

// Unwrap returns the break of this attempt's body, if any.
func (e *cannotResume) Unwrap() error {
	if e.cut == nil {
		return nil
	}
	return e.cut
}

func (e *cannotResume) Error() string {
	return fmt.Sprintf("the response body broke off after %d bytes, already written to %s, and cannot be resumed there: %s",
		e.written, e.where, e.why)
}

// outputError is the error of writing the response out (exit 1).
type outputError struct{ err error }

func (e *outputError) Error() string { return "writing the response: " + e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

// transport returns the client for policy p that writes kept responses through d, over a
// net/http transport of its own. Attempts reuse the kept-alive connection, as curl does, so
// a retry costs no new TCP connection or TLS handshake; when net/http sends a request again
// by itself because the reused connection died, the attempt's record says so
// (transport_resends). Compression is not asked for, so that the bytes written are the bytes
// a Range request counts. rateGates, when set (--fleet), are the fleet's rate gates, in
// place of the Transport's own.
func (o *httpOptions) transport(p *retry.Policy, d *download, rateGates retryhttp.RateGateGroup) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DisableCompression = true
	if o.connectTimeout > 0 { // --connect-timeout: the dial, and the TLS handshake after it
		base.DialContext = (&net.Dialer{Timeout: o.connectTimeout, KeepAlive: 30 * time.Second}).DialContext
		base.TLSHandshakeTimeout = o.connectTimeout
	}
	// A proxy's refusal of a CONNECT tunnel (HTTPS_PROXY) is classified by its status:
	// 407 stops at once, 503 is retried.
	base.OnProxyConnectResponse = retryhttp.CheckProxyConnect
	d.base = base
	d.resendStreams = o.resendStream
	return &http.Client{
		Transport: &retryhttp.Transport{Base: d, Policy: p, RateGates: rateGates,
			AutoIdempotencyKey: o.idempotencyKey == "auto"},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
