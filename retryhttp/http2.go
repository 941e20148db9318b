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
// reports the cause only in its error's text ("http2: Transport: cannot retry err [...] after
// Request.Body was written"), which is why the text is read too: only messages that begin
// with net/http's own words (see anyMessage), since net/http quotes what a server sent inside
// other errors, and a server that read a write must not make it look unprocessed.
func unprocessed(err error) bool {
	var se streamError
	if errors.As(err, &se) {
		return se.Code == refusedStream
	}
	return anyMessage(err, func(msg string) bool {
		if rest, ok := strings.CutPrefix(msg, "http2: Transport: cannot retry err ["); ok {
			msg = rest
			if rest, ok := strings.CutPrefix(msg, "stream error: stream ID "); ok {
				id, code, _ := strings.Cut(rest, "; ")
				return id != "" && strings.Trim(id, "0123456789") == "" &&
					(strings.HasPrefix(code, "REFUSED_STREAM;") || strings.HasPrefix(code, "REFUSED_STREAM]"))
			}
		}
		return strings.HasPrefix(msg, "http2: Transport received Server's graceful shutdown GOAWAY") ||
			strings.HasPrefix(msg, "http2: Transport received GOAWAY from server")
	})
}
