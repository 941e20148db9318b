// Seeded from https://github.com/AlexStocks/getty/issues/106: dialTCP retried without
// bound, ignoring the configured reconnect attempts, and spun forever on an unreachable
// address.
package unbounded

import (
	"net"
	"time"
)

func dialTCP(addr string, timeout time.Duration) net.Conn {
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		conn, err := net.DialTimeout("tcp", addr, timeout)
		if err == nil {
			return conn
		}
		time.Sleep(time.Second)
	}
}
