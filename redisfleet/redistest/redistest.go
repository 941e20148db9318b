// Package redistest starts a redis-server of a test's own, for the tests of package
// redisfleet and of programs that use it (the retry command's --fleet): on a free 127.0.0.1
// port, with no persistence (--save "" --appendonly no), stopped at the test's end.
package redistest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server started by [Start]. Its methods must be called from the test's
// goroutine.
type Server struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
}

// Start starts a redis-server for t, stopped at its end. Without the redis-server binary the
// test is skipped with a message, or fails when the environment has CI=true (CI must
// install it).
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found (CI must install it: apt-get install redis-server): %v", err)
		}
		t.Skipf("redis-server not found, skipping: install redis-server to run the Redis tests (%v)", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, port: l.Addr().(*net.TCPAddr).Port}
	l.Close()
	s.Restart()
	t.Cleanup(s.stop)
	return s
}

// Addr returns the server's "127.0.0.1:PORT".
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL returns the server's "redis://127.0.0.1:PORT/0".
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Restart starts the server again on the same port (after a SIGKILL), empty, and waits
// for it to answer PING, for at most 5 s.
func (s *Server) Restart() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := s.client()
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s not answering after 5 s: %v", s.Addr(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Signal sends sig to the server (SIGKILL, SIGSTOP, SIGCONT); after SIGKILL it reaps the
// process.
func (s *Server) Signal(sig syscall.Signal) {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
	if sig == syscall.SIGKILL {
		_ = s.cmd.Wait()
	}
}

func (s *Server) stop() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

func (s *Server) client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DisableIdentity: true})
}

// CommandCalls returns the calls INFO commandstats counted since the start or the last
// ResetStats, by command name ("evalsha", "eval", "hmget", ...).
func (s *Server) CommandCalls() map[string]int64 {
	s.t.Helper()
	c := s.client()
	defer c.Close()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		s.t.Fatal(err)
	}
	calls := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			s.t.Fatalf("commandstats line %q: %v", line, err)
		}
		calls[strings.TrimPrefix(name, "cmdstat_")] = v
	}
	return calls
}

// ResetStats resets INFO commandstats (CONFIG RESETSTAT).
func (s *Server) ResetStats() {
	s.t.Helper()
	c := s.client()
	defer c.Close()
	if err := c.ConfigResetStat(context.Background()).Err(); err != nil {
		s.t.Fatal(err)
	}
}
