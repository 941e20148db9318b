package sleep

import (
	"context"
	"time"
)

type receiver interface {
	Receive(ctx context.Context) (string, error)
}

type channel struct {
	ctx context.Context
	rc  receiver
	ch  chan string
}

func newChannel(rc receiver) *channel {
	c := &channel{ctx: context.TODO(), rc: rc, ch: make(chan string)}
	go c.startReceive()
	return c
}

// Not reported: the channel's context is only ever context.TODO(), which nobody can
// cancel (bun's pgdriver listener, issue 36).
func (c *channel) startReceive() {
	for {
		msg, err := c.rc.Receive(c.ctx)
		if err != nil {
			time.Sleep(2 * time.Second)
			continue
		}
		c.ch <- msg
	}
}
