package main

import "fmt"

// Exit codes (DESIGN "The command-line contract").
const (
	exitOK = 0
	// exitFailed (http): a non-retryable status or error; the body still goes to stdout.
	exitFailed = 1
	// exitUsage: a usage or configuration error.
	exitUsage = 2
	// exitPolicyStop (http): stopped by policy before success.
	exitPolicyStop = 3
	// exitUnknownOutcome (http): a write may have been applied; reconcile before resending.
	exitUnknownOutcome = 4
	// exitDeadline (run): a timeout ended the last attempt (--timeout, or --attempt-timeout
	// when no attempt follows), as timeout(1) exits. Signal N gives 128+N (signalStatus).
	exitDeadline = 124
)

// exitError ends a subcommand with an exit code and, when err is not nil, one line on
// stderr. Any other error a subcommand returns is a usage error (exit 2).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// exit returns an *exitError, or nil for exitOK without a message.
func exit(code int, err error) error {
	if code == exitOK && err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}
