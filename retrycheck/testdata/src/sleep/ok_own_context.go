package sleep

import (
	"context"
	"time"
)

// The function's own context with a long timeout, and waits that add up to a tenth of
// it at most (seaweedfs's integration tests): nobody can cancel it, and its deadline
// cannot pass during the waits.
func ownLongTimeout(upload func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	connect(ctx)
	var err error
	for retry := 0; retry < 5; retry++ {
		if err = upload(); err == nil {
			break
		}
		time.Sleep(3 * time.Second)
	}
	return err
}

// The function's own cancelable context, canceled only when it returns (syncthing's
// benchmark): nothing ends it during the waits.
func ownCanceledOnReturn(dial func(context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := dial(ctx)
	for i := 0; i < 10 && err != nil; i++ {
		time.Sleep(100 * time.Millisecond)
		err = dial(ctx)
	}
	return err
}

func connect(context.Context) {}
