package retryhttp

import (
	"errors"
	"fmt"
	"strings"
)

// streamError has the fields of net/http's HTTP/2 stream error, which converts itself into
// any struct of that shape for errors.As: the way to read its code with the standard
// library only.
type streamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

// Error makes streamError an error, as errors.As requires of its target.
func (e streamError) Error() string {
	return fmt.Sprintf("stream error: stream ID %d; code %d", e.StreamID, e.Code)
}

// refusedStream is REFUSED_STREAM's code (RFC 9113 section 7).
const refusedStream = 0x7

// unprocessed reports whether err says that the server did not process the request: an
// HTTP/2 stream it refused with REFUSED_STREAM (RFC 9113 section 8.7), or a stream above the
// last stream id of its GOAWAY (section 6.8), which net/http aborts with an error of its own.
// net/http re-sends such a request by itself when it can rewind the body; when it cannot, it
// reports the cause only in its error's text ("cannot retry err [...] after Request.Body was
// written"), which is why the text is read too.
func unprocessed(err error) bool {
	var se streamError
	if errors.As(err, &se) {
		return se.Code == refusedStream
	}
	msg := err.Error()
	return strings.Contains(msg, "; REFUSED_STREAM") ||
		strings.Contains(msg, "http2: Transport received Server's graceful shutdown GOAWAY") ||
		strings.Contains(msg, "http2: Transport received GOAWAY from server")
}
