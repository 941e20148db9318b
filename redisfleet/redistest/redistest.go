// Package redistest starts a redis-server of a test's own, for the tests of package
// redisfleet and of programs that use it (the retry command's --fleet): on a free 127.0.0.1
// port, with no automatic persistence (--save "" --appendonly no; a snapshot is written only
// by [Server.Save], in the test's own directory), stopped at the test's end. It also starts a
// Redis Cluster of three masters ([StartCluster]) and a proxy that delays replies
// ([NewProxy]), for the faults the tests inject.
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
	t     testing.TB
	port  int
	dir   string   // --dir: the snapshot (dump.rdb) and, in a cluster, nodes.conf
	extra []string // further redis-server arguments
	cmd   *exec.Cmd
}

// Start starts a redis-server for t, stopped at its end. Without the redis-server binary the
// test is skipped with a message, or fails when the environment has CI=true (CI must
// install it).
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t)
}

// start starts a redis-server with the extra arguments given.
func start(t testing.TB, extra ...string) *Server {
	t.Helper()
	needBinary(t, "redis-server")
	s := &Server{t: t, port: freePort(t), dir: t.TempDir(), extra: extra}
	s.Restart()
	t.Cleanup(s.stop)
	return s
}

// needBinary skips t, with a message, when the binary is missing, or fails it when the
// environment has CI=true (CI must install it).
func needBinary(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found (CI must install it: apt-get install redis-server): %v", name, err)
		}
		t.Skipf("%s not found, skipping: install redis-server to run the Redis tests (%v)", name, err)
	}
}

// freePort returns a 127.0.0.1 port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Addr returns the server's "127.0.0.1:PORT".
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL returns the server's "redis://127.0.0.1:PORT/0".
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Port returns the server's port.
func (s *Server) Port() int { return s.port }

// Restart starts the server again on the same port (after a SIGKILL) and waits for it to
// answer PING, for at most 5 s. It starts empty, or from the last snapshot [Server.Save]
// wrote: a roll-back to that snapshot.
func (s *Server) Restart() {
	s.t.Helper()
	args := append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--enable-debug-command", "local"}, s.extra...)
	s.cmd = exec.Command("redis-server", args...)
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

// Save writes a snapshot of the server's data now (SAVE), for [Server.RollBack] or a
// Restart to go back to.
func (s *Server) Save() {
	s.t.Helper()
	s.do("SAVE")
}

// RollBack replaces the server's data with the last snapshot Save wrote (DEBUG RELOAD
// NOSAVE), without a restart: what a failover to a lagging replica, or a restore from a
// backup, does to the data.
func (s *Server) RollBack() {
	s.t.Helper()
	s.do("DEBUG", "RELOAD", "NOSAVE")
}

// Do runs one command on the server (FLUSHALL, SCRIPT FLUSH, ...) on a connection of its
// own and fails the test on an error.
func (s *Server) Do(args ...any) any {
	s.t.Helper()
	return s.do(args...)
}

func (s *Server) do(args ...any) any {
	s.t.Helper()
	c := s.client()
	defer c.Close()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil {
		s.t.Fatalf("%v on %s: %v", args, s.Addr(), err)
	}
	return v
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
