package sleep

import (
	"context"
	"net"
	"time"
)

type dialer struct {
	host  string
	conns chan net.Conn
}

// redial checks its context before each dial, but a caller also runs it and waits for
// it: reported.
func (d *dialer) redial(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		default:
		}
		conn, err := net.Dial("tcp", d.host)
		if err != nil {
			time.Sleep(30 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
			continue
		}
		d.conns <- conn
		return
	}
}

func (d *dialer) run(ctx context.Context) {
	go d.redial(ctx)
	d.redial(ctx)
}
