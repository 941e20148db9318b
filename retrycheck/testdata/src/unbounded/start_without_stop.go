package unbounded

import (
	"context"
	"log"
	"time"
)

type dialer struct{ app echoer }

// The same loop in a Start of a type that cannot be stopped: reported.
func (d *dialer) Start() error {
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		_, err := d.app.Echo(context.Background(), "hello")
		if err == nil {
			return nil
		}
		log.Printf("echo failed: %v", err)
		time.Sleep(time.Second)
	}
}
