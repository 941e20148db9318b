package redisfleet

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"strings"
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
// "{PREFIX NAME:budget}:...", NAME being fleet.Config.Name; prefix may be "". The braces
// make a Redis Cluster hash tag that keeps a group's keys in one slot, so prefix must not
// contain '{' or '}' (fleet.Config refuses them in NAME): with one, every Exchange returns
// an error naming the prefix, without a call to Redis.
func New(client redis.Scripter, prefix string) *Store {
	return &Store{client: client, prefix: prefix}
}

// Exchange implements fleet.Store with one script call (EVALSHA, or EVAL after NOSCRIPT). Its
// errors wrap the client's (a redis.Error, a net.Error, ctx's error) with "redisfleet: ".
func (s *Store) Exchange(ctx context.Context, x *fleet.Exchange) error {
	if strings.ContainsAny(s.prefix, "{}") {
		return fmt.Errorf("redisfleet: prefix %q must not contain '{' or '}' (they would break the Redis Cluster hash tag that keeps a group's keys in one slot)", s.prefix)
	}
	tag := "{" + s.prefix + x.Group + "}"
	args := make([]any, 0, 5+4*len(x.Keys))
	args = append(args, tag+":", x.Replica, max(x.Window.Milliseconds(), 10), max(x.OpenTimeout.Milliseconds(), 1), len(x.Keys))
	for i := range x.Keys {
		k := &x.Keys[i]
		args = append(args, k.Name, k.Add[0], k.Add[1], int(k.Op))
	}
	out, err := exchangeScript.Run(ctx, s.client, []string{tag + ":r"}, args...).Slice()
	if err != nil {
		if msg := err.Error(); strings.HasPrefix(msg, "NOAUTH") || strings.Contains(msg, "Protocol error: unauthenticated") {
			// Redis answers an unauthenticated script call with a protocol error about its
			// length, which does not say what is missing.
			return fmt.Errorf("redisfleet: Redis requires a password, and the URL gives none (redis://[user]:PASSWORD@HOST:PORT/DB): %w", err)
		}
		return fmt.Errorf("redisfleet: %w", err)
	}
	n := 2 + 5*len(x.Keys)
	if len(out) < n+1 {
		return fmt.Errorf("redisfleet: the exchange script returned %d values for %d keys, want at least %d", len(out), len(x.Keys), n+1)
	}
	v := make([]int64, n+1)
	for i := range v {
		if v[i], err = integer(out[i]); err != nil {
			return err
		}
	}
	x.Replicas = int(v[1])
	for i := range x.Keys {
		k, r := &x.Keys[i], v[2+5*i:]
		k.Total = [2]int64{r[0], r[1]}
		k.State = breaker.State(r[2])
		k.OpenLeft = time.Duration(r[3]) * time.Millisecond
		k.TrialWon = r[4] == 1
	}
	opened, rest := int(v[n]), out[n+1:]
	if len(rest) != 3*opened {
		return fmt.Errorf("redisfleet: the exchange script listed %d opened keys in %d values", opened, len(rest))
	}
	x.Opened = x.Opened[:0]
	for i := 0; i < len(rest); i += 3 {
		name, ok := rest[i].(string)
		state, err1 := integer(rest[i+1])
		left, err2 := integer(rest[i+2])
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("redisfleet: the exchange script returned an opened key as %v %v %v", rest[i], rest[i+1], rest[i+2])
		}
		x.Opened = append(x.Opened, fleet.Key{Name: name, State: breaker.State(state), OpenLeft: time.Duration(left) * time.Millisecond})
	}
	return nil
}

// NewClient returns a Redis client for url (redis://[user:password@]HOST:PORT/DB, or
// rediss:// for TLS) set up for a fleet: its commands end with the context's deadline
// (ContextTimeoutEnabled), it never retries by itself (MaxRetries -1, DialerRetries 1: the
// fleet's next tick is the retry), and it keeps few connections. Options in the URL's query
// are go-redis's (dial_timeout=2s, protocol=2, ...). The error, for a URL redis.ParseURL
// refuses, says why as go-redis does ("unexpected option: password") without repeating the
// URL or its password.
func NewClient(rawURL string) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redisfleet: the URL is invalid: %s; want redis://[user:password@]HOST:PORT/DB[?go-redis options], or rediss://", whyInvalid(rawURL))
	}
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	opts.PoolSize = 4
	opts.DisableIdentity = true
	return redis.NewClient(opts), nil
}

// whyInvalid says why redis.ParseURL refuses rawURL, from its error for the URL without its
// user info, so that no password can show; a URL that does not parse at all is not quoted
// (net/url's error would repeat it whole).
func whyInvalid(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "it does not parse (not shown: it may hold a password)"
	}
	u.User = nil
	if _, err := redis.ParseURL(u.String()); err != nil {
		return strings.TrimPrefix(err.Error(), "redis: ")
	}
	return "go-redis refuses its user info (not shown)"
}

// integer returns v, a value of the script's reply, as an int64.
func integer(v any) (int64, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("redisfleet: the exchange script returned %v (%T) where a number was due", v, v)
	}
	return n, nil
}
