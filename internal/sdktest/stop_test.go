package sdktest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrykit/retry"
)

// stop is what the caller of an SDK can read from the error of a failed call.
type stop struct {
	// reason is our stop reason, "" when the error names none.
	reason retry.Reason
	// wait is the wait the error names, when hasWait: our RetryAfter, or the server's wait
	// (retry-after-ms, else retry-after) on the response inside the SDK's error.
	wait    time.Duration
	hasWait bool
	// status is the status of the response inside the SDK's error, 0 without one.
	status int
}

// stopReasons are the reasons our loop stops with, as a refusal's JSON body may name them.
var stopReasons = []retry.Reason{retry.ReasonNonRetryableStatus, retry.ReasonNonRetryableError, retry.ReasonAttemptsExhausted,
	retry.ReasonDeadlineExceeded, retry.ReasonWaitExceedsDeadline, retry.ReasonRetryAfterExceedsDeadline,
	retry.ReasonRetryAfterExceedsMaxWait, retry.ReasonCanceled, retry.ReasonCircuitOpen, retry.ReasonRetryBudgetExhausted,
	retry.ReasonUnknownOutcome, "rate_limit_exceeds_deadline"}

// stopOf reads err, returned by s: our *retry.Error where the SDK passes on the Transport's
// error (a refusal reaches the SDK as a connection error today), else the response inside the
// SDK's own error type: its status, its retry-after-ms or retry-after, and a stop reason of
// ours that its JSON body names anywhere (issue 32 item 3 answers our refusals so; swap in
// the library's own reader of that answer once it has one).
func stopOf(s sdk, err error) stop {
	var st stop
	var ours *retry.Error
	if errors.As(err, &ours) {
		st.reason = ours.Reason
		st.wait, st.hasWait = ours.RetryAfter()
		return st
	}
	resp := s.response(err)
	if resp == nil {
		return st
	}
	st.status = resp.StatusCode
	if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		st.wait, st.hasWait = time.Duration(ms*float64(time.Millisecond)), true
	} else if sec, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); err == nil && sec >= 0 {
		st.wait, st.hasWait = time.Duration(sec*float64(time.Second)), true
	}
	if resp.Body != nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var v any
		if json.Unmarshal(body, &v) == nil {
			st.reason = reasonIn(v)
		}
	}
	return st
}

// reasonIn returns the first stop reason of ours found as a string value in the JSON value v.
func reasonIn(v any) retry.Reason {
	switch v := v.(type) {
	case string:
		for _, r := range stopReasons {
			if v == string(r) {
				return r
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if r := reasonIn(v[k]); r != "" {
				return r
			}
		}
	case []any:
		for _, x := range v {
			if r := reasonIn(x); r != "" {
				return r
			}
		}
	}
	return ""
}

// kind returns a short name for the error of a failed call, to count failures by: our
// reason, the status of the SDK's error, or the error's text.
func kind(st stop, err error) string {
	switch {
	case st.reason != "":
		return string(st.reason)
	case st.status != 0:
		return strings.TrimSpace(strconv.Itoa(st.status) + " " + http.StatusText(st.status))
	case errors.Is(err, context.DeadlineExceeded):
		return "context deadline exceeded"
	}
	return err.Error()
}
