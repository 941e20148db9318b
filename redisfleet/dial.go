package redisfleet

import (
	"context"
	"net"
	"time"
)

// redialing wraps a go-redis dialer so that a failed dial never reaches go-redis's
// connection pool as one. After PoolSize failed dials in a row, the pool answers every later
// dial with the last dial error, without dialling, until a background probe, made once a
// second, succeeds (internal/pool's dialErrorsNum and tryDial): a Redis restarted on the same
// address was not used for up to a second more, five ticks at a 200 ms interval. Given
// instead a connection whose first write fails with the dial's error, the pool counts no
// dial error: the exchange fails as it would have, and the next one dials afresh.
func redialing(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return failedConn{dialFailed{err}}, nil
		}
		return c, nil
	}
}

// failedConn is a connection whose dial failed: every read and write returns the dial's
// error.
type failedConn struct{ err error }

func (c failedConn) Read([]byte) (int, error)         { return 0, c.err }
func (c failedConn) Write([]byte) (int, error)        { return 0, c.err }
func (c failedConn) Close() error                     { return nil }
func (c failedConn) LocalAddr() net.Addr              { return noAddr{} }
func (c failedConn) RemoteAddr() net.Addr             { return noAddr{} }
func (c failedConn) SetDeadline(time.Time) error      { return nil }
func (c failedConn) SetReadDeadline(time.Time) error  { return nil }
func (c failedConn) SetWriteDeadline(time.Time) error { return nil }

// dialFailed carries a dial's error through go-redis, which unwraps a connection's setup
// error once before returning it: the exchange then fails with the dial's own error
// ("dial tcp 127.0.0.1:6379: connect: connection refused"), as without redialing.
type dialFailed struct{ err error }

func (e dialFailed) Error() string { return e.err.Error() }
func (e dialFailed) Unwrap() error { return e.err }

// noAddr is a failedConn's address: none.
type noAddr struct{}

func (noAddr) Network() string { return "tcp" }
func (noAddr) String() string  { return "(not connected)" }
