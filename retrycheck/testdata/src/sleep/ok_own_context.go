package sleep

import (
	"context"
	"net/http"
	"testing"
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

// A test's context, canceled only once the test has returned (OPA's server tests).
func testContext(t *testing.T, client *http.Client, url string) {
	ctx := t.Context()
	connect(ctx)
	retries := 10
	for {
		if retries == 0 {
			t.Fatal("no answer before the deadline")
		}
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			retries--
			time.Sleep(300 * time.Millisecond)
			continue
		}
		resp.Body.Close()
		break
	}
}
