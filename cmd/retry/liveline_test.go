package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

func TestLiveLineCountsDownTheWaitThenErasesItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := &liveLine{w: &buf, on: true, attempts: 5}
		l.start(retry.Decision{Attempt: 2, Status: 503, Retry: true, Reason: retry.ReasonRetryAfter, Wait: 300 * time.Millisecond})
		time.Sleep(time.Second)
		l.stop()
		const line = "\r\x1b[Kretry: attempt 3 of 5 in "
		want := line + "300ms (retry_after, status 503)" + line + "200ms (retry_after, status 503)" +
			line + "100ms (retry_after, status 503)" + line + "0s (retry_after, status 503)" + "\r\x1b[K"
		if buf.String() != want {
			t.Errorf("wrote %q\nwant  %q", buf.String(), want)
		}
	})
}

func TestLiveLineStopsAtTheNextDecision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := &liveLine{w: &buf, on: true, attempts: 3}
		l.start(retry.Decision{Attempt: 1, Err: errors.New("connection refused"), Retry: true,
			Reason: retry.ReasonRetryableError, Wait: time.Minute})
		time.Sleep(150 * time.Millisecond)
		l.stop()
		if got := strings.Count(buf.String(), "attempt 2 of 3 in"); got != 2 || !strings.Contains(buf.String(), "(retryable_error, connection refused)") {
			t.Errorf("wrote %q", buf.String())
		}
	})
}

func TestLiveLineIsOffUnlessATerminal(t *testing.T) {
	var buf bytes.Buffer
	l := newLiveLine(&buf, true, 3)
	l.start(retry.Decision{Attempt: 1, Retry: true, Wait: time.Second})
	l.stop()
	if buf.Len() != 0 || l.on {
		t.Errorf("wrote %q to a buffer", buf.String())
	}
}
