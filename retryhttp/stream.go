package retryhttp

import (
	"net/http"
	"strings"
)

// preloads reports whether Transport.PreloadBody reads resp's body within the attempt: not
// the event stream of a request that is not idempotent (a streamed generation, such as a
// chat completion with "stream": true), unless Transport.ResendBrokenStreams, so that the
// stream reaches the caller as it comes and a break in it never sends the request again.
func (c *call) preloads(resp *http.Response) bool {
	return c.t.ResendBrokenStreams || idempotentMethod(c.req.Method) || !eventStream(resp.Header)
}

// eventStream reports whether a response's header h says its body is a stream of
// server-sent events (Content-Type: text/event-stream, WHATWG HTML section 9.2).
func eventStream(h http.Header) bool {
	v := h["Content-Type"]
	if len(v) == 0 {
		return false
	}
	media, _, _ := strings.Cut(v[0], ";")
	return strings.EqualFold(strings.Trim(media, " \t"), "text/event-stream")
}
