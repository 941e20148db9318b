package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/retrykit/retry"
)

// liveLine shows, while a loop waits before its next attempt and stderr is a terminal, one
// line that it rewrites ten times a second: "retry: attempt 3 of 5 in 1.2s (retry_after,
// status 503)". It is driven from the loop's goroutine: start after a decision, stop before
// the next record and at the end.
type liveLine struct {
	w        io.Writer
	on       bool
	attempts int

	done chan struct{}
	wg   sync.WaitGroup
}

// newLiveLine returns a liveLine writing to w, which shows nothing unless wanted and w is a
// terminal.
func newLiveLine(w io.Writer, wanted bool, attempts int) *liveLine {
	return &liveLine{w: w, on: wanted && isTerminal(w), attempts: attempts}
}

// start shows the wait that d decided, until it ends or stop is called.
func (l *liveLine) start(d retry.Decision) {
	if !l.on || !d.Retry || d.Wait <= 0 {
		return
	}
	why := string(d.Reason)
	if d.Status != 0 {
		why += fmt.Sprintf(", status %d", d.Status)
	} else if d.Err != nil {
		why += ", " + inUserWords(d).Err.Error()
	}
	end := time.Now().Add(d.Wait)
	done := make(chan struct{})
	l.done = done
	l.wg.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			left := max(time.Until(end), 0).Round(100 * time.Millisecond)
			fmt.Fprintf(l.w, "\r\x1b[Kretry: attempt %d of %d in %v (%s)", d.Attempt+1, l.attempts, left, why)
			if left == 0 {
				return
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
}

// stop ends the line shown, if any, and erases it.
func (l *liveLine) stop() {
	if l.done == nil {
		return
	}
	close(l.done)
	l.wg.Wait()
	l.done = nil
	fmt.Fprint(l.w, "\r\x1b[K")
}
