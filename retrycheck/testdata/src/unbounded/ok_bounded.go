package unbounded

import (
	"context"
	"database/sql"
	"errors"
	"time"

	retrygo "github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"github.com/retrykit/retry"
)

// A counter in the body.
func counterInBody(db *sql.DB) error {
	attempts := 0
	for {
		err := db.Ping()
		if err == nil {
			return nil
		}
		attempts++
		if attempts >= 5 {
			return err
		}
		time.Sleep(time.Second)
	}
}

// A deadline.
func deadline(db *sql.DB) error {
	start := time.Now()
	for {
		err := db.Ping()
		if err == nil || time.Since(start) > time.Minute {
			return err
		}
		time.Sleep(time.Second)
	}
}

// A context check.
func contextChecked(ctx context.Context, db *sql.DB) error {
	for {
		err := db.PingContext(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(time.Second)
	}
}

// A backoff that says stop.
func backoffStops(db *sql.DB) error {
	b := backoff.NewExponentialBackOff()
	for {
		err := db.Ping()
		if err == nil {
			return nil
		}
		d := b.NextBackOff()
		if d == backoff.Stop {
			return err
		}
		time.Sleep(d)
	}
}

// Library loops with a bound: a context for retry-go, the default Timeout of ours.
func libraryBounded(ctx context.Context, op func() error, opc func(context.Context) error) error {
	if err := retrygo.Do(op, retrygo.Attempts(0), retrygo.Context(ctx)); err != nil {
		return err
	}
	return retry.Do(ctx, &retry.Policy{MaxAttempts: retry.NoLimit}, opc)
}

// A stop channel.
func stopChannel(db *sql.DB, shutdown <-chan struct{}) {
	for {
		err := db.Ping()
		if err == nil {
			return
		}
		select {
		case <-shutdown:
			return
		case <-time.After(time.Second):
		}
	}
}

// A counter per key.
func counterPerKey(remove func() (string, error)) error {
	tries := map[string]int{}
	for {
		path, err := remove()
		if err == nil {
			return nil
		}
		if tries[path] == 5 {
			return err
		}
		tries[path]++
		time.Sleep(time.Second)
	}
}

// The counter goes to the policy that decides.
func counterToPolicy(db *sql.DB, retry func(attempt int, err error) (bool, time.Duration)) error {
	for attempt := 0; ; attempt++ {
		err := db.Ping()
		if err == nil {
			return nil
		}
		again, wait := retry(attempt, err)
		if !again {
			return err
		}
		time.Sleep(wait)
	}
}

// The attempt's context deadline ends the loop through the error it returns.
func deadlineThroughError(ctx context.Context, endpoint func(context.Context) (string, error)) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		addr, err := endpoint(ctx)
		if err == nil {
			return addr, nil
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return "", err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The attempt runs under a deadline made before the loop: it fails once the time is up,
// and the loop leaves on that error.
func attemptUnderDeadline(ctx context.Context, handshake func(context.Context) error, unavailable func(error) bool) error {
	timeout, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		err := handshake(timeout)
		if err == nil {
			return nil
		}
		if !unavailable(err) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// A counter compared in a switch case.
func counterInSwitch(db *sql.DB, retries uint64) error {
	var count uint64
	for {
		count++
		err := db.Ping()
		if err == nil {
			return nil
		}
		switch {
		case count > retries:
			return err
		default:
			time.Sleep(time.Second)
		}
	}
}
