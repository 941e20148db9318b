package redistest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy relays TCP connections from 127.0.0.1 to a server, and can delay the server's
// replies: a far or loaded Redis, whose replies come after the client's timeout although the
// server ran the command. Stopped, with every connection, at the test's end.
type Proxy struct {
	l      net.Listener
	target string
	delay  atomic.Int64 // nanoseconds added to every reply

	mu      sync.Mutex
	conns   []net.Conn
	stopped bool
	wg      sync.WaitGroup
}

// NewProxy starts a proxy to target ("127.0.0.1:PORT") on a free 127.0.0.1 port.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{l: l, target: target}
	p.wg.Go(p.accept)
	t.Cleanup(p.stop)
	return p
}

// Addr returns the proxy's "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return p.l.Addr().String() }

// URL returns the proxy's "redis://127.0.0.1:PORT/0".
func (p *Proxy) URL() string { return "redis://" + p.Addr() + "/0" }

// Port returns the proxy's port.
func (p *Proxy) Port() int { return p.l.Addr().(*net.TCPAddr).Port }

// SetDelay makes every reply (every chunk the server sends) reach the client d after the
// proxy read it, in order; 0 relays at once. It applies to the replies read from now on.
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

func (p *Proxy) accept() {
	for {
		client, err := p.l.Accept()
		if err != nil {
			return // stopped
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Go(func() { _, _ = io.Copy(server, client); server.Close(); client.Close() })
		p.wg.Go(func() { p.relayDelayed(client, server); server.Close(); client.Close() })
	}
}

// track keeps the connections for stop; false when the proxy is stopping.
func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	p.conns = append(p.conns, cs...)
	return true
}

// chunk is a piece of a reply and when the proxy read it.
type chunk struct {
	data []byte
	at   time.Time
}

// relayDelayed copies from server to client, each chunk delay after it was read.
func (p *Proxy) relayDelayed(client, server net.Conn) {
	chunks := make(chan chunk, 256)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := server.Read(buf)
			if n > 0 {
				chunks <- chunk{buf[:n], time.Now()}
			}
			if err != nil {
				return
			}
		}
	})
	for c := range chunks {
		time.Sleep(time.Until(c.at.Add(time.Duration(p.delay.Load()))))
		if _, err := client.Write(c.data); err != nil {
			server.Close() // ends the reader
			break
		}
	}
	for range chunks { // drain until the reader ends
	}
	wg.Wait()
}

func (p *Proxy) stop() {
	p.l.Close()
	p.mu.Lock()
	conns := p.conns
	p.conns, p.stopped = nil, true
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
}
