package nested

import (
	"context"
	"errors"
	"net"
	"time"
)

// Not reported: the echo loop runs once the dial loop's attempt has succeeded, and the
// function returns after it: no retry of the dial repeats it (cometbft's gRPC ABCI
// client, issue 36).
func dialThenEcho(addr string, echo func(context.Context, net.Conn) error) (net.Conn, error) {
	for i := 0; i < 5; i++ {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for j := 0; j < 3; j++ {
			if err := echo(context.Background(), conn); err == nil {
				break
			}
			time.Sleep(time.Second)
		}
		return conn, nil
	}
	return nil, errors.New("no connection")
}

// Not reported: the poll is called by the return that ends the iteration, once the update
// succeeded: it runs once (swarmkit's setRole test helper, issue 36).
func updateThenPoll(update func() error, poll func() error) error {
	var wait time.Duration
	for i := 0; i < 5; i++ {
		time.Sleep(wait)
		wait += 500 * time.Millisecond
		if err := update(); err != nil {
			if err.Error() == "update out of sequence" {
				continue
			}
			return err
		}
		return pollUntil(poll)
	}
	return errors.New("no update")
}

// pollUntil retries poll with a bound.
func pollUntil(poll func() error) error {
	var err error
	for i := 0; i < 10; i++ {
		if err = poll(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}
