package retry

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The hand-written attempt context under -race: many goroutines ask for Done, Err, derived
// contexts and AfterFunc while its end, its deadline and its parent's cancellation race.
// Whatever wins, every observer sees one story: Err is nil exactly while Done is open and
// never changes once set, derived contexts end with it, and every AfterFunc function runs
// once unless its stop reported that it never will. No goroutine outlives the contexts.
func TestAttemptContextStress(t *testing.T) {
	defer goleak.VerifyNone(t)
	const rounds, observers = 300, 8
	for round := range rounds {
		parent, cancelParent := context.WithCancel(context.Background())
		// Deadlines from already passed to a few hundred microseconds away, so that the
		// timer, end and the parent's cancellation each win some rounds.
		deadline := time.Now().Add(time.Duration(round%7-1) * 50 * time.Microsecond)
		c := newAttemptContext(parent, deadline)

		var wg sync.WaitGroup
		var ran, stopped atomic.Int64
		errs := make([]error, observers)
		for i := range observers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch i % 4 {
				case 0: // Err after Done: a closed Done is never followed by a nil Err
					for j := 0; j < 50; j++ {
						closed := isClosed(c.Done())
						if err := c.Err(); closed && err == nil {
							t.Error("Done closed but Err nil")
						}
						runtime.Gosched()
					}
				case 1: // a derived context, as net/http makes one per request
					child, cancel := context.WithCancel(c)
					<-child.Done()
					if !errors.Is(child.Err(), c.Err()) {
						t.Errorf("child ended with %v, parent with %v", child.Err(), c.Err())
					}
					cancel()
				case 2: // AfterFunc directly, stopped by half of the observers
					fired := make(chan struct{})
					stop := c.AfterFunc(func() { ran.Add(1); close(fired) })
					if round%2 == 0 && stop() {
						stopped.Add(1)
					} else {
						<-fired // it runs, perhaps in a goroutine of its own
					}
				case 3: // context.AfterFunc goes through the afterFuncer path
					done := make(chan struct{})
					context.AfterFunc(c, func() { close(done) })
					<-done
				}
				<-c.Done()
				errs[i] = c.Err()
			}()
		}
		switch round % 3 {
		case 0:
			c.end()
		case 1:
			cancelParent()
		}
		// Whoever has not ended it, the deadline does.
		wg.Wait()
		for i, err := range errs {
			if err == nil || err != c.Err() {
				t.Fatalf("round %d: observer %d saw %v, the context says %v", round, i, err, c.Err())
			}
		}
		c.end()
		cancelParent()
		if got, want := ran.Load()+stopped.Load(), int64(observers/4); got != want {
			t.Fatalf("round %d: %d functions ran and %d were stopped, want %d in all", round, ran.Load(), stopped.Load(), want)
		}
	}
}

// The three ways an armed attempt context ends, one at a time, with the error each gives.
func TestAttemptContextEnds(t *testing.T) {
	defer goleak.VerifyNone(t)
	far := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name string
		end  func(c *attemptContext, cancelParent context.CancelFunc)
		want error
	}{
		{"end", func(c *attemptContext, _ context.CancelFunc) { c.end() }, context.Canceled},
		{"parent", func(_ *attemptContext, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"deadline", func(c *attemptContext, _ context.CancelFunc) { c.timer.Reset(0) }, context.DeadlineExceeded},
	} {
		parent, cancel := context.WithCancel(context.Background())
		c := newAttemptContext(parent, far)
		child, cancelChild := context.WithCancel(c)
		if child.Err() != nil || c.Err() != nil {
			t.Fatalf("%s: ended before its time: %v, %v", tc.name, c.Err(), child.Err())
		}
		tc.end(c, cancel)
		<-child.Done()
		if c.Err() != tc.want || child.Err() != tc.want {
			t.Errorf("%s: context %v, child %v, want %v", tc.name, c.Err(), child.Err(), tc.want)
		}
		cancelChild()
		cancel()
		c.end()
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// end racing the first Done: whichever comes first, Done ends up closed and Err is
// Canceled, and no timer is left running (goleak would not see a timer, so the state says).
func TestAttemptContextEndRacesDone(t *testing.T) {
	defer goleak.VerifyNone(t)
	for range 2000 {
		c := newAttemptContext(context.Background(), time.Now().Add(time.Hour))
		got := make(chan (<-chan struct{}))
		go func() { got <- c.Done() }()
		c.end()
		done := <-got
		<-done // closed, by end's finish or because armLocked saw the state
		if c.Err() != context.Canceled {
			t.Fatalf("Err %v, want Canceled", c.Err())
		}
		if c.timer != nil && c.timer.Stop() {
			t.Fatal("the deadline timer was still running after end")
		}
	}
}
