package retrygrpc

import (
	"context"
	"errors"

	"github.com/retrykit/retry"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// stopStatus turns the loop of a call to method into what the call returns: nil on
// success; the server's status as it came when the loop stopped because the code is not
// retried; otherwise a *stopError, whose gRPC status is the last attempt's (see there).
func stopStatus(err error, method string) error {
	if err == nil {
		return nil
	}
	var e *retry.Error
	if !errors.As(err, &e) {
		return err // an invalid policy
	}
	if e.Reason == retry.ReasonNonRetryableError && e.Err != nil {
		return e.Err
	}
	return &stopError{err: e, method: method}
}

// stopError is a call's stop: its text is the loop's (reason, attempts, time, the last
// attempt's status), and its gRPC status (GRPCStatus, read by status.Code and
// status.FromError) is one a server may pass on to its own caller as it is: the last
// attempt's status, code, message and details unchanged; CANCELLED or DEADLINE_EXCEEDED
// when the caller's context ended the loop (whatever the last attempt's status, as grpc-go
// reports a context ended between its own attempts); UNAVAILABLE when no attempt ran for an
// open circuit breaker or an exhausted retry budget, and UNKNOWN for any other stop without
// a status. errors.As and errors.Unwrap reach the *retry.Error and, through it, the last
// attempt's status; errors.Is matches the sentinel of the reason.
type stopError struct {
	err    *retry.Error
	method string
}

// Error is the *retry.Error's text; for an unknown_outcome stop it says how to let the
// method be sent again.
func (e *stopError) Error() string {
	msg := e.err.Error()
	if e.err.Reason == retry.ReasonUnknownOutcome {
		msg += " (the call may have been applied, so it was not sent again: if " + e.method +
			" is safe to repeat, declare it with retrygrpc.WithIdempotentMethods or idempotency_level in its proto)"
	}
	return msg
}

// Unwrap returns the *retry.Error.
func (e *stopError) Unwrap() error { return e.err }

// GRPCStatus returns the status that gRPC code reads from the error.
func (e *stopError) GRPCStatus() *status.Status {
	r := e.err
	switch {
	case r.Cause != nil && r.Reason != retry.ReasonCanceled: // the caller's deadline
		return status.New(codes.DeadlineExceeded, context.DeadlineExceeded.Error())
	case r.Cause != nil || r.Reason == retry.ReasonCanceled:
		return status.New(codes.Canceled, context.Canceled.Error())
	}
	if r.Err != nil {
		if st, ok := status.FromError(r.Err); ok {
			return st
		}
	}
	code := codes.Unknown
	switch {
	case errors.Is(r.Err, context.Canceled):
		code = codes.Canceled
	case errors.Is(r.Err, context.DeadlineExceeded) || r.Reason == retry.ReasonDeadlineExceeded:
		code = codes.DeadlineExceeded
	case r.Reason == retry.ReasonCircuitOpen || r.Reason == retry.ReasonRetryBudgetExhausted:
		code = codes.Unavailable
	}
	return status.New(code, e.Error())
}
