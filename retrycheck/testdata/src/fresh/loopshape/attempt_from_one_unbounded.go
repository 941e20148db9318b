// Fresh case (issue 36, loops not recognised): counting from 1 with no condition, but
// the counter only feeds the backoff: nothing stops the loop but success.
package loopshape

import (
	"log"
	"net"
	"time"
)

func connectBroker(addr string) net.Conn {
	for attempt := 1; ; attempt++ { // want `retry loop has no attempt bound, no deadline and no context check`
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			return conn
		}
		log.Printf("broker %s: attempt %d: %v", addr, attempt, err)
		<-time.After(time.Duration(min(attempt, 30)) * time.Second)
	}
}
