package redisfleet

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/retrykit/retry/fleet"
)

// go-redis's own log lines go to the caller's slog, not to stderr (issue 24 item 7: before,
// six failed exchanges printed four "redis: connection pool: failed to dial" lines on
// stderr). The test runs itself again as a child process, since go-redis's logger is the
// process's: the child sets SetLogger to a JSON handler on stdout, makes six exchanges
// with a client of NewClient and six with a plain go-redis client (whose pool does log its
// failed dials) against a closed port; the parent reads the child's stderr and stdout.
func TestGoRedisLogsGoToSlog(t *testing.T) {
	if os.Getenv("REDISFLEET_LOG_CHILD") == "1" {
		SetLogger(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
		fleetOwn, err := NewClient("redis://127.0.0.1:1/0")
		if err != nil {
			t.Fatal(err)
		}
		defer fleetOwn.Close()
		plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", PoolSize: 2, MaxRetries: -1, DialerRetries: 1, DisableIdentity: true})
		defer plain.Close()
		for _, c := range []*redis.Client{fleetOwn, plain} {
			for range 6 {
				x := &fleet.Exchange{Group: "svc:breaker", Replica: "a", Window: time.Second, OpenTimeout: time.Second}
				if err := New(c, "").Exchange(context.Background(), x); err == nil {
					t.Fatal("an exchange with a closed port succeeded")
				}
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoRedisLogsGoToSlog$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REDISFLEET_LOG_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	if stderr.Len() != 0 {
		t.Errorf("go-redis wrote on stderr:\n%s", &stderr)
	}
	records := strings.Count(stdout.String(), `"level":"WARN","msg":"redis: connection pool: failed to dial`)
	t.Logf("%d slog records from the plain client's failed dials, %d bytes on stderr", records, stderr.Len())
	if records < 1 {
		t.Errorf("no slog record of go-redis's failed dials in the child's stdout:\n%s", &stdout)
	}
}
