package redisfleet

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"strconv"
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

// Exchange implements fleet.Store with one script call (EVALSHA, or EVAL after NOSCRIPT)
// that declares every key it touches: exchange.lua for breaker and budget groups, rate.lua
// for rate groups. Its errors wrap the client's (a redis.Error, a
// net.Error, ctx's error) with "redisfleet: ".
func (s *Store) Exchange(ctx context.Context, x *fleet.Exchange) error {
	if strings.ContainsAny(s.prefix, "{}") {
		return fmt.Errorf("redisfleet: prefix %q must not contain '{' or '}' (they would break the Redis Cluster hash tag that keeps a group's keys in one slot)", s.prefix)
	}
	script, keys, args := exchangeScript, []string(nil), []any(nil)
	if x.Rate != nil {
		script = rateScript
		keys, args = s.rateScriptArgs(x)
	} else {
		keys, args = s.script(x)
	}
	out, err := script.Run(ctx, s.client, keys, args...).Slice()
	if err != nil {
		if msg := err.Error(); strings.HasPrefix(msg, "NOAUTH") || strings.Contains(msg, "Protocol error: unauthenticated") {
			// Redis answers an unauthenticated script call with a protocol error about its
			// length, which does not say what is missing.
			return fmt.Errorf("redisfleet: Redis requires a password, and the URL gives none (redis://[user]:PASSWORD@HOST:PORT/DB): %w", err)
		}
		return fmt.Errorf("redisfleet: %w", err)
	}
	if x.Rate != nil {
		return readRate(x, out)
	}
	return read(x, out)
}

// Values of the script's reply per key, and per opened key.
const (
	replyPerKey    = 9
	replyPerOpened = 6
)

// script returns the script's KEYS and ARGV for x (see exchange.lua).
func (s *Store) script(x *fleet.Exchange) (keys []string, args []any) {
	tag := "{" + s.prefix + x.Group + "}:"
	budget := x.Budget != nil
	var rule fleet.BudgetRule
	per := 1
	if budget {
		rule, per = *x.Budget, 3
	}
	keys = make([]string, 0, 3+per*len(x.Keys))
	keys = append(keys, tag+"r", tag+"st", tag+"seen:"+x.Replica)
	args = make([]any, 0, 11+15*len(x.Keys))
	args = append(args, x.Replica, max(x.Window.Milliseconds(), 10), max(x.OpenTimeout.Milliseconds(), 0),
		max(x.TrialTimeout.Milliseconds(), 0), flag(budget), float(rule.Ratio), float(rule.Floor), rule.MinReplicas,
		max(rule.GrantFor.Milliseconds(), 1), flag(x.Final), len(x.Keys))
	for i := range x.Keys {
		k := &x.Keys[i]
		keys = append(keys, tag+"c:"+k.Name)
		if budget {
			keys = append(keys, tag+"g:"+k.Name, tag+"ge:"+k.Name)
		}
		kn := &k.Known
		args = append(args, k.Name, max(k.Counts[0], 0), max(k.Counts[1], 0), max(k.Unsent[0], 0), max(k.Unsent[1], 0),
			int(k.Op), k.Trial, int(kn.State), kn.Changed, kn.OpenLeft.Milliseconds(), kn.Trial, kn.TrialLeft.Milliseconds(),
			k.Own, float(k.Draw), max(k.OpenFor.Milliseconds(), 0))
	}
	return keys, args
}

// read fills x's outputs from the script's reply.
func read(x *fleet.Exchange, out []any) error {
	n := 2 + replyPerKey*len(x.Keys)
	if len(out) < n+1 {
		return fmt.Errorf("redisfleet: the exchange script returned %d values for %d keys, want at least %d", len(out), len(x.Keys), n+1)
	}
	v := make([]int64, n+1)
	for i := range v {
		var err error
		if v[i], err = integer(out[i]); err != nil {
			return err
		}
	}
	x.Replicas = int(v[1])
	for i := range x.Keys {
		k, r := &x.Keys[i], v[2+replyPerKey*i:]
		k.Total = [2]int64{r[0], r[1]}
		k.State = state(r[2:7])
		k.TrialWon = r[7] == 1
		k.Grant = r[8]
	}
	opened, rest := int(v[n]), out[n+1:]
	if len(rest) != replyPerOpened*opened {
		return fmt.Errorf("redisfleet: the exchange script listed %d opened keys in %d values", opened, len(rest))
	}
	x.Opened = x.Opened[:0]
	for i := 0; i < len(rest); i += replyPerOpened {
		name, ok := rest[i].(string)
		var r [5]int64
		for j := range r {
			var err error
			if r[j], err = integer(rest[i+1+j]); err != nil {
				ok = false
			}
		}
		if !ok {
			return fmt.Errorf("redisfleet: the exchange script returned an opened key as %v", rest[i:i+replyPerOpened])
		}
		x.Opened = append(x.Opened, fleet.Key{Name: name, State: state(r[:])})
	}
	return nil
}

// state reads a KeyState from the script's five values: state, changed, open left ms,
// trial, trial left ms.
func state(r []int64) fleet.KeyState {
	return fleet.KeyState{State: breaker.State(r[0]), Changed: r[1], OpenLeft: time.Duration(r[2]) * time.Millisecond,
		Trial: r[3], TrialLeft: time.Duration(r[4]) * time.Millisecond}
}

// flag is a script's boolean argument.
func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// float is a script's number argument, exact: Lua reads it back to the same float64.
func float(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// NewClient returns a Redis client for url (redis://[user:password@]HOST:PORT/DB, or
// rediss:// for TLS) set up for a fleet: its commands end with the context's deadline
// (ContextTimeoutEnabled), it never retries by itself (MaxRetries -1, DialerRetries 1: the
// fleet's next tick is the retry), it keeps few connections, and it dials Redis again at
// every exchange while Redis is down, so that a restarted Redis is used from the next tick
// (go-redis's pool, after PoolSize failed dials, stops dialling for up to a second: its
// Dialer is wrapped so that the pool never sees a failed dial). Options in the URL's query
// are go-redis's (dial_timeout=2s, protocol=2, ...). The error, for a URL redis.ParseURL
// refuses, says why as go-redis does ("unexpected option: password") without repeating the
// URL or its password. go-redis logs through its own process-wide logger: see [SetLogger].
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
	opts.Dialer = redialing(redis.NewDialer(opts))
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
