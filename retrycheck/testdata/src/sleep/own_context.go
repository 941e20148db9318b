package sleep

import (
	"context"
	"time"
)

// The function's own context, but the waits outlast its timeout (nats.go's test
// helper): attempts go on after the deadline passed.
func ownShortTimeout(subscribe func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var err error
	for i := 0; i < 5; i++ {
		if err = subscribe(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return err
}

// The function's own context, but another goroutine may cancel it.
func ownCanceledElsewhere(stop <-chan struct{}, dial func(context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stop
		cancel()
	}()
	var err error
	for i := 0; i < 5; i++ {
		if err = dial(ctx); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return err
}

// A parameter replaced by the function's own context (syncthing's TestRelay): the
// caller's cancellation is ignored with it.
func ownReplacesParameter(ctx context.Context, get func(context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	for i := 0; i < 4; i++ {
		if err = get(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return err
}
