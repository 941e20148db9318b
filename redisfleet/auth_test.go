package redisfleet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// A Redis that requires a password, met without one, answers the exchange with "ERR
// Protocol error: unauthenticated multibulk length"; the error says what is missing. With
// the password in the URL, the exchange works.
func TestExchangeWithoutThePasswordSaysSo(t *testing.T) {
	s := redistest.Start(t)
	ctx := context.Background()
	admin := fleetClient(t, s)
	if err := admin.ConfigSet(ctx, "requirepass", "sekret").Err(); err != nil {
		t.Fatal(err)
	}
	authed, err := NewClient("redis://:sekret@" + s.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer authed.Close()
	t.Cleanup(func() { authed.ConfigSet(ctx, "requirepass", "") })
	x := func() *fleet.Exchange {
		return &fleet.Exchange{Group: "svc:breaker", Replica: "a", Window: 10 * time.Second,
			OpenTimeout: time.Second, Keys: []fleet.Key{{Name: "https://a:443", Counts: [2]int64{1, 0}, Unsent: [2]int64{1, 0}}}}
	}
	err = New(fleetClient(t, s), "").Exchange(ctx, x())
	const want = "redisfleet: Redis requires a password, and the URL gives none (redis://[user]:PASSWORD@HOST:PORT/DB): "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("exchange without the password: %v, want an error starting %q", err, want)
	}
	if err := New(authed, "").Exchange(ctx, x()); err != nil {
		t.Errorf("exchange with the password: %v", err)
	}
}
