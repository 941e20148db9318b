package nested

import (
	"context"
	"errors"
	"net"
	"time"
)

// Not reported: the echo loop runs once the dial loop's attempt has succeeded, and the
// function returns after it: no retry of the dial repeats it (cometbft's gRPC ABCI
// client, issue 36).
func dialThenEcho(addr string, echo func(context.Context, net.Conn) error) (net.Conn, error) {
	for i := 0; i < 5; i++ {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for j := 0; j < 3; j++ {
			if err := echo(context.Background(), conn); err == nil {
				break
			}
			time.Sleep(time.Second)
		}
		return conn, nil
	}
	return nil, errors.New("no connection")
}
