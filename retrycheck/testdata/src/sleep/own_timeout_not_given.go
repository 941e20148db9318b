package sleep

import (
	"context"
	"time"
)

// The function's own context with a timeout, but the call the loop leaves on is not given
// it, so nothing ends the loop when it expires: reported.
func ownTimeoutNotGiven(l lister) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect(ctx)
	for {
		ready, err := l.List(context.Background())
		if err != nil {
			return err
		}
		if ready {
			return nil
		}
		time.Sleep(5 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
}

// A wait of two seconds in a loop that leaves when the call given the caller's context
// fails: a canceled caller may wait two seconds: reported.
func pollEveryTwoSeconds(ctx context.Context, l lister) error {
	for {
		ready, err := l.List(ctx)
		if err != nil {
			return err
		}
		if ready {
			return nil
		}
		time.Sleep(2 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
}

// A helper closure called with the caller's context as well as its own: reported.
func closureCalledWithCallers(ctx context.Context, l lister) {
	wait := func(ctx context.Context) {
		for {
			ready, err := l.List(ctx)
			if err != nil || ready {
				return
			}
			time.Sleep(5 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
		}
	}
	own, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wait(own)
	wait(ctx)
}
