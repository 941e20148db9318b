package redisfleet

import (
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// fleetClient returns a client for s (a *redistest.Server or *redistest.Proxy) as NewClient
// makes it, closed at the test's end.
func fleetClient(t *testing.T, s interface{ URL() string }) *redis.Client {
	t.Helper()
	c, err := NewClient(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func replicaName(i int) string { return fmt.Sprintf("replica-%d", i) }
