package redisfleet

import (
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/retrykit/retry/redisfleet/redistest"
)

// fleetClient returns a client for s as NewClient makes it, closed at the test's end.
func fleetClient(t *testing.T, s *redistest.Server) *redis.Client {
	t.Helper()
	c, err := NewClient(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func replicaName(i int) string { return fmt.Sprintf("replica-%d", i) }
