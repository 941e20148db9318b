package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// follow sends first through client and, with -L, each request a redirect asks for, at most
// --max-redirs of them, and returns the last answer. Each request is retried on its own, as
// the policy says: a retry sends again the request that failed, not the chain from its
// start. The overall deadline (--timeout) is the first request's: each later one gets what
// is left of it. With --include, the status line and headers of every redirect followed
// are written before the final response, as curl -i -L writes them.
//
// The request a redirect asks for is the one RFC 9110 section 15.4 and curl describe: after
// a 301 or 302 a POST becomes a GET without its body, after a 303 every method but HEAD
// does; otherwise (300, 307, 308) the method and the body are sent again unchanged. The
// credentials given (-u, a URL's user info, the Authorization, Cookie and X-Api-Key
// headers) go only to the first URL's origin (scheme, host and port): a redirect elsewhere
// is sent without them, as curl does without --location-trusted.
func (o *httpOptions) follow(client *http.Client, first *http.Request, body []byte, d *download, p *retry.Policy) (*http.Response, error) {
	start, timeout := time.Now(), p.Timeout
	h := hop{method: first.Method, body: body}
	req := first
	for redirects := 0; ; redirects++ {
		resp, err := client.Do(req)
		if err != nil || !o.location {
			return resp, err
		}
		next, err := h.next(first, req, resp)
		switch {
		case err != nil:
			discardBody(resp)
			return nil, err
		case next == nil:
			return resp, nil
		case redirects == o.maxRedirs:
			discardBody(resp)
			return nil, fmt.Errorf("not following a %d to %s: -L followed %d redirects, the most --max-redirs allows",
				resp.StatusCode, retryhttp.RedactURL(next.URL), o.maxRedirs)
		}
		if o.include {
			if err := writeHeader(d.out, resp); err != nil {
				discardBody(resp)
				return nil, err
			}
			d.out.keepWritten()
		}
		discardBody(resp)
		if timeout != retry.NoLimit {
			p.Timeout = max(timeout-time.Since(start), time.Nanosecond) // spent: the loop stops with deadline_exceeded
		}
		d.nextRequest()
		req = next
	}
}

// redirectStatuses are the statuses -L follows when they carry a Location (RFC 9110
// sections 15.4.1-15.4.9; 304 is no redirect, 305 and 306 are deprecated).
var redirectStatuses = []int{300, 301, 302, 303, 307, 308}

// hop is what the next request of a redirect chain sends: the method and body, which a
// redirect may change.
type hop struct {
	method string
	body   []byte // nil: no body
}

// next returns the request that resp, the answer to prev, redirects to, with first's
// headers less those the rules of follow leave out, and updates h; nil when resp is no
// redirect to follow. Its error says why a redirect cannot be followed: a Location that is
// not a URL, or not an http or https one.
func (h *hop) next(first, prev *http.Request, resp *http.Response) (*http.Request, error) {
	location := resp.Header.Get("Location")
	if location == "" || !containsInt(redirectStatuses, resp.StatusCode) {
		return nil, nil
	}
	target, err := prev.URL.Parse(location)
	if err != nil {
		return nil, fmt.Errorf("not following a %d: its Location is not a URL (not shown: it may hold a secret)", resp.StatusCode)
	}
	if target.Scheme != "http" && target.Scheme != "https" {
		return nil, fmt.Errorf("not following a %d to a %s: URL: retry http speaks http and https", resp.StatusCode, target.Scheme)
	}
	target.Fragment, target.RawFragment = "", ""
	sameOrigin := origin(target) == origin(first.URL)
	if sameOrigin && target.User == nil {
		target.User = first.URL.User // the first URL's credentials, for its origin
	}
	switch code := resp.StatusCode; {
	case code == http.StatusSeeOther && h.method != http.MethodHead,
		(code == http.StatusMovedPermanently || code == http.StatusFound) && h.method == http.MethodPost:
		h.method, h.body = http.MethodGet, nil
	}
	var reader io.Reader
	if h.body != nil {
		reader = bytes.NewReader(h.body) // with a GetBody: every attempt sends it again
	}
	next, err := http.NewRequestWithContext(first.Context(), h.method, target.String(), reader)
	if err != nil {
		return nil, fmt.Errorf("not following a %d to %s: %v", resp.StatusCode, retryhttp.RedactURL(target), err)
	}
	next.Header = first.Header.Clone()
	if h.body == nil {
		next.Header.Del("Content-Type")
	}
	if h.method != first.Method {
		next.Header.Del(retryhttp.DefaultIdempotencyKeyHeader) // the key was the write's
	}
	if sameOrigin {
		next.Host = first.Host // a Host header given with -H
	} else {
		for _, name := range credentialHeaders {
			next.Header.Del(name)
		}
	}
	return next, nil
}

// credentialHeaders are the request headers that -L sends to the first URL's origin only:
// -u's Authorization, and the credentials given with -H.
var credentialHeaders = []string{"Authorization", "Cookie", "X-Api-Key"}

// origin returns u's origin (RFC 6454): its scheme, host and port, the port a scheme's
// default when u has none.
func origin(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// discardBody drains (up to 64 KiB, so that the connection is reused) and closes the body
// of a response not written out.
func discardBody(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
