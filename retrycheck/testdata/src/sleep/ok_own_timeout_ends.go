package sleep

import (
	"context"
	"testing"
	"time"
)

type lister interface {
	List(ctx context.Context) (bool, error)
}

// Not reported: the test's own context, with a timeout, given to the call the loop leaves
// on when it fails: nobody cancels it, and once the timeout passes the loop ends after at
// most one more wait (mongo-driver's search index tests, issue 36).
func TestOwnTimeoutEnds(t *testing.T) {
	var l lister
	awaitCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		ready, err := l.List(awaitCtx)
		if err != nil {
			t.Fatal(err)
		}
		if ready {
			break
		}
		time.Sleep(5 * time.Second)
	}
}

// Not reported: the same poll in a helper closure, called only with contexts of the
// test's own making.
func TestOwnTimeoutClosure(t *testing.T) {
	var l lister
	wait := func(ctx context.Context) {
		for {
			ready, err := l.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ready {
				return
			}
			time.Sleep(5 * time.Second)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wait(ctx)
}

// Not reported: a wait of one second in a loop that leaves when the call given the
// caller's context fails: a canceled caller waits a second at most (genai's tests).
func pollEverySecond(ctx context.Context, l lister) error {
	for {
		ready, err := l.List(ctx)
		if err != nil {
			return err
		}
		if ready {
			return nil
		}
		time.Sleep(time.Second)
	}
}
