package main

import (
	"context"
	"errors"
	"io"

	"github.com/retrykit/retry"
)

// inUserWords returns d with its attempt error said in words a user of the command line
// understands, for the records and the live line: an attempt cut off by a deadline says
// which one ("attempt timeout reached", "overall timeout reached", as retry run's own
// attempts do) rather than "context deadline exceeded", and a connection the server closed
// says so rather than "EOF". The new error unwraps to the original, so errors.Is and
// errors.As still see it; any other error is left as it is (already redacted by retryhttp).
func inUserWords(d retry.Decision) retry.Decision {
	if d.Err == nil {
		return d
	}
	_, named := d.Attr("method") // an HTTP attempt's record names its request
	var msg string
	switch {
	case errors.Is(d.Err, context.DeadlineExceeded):
		// The attempt's deadline is the earlier of its own and the loop's: when the loop's
		// has passed (nothing remains), that is the one that cut the attempt off.
		msg = "attempt timeout reached"
		if d.HasDeadline && d.Remaining <= 0 {
			msg = "overall timeout reached"
		}
		switch {
		case named && d.Status == 0:
			msg += " before the server answered"
		case named:
			msg += " before the whole response arrived"
		}
	case named && (errors.Is(d.Err, io.EOF) || errors.Is(d.Err, io.ErrUnexpectedEOF)):
		msg = "the server closed the connection before answering"
		if d.Status != 0 {
			msg = "the server closed the connection before the whole response arrived"
		}
	default:
		return d
	}
	if broken := (*bodyBroken)(nil); errors.As(d.Err, &broken) && broken.stream {
		msg += "; " + streamNotResent
	}
	d.Err = &userWordsError{msg: msg, err: d.Err}
	return d
}

// userWordsError says err in a user's words and unwraps to it.
type userWordsError struct {
	msg string
	err error
}

func (e *userWordsError) Error() string { return e.msg }
func (e *userWordsError) Unwrap() error { return e.err }
