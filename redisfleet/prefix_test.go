package redisfleet

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/retrykit/retry/fleet"
)

// A prefix with a brace would break the group's Redis Cluster hash tag (CROSSSLOT): every
// exchange is refused with an error naming it, before any call to Redis (the client's
// address, a closed loopback port, is never dialed).
func TestPrefixWithBraceRefused(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	x := &fleet.Exchange{Group: "svc:breaker", Replica: "a", Keys: []fleet.Key{{Name: "k"}}}
	err := New(c, "app}").Exchange(context.Background(), x)
	want := `redisfleet: prefix "app}" must not contain '{' or '}' (they would break the Redis Cluster hash tag that keeps a group's keys in one slot)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
