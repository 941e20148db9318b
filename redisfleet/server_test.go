package redisfleet

import (
	"context"
	"fmt"
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

// server is a redis-server of the test's own on a free 127.0.0.1 port, with no persistence.
type server struct {
	t    *testing.T
	port int
	cmd  *exec.Cmd
}

// startRedis starts a redis-server for t, stopped at its end. Without the binary the test
// is skipped, or fails under CI=true (.ci/run installs it).
func startRedis(t *testing.T) *server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found (CI must install it): %v", err)
		}
		t.Skipf("redis-server not found, skipping: install redis-server to run the Redis tests (%v)", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, port: l.Addr().(*net.TCPAddr).Port}
	l.Close()
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *server) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

func (s *server) start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "yes")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s not answering after 5 s: %v", s.addr(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signal sends sig to the server; after SIGKILL the process is reaped.
func (s *server) signal(sig syscall.Signal) {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
	if sig == syscall.SIGKILL {
		_ = s.cmd.Wait()
	}
}

func (s *server) stop() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

// client returns a client for the fleet, as NewClient makes it, closed at the test's end.
func (s *server) client() *redis.Client {
	s.t.Helper()
	c, err := NewClient("redis://" + s.addr() + "/0")
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { c.Close() })
	return c
}

// commandCalls returns the calls counted by INFO commandstats, by command.
func (s *server) commandCalls() map[string]int64 {
	s.t.Helper()
	info, err := s.client().Info(context.Background(), "commandstats").Result()
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

func (s *server) resetStats() {
	s.t.Helper()
	if err := s.client().ConfigResetStat(context.Background()).Err(); err != nil {
		s.t.Fatal(err)
	}
}

func replicaName(i int) string { return fmt.Sprintf("replica-%d", i) }
