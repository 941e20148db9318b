package retrygrpc

import (
	"context"
	"errors"

	"github.com/retrykit/retry"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// stopStatus turns a loop's error into what the call returns: nil on success; the server's
// status as it came when the loop stopped because the code is not retried; the *retry.Error
// otherwise, through which status.Code and status.FromError reach the last attempt's status.
// A stop that the caller's context caused (canceled, or deadline_exceeded with the caller's
// deadline passed), and a stop that has no status under it (no attempt ran, as for an open
// breaker; or the error came from elsewhere), are given a status of their own: see stopError.
func stopStatus(err error) error {
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
	if _, ok := status.FromError(e.Err); e.Err == nil || !ok || e.Cause != nil || e.Reason == retry.ReasonCanceled {
		return &stopError{err: e}
	}
	return e
}

// stopError is a *retry.Error given a gRPC status of its own, so that gRPC code
// (status.Code, status.FromError) reads a fitting code: CANCELLED or DEADLINE_EXCEEDED when
// the caller's context ended the loop (whatever the last attempt's status, as grpc-go
// reports a context ended between its own attempts), UNAVAILABLE when the policy refused to
// start an attempt (an open circuit breaker) and UNKNOWN otherwise. errors.As and
// errors.Unwrap still reach the *retry.Error and, through it, the last attempt's status.
type stopError struct {
	err *retry.Error
}

func (e *stopError) Error() string { return e.err.Error() }

// Unwrap returns the *retry.Error.
func (e *stopError) Unwrap() error { return e.err }

// GRPCStatus returns the status that gRPC code reads from the error.
func (e *stopError) GRPCStatus() *status.Status {
	code := codes.Unknown
	switch {
	case e.err.Cause != nil && e.err.Reason != retry.ReasonCanceled: // the caller's deadline
		code = codes.DeadlineExceeded
	case e.err.Cause != nil || e.err.Reason == retry.ReasonCanceled || errors.Is(e.err, context.Canceled):
		code = codes.Canceled
	case errors.Is(e.err, context.DeadlineExceeded) || e.err.Reason == retry.ReasonDeadlineExceeded:
		code = codes.DeadlineExceeded
	case e.err.Reason == retry.ReasonCircuitOpen || e.err.Reason == retry.ReasonRetryBudgetExhausted:
		code = codes.Unavailable
	}
	return status.New(code, e.err.Error())
}
