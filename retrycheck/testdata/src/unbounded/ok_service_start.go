package unbounded

import (
	"context"
	"log"
	"time"
)

type echoer interface {
	Echo(ctx context.Context, msg string) (string, error)
}

type abciClient struct {
	app     echoer
	running bool
}

// A service's start (a method OnStart of a type that has OnStop too, run by the daemon
// that owns it) waits for its application by design, logging each failure: its operator
// stops the daemon, no caller gives up (cometbft's ABCI client, issue 36).
func (c *abciClient) OnStart() error {
	for {
		_, err := c.app.Echo(context.Background(), "hello")
		if err == nil {
			break
		}
		log.Printf("echo failed: %v", err)
		time.Sleep(time.Second)
	}
	c.running = true
	return nil
}

func (c *abciClient) OnStop() { c.running = false }
