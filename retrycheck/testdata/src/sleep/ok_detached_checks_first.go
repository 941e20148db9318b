package sleep

import (
	"context"
	"net"
	"time"
)

type roaClient struct {
	ctx    context.Context
	cancel context.CancelFunc
	host   string
	conns  chan net.Conn
}

func (c *roaClient) start() {
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.tryConnect()
}

// Not reported: only a go statement starts tryConnect, so nobody waits for it, and it
// checks its context before each dial: a stop makes it linger one wait at most, not dial
// again (gobgp's RPKI client, issue 36).
func (c *roaClient) tryConnect() {
	for {
		select {
		case <-c.ctx.Done():
			return
		default:
		}
		conn, err := net.Dial("tcp", c.host)
		if err != nil {
			time.Sleep(30 * time.Second)
			continue
		}
		c.conns <- conn
		return
	}
}
