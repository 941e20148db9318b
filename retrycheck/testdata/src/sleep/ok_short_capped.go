package sleep

import (
	"context"
	"errors"
	"testing"
	"time"
)

type indexOptions struct {
	Context context.Context
	Timeout time.Duration
}

func listIndexes(opts *indexOptions) (bool, error) { return true, nil }

// The wait runs until a time at most curInterval away, and curInterval is capped in the
// loop before it: short waits, under a deadline the loop checks (couchbase's
// WatchIndexes, issue 36).
func watchIndexes(timeout time.Duration, opts *indexOptions) error {
	deadline := time.Now().Add(timeout)
	curInterval := 50 * time.Millisecond
	for {
		if deadline.Before(time.Now()) {
			return errors.New("timeout")
		}
		online, err := listIndexes(&indexOptions{Timeout: time.Until(deadline), Context: opts.Context})
		if err != nil {
			return err
		}
		if online {
			break
		}
		curInterval += 100 * time.Millisecond
		if curInterval > 500*time.Millisecond {
			curInterval = 500 * time.Millisecond
		}
		sleepDeadline := time.Now().Add(curInterval)
		if sleepDeadline.After(deadline) {
			sleepDeadline = deadline
		}
		time.Sleep(time.Until(sleepDeadline))
	}
	return nil
}

type globalOptions struct {
	ctx context.Context
}

func umount(dir string) error { return nil }

const (
	mountWait  = 20
	mountSleep = 100 * time.Millisecond
)

// Test code (given a testing.TB) whose waits add up to 2 s under a context the test
// never cancels before it ends (restic's fuse tests, issue 36).
func testRunUmount(t testing.TB, gopts globalOptions, dir string) {
	var err error
	for i := 0; i < mountWait; i++ {
		if err = umount(dir); err == nil {
			t.Logf("directory %v umounted", dir)
			return
		}
		time.Sleep(mountSleep)
	}
	t.Errorf("unable to umount dir %v, last error was: %v", dir, err)
}
