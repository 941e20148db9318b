// Seeded from https://github.com/apache/pulsar-client-go/issues/257: reconnectToBroker
// tried to reconnect to the broker without any limit.
package unbounded

import (
	"log"
	"time"
)

func reconnectToBroker(grabConn func() error, next func() time.Duration) {
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		err := grabConn()
		if err == nil {
			return
		}
		delay := next()
		log.Printf("reconnect failed, retrying in %v: %v", delay, err)
		time.Sleep(delay)
	}
}
