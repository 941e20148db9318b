// Seeded from https://github.com/at-wat/mqtt-go/issues/110: once a packet the server
// rejects was queued, the reconnecting client entered an infinite reconnect loop.
package unbounded

import (
	"net"
	"time"
)

func reconnect(dial func() (net.Conn, error), resend func(net.Conn) error, wait time.Duration) {
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		conn, err := dial()
		if err != nil {
			time.Sleep(wait)
			continue
		}
		if err := resend(conn); err == nil {
			return
		}
		time.Sleep(wait)
	}
}
