package retrygrpc

import (
	"strconv"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// PushbackTrailer is the trailer by which a server asks for a wait before the next attempt,
// in whole milliseconds (gRPC proposal A6, "Pushback"). A negative or malformed value, or
// more than one, asks the client not to retry.
const PushbackTrailer = "grpc-retry-pushback-ms"

// The sources of a server's wait, as the decision record's retry_after_from names them.
const (
	fromPushbackTrailer = PushbackTrailer
	fromRetryInfo       = "retry-info"
)

// pushback is what a server asked of the next attempt.
type pushback struct {
	wait    time.Duration
	from    string // where wait came from: fromPushbackTrailer or fromRetryInfo
	has     bool   // the server asked for a wait
	noRetry bool   // the server asked not to retry (negative or malformed pushback)
}

// serverPushback reads the server's requested wait from the trailer (PushbackTrailer) and
// from a google.rpc.RetryInfo detail of st (its retry_delay), treated alike, as Retry-After
// is for HTTP (SPEC R4): when both ask, the longer wait wins; when either is negative or
// malformed, the server asked not to retry. A RetryInfo without retry_delay asks nothing.
func serverPushback(trailer metadata.MD, st *status.Status) pushback {
	var p pushback
	if values := trailer.Get(PushbackTrailer); len(values) > 0 {
		ms, err := strconv.ParseInt(values[0], 10, 64)
		if len(values) > 1 || err != nil || ms < 0 || ms > int64(time.Duration(1<<63-1)/time.Millisecond) {
			return pushback{noRetry: true}
		}
		p.wait, p.from, p.has = time.Duration(ms)*time.Millisecond, fromPushbackTrailer, true
	}
	if st == nil {
		return p
	}
	for _, detail := range st.Proto().GetDetails() {
		info := new(errdetails.RetryInfo)
		if !detail.MessageIs(info) {
			continue
		}
		if detail.UnmarshalTo(info) != nil {
			return pushback{noRetry: true}
		}
		delay := info.GetRetryDelay()
		if delay == nil {
			continue
		}
		if delay.CheckValid() != nil || delay.AsDuration() < 0 {
			return pushback{noRetry: true}
		}
		if d := delay.AsDuration(); !p.has || d > p.wait {
			p.wait, p.from, p.has = d, fromRetryInfo, true
		}
	}
	return p
}
