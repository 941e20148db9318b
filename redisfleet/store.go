package redisfleet

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
)

//go:embed exchange.lua
var exchangeSource string

var exchangeScript = redis.NewScript(exchangeSource)

// Store is a [fleet.Store] on Redis. Create one with [New]; it is safe for concurrent use.
type Store struct {
	client redis.Scripter
	prefix string
}

// New returns a Store over client: a *redis.Client, *redis.ClusterClient, *redis.Ring or
// anything else that runs scripts. Keys are named "{PREFIX NAME:breaker}:..." and
// "{PREFIX NAME:budget}:...", NAME being fleet.Config.Name; prefix may be "".
func New(client redis.Scripter, prefix string) *Store {
	return &Store{client: client, prefix: prefix}
}

// Exchange implements fleet.Store with one script call (EVALSHA, or EVAL after NOSCRIPT). Its
// errors wrap the client's (a redis.Error, a net.Error, ctx's error) with "redisfleet: ".
func (s *Store) Exchange(ctx context.Context, x *fleet.Exchange) error {
	tag := "{" + s.prefix + x.Group + "}"
	args := make([]any, 0, 5+4*len(x.Keys))
	args = append(args, tag+":", x.Replica, max(x.Window.Milliseconds(), 10), max(x.OpenTimeout.Milliseconds(), 1), len(x.Keys))
	for i := range x.Keys {
		k := &x.Keys[i]
		args = append(args, k.Name, k.Add[0], k.Add[1], int(k.Op))
	}
	out, err := exchangeScript.Run(ctx, s.client, []string{tag + ":r"}, args...).Int64Slice()
	if err != nil {
		return fmt.Errorf("redisfleet: %w", err)
	}
	if len(out) != 2+5*len(x.Keys) {
		return fmt.Errorf("redisfleet: the exchange script returned %d values for %d keys, want %d", len(out), len(x.Keys), 2+5*len(x.Keys))
	}
	x.Replicas = int(out[1])
	for i := range x.Keys {
		k, v := &x.Keys[i], out[2+5*i:]
		k.Total = [2]int64{v[0], v[1]}
		k.State = breaker.State(v[2])
		k.OpenLeft = time.Duration(v[3]) * time.Millisecond
		k.TrialWon = v[4] == 1
	}
	return nil
}

// NewClient returns a Redis client for url (redis://[user:password@]HOST:PORT/DB, or
// rediss:// for TLS) set up for a fleet: its commands end with the context's deadline
// (ContextTimeoutEnabled), it never retries by itself (MaxRetries -1, DialerRetries 1: the
// fleet's next tick is the retry), and it keeps few connections. The error, for a URL redis.ParseURL refuses,
// does not repeat the URL (it may hold a password).
func NewClient(url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisfleet: not a redis:// or rediss:// URL (redis://[user:password@]HOST:PORT/DB)")
	}
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	opts.PoolSize = 4
	opts.DisableIdentity = true
	return redis.NewClient(opts), nil
}
