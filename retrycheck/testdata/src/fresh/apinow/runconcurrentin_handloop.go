// Fresh case (issue 36, our API as it is): RunConcurrentIn's attempt calls a helper that
// retries by hand.
package apinow

import (
	"context"
	"net"
	"time"

	"github.com/retrykit/retry"
)

func dialWithRetries(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	var lastErr error
	for i := 0; i < 5; i++ {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c, nil
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil, lastErr
}

type dialPool struct {
	state retry.Loop
	pol   *retry.Policy
}

func (d *dialPool) get(ctx context.Context, addr string) (net.Conn, error) {
	conn, fin, err := retry.RunConcurrentIn(ctx, &d.state, d.pol, retry.Operation[net.Conn]{
		Attempt: func(ctx context.Context) (net.Conn, retry.Outcome) {
			c, err := dialWithRetries(ctx, addr) // want `nested retries: dialWithRetries, which retries \(a hand-written retry loop at runconcurrentin_handloop.go:16\) runs inside each attempt of retry.RunConcurrentIn`
			return c, retry.Outcome{Err: err}
		},
		Discard: func(c net.Conn) { c.Close() },
	})
	fin.End()
	return conn, err
}
