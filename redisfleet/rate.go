package redisfleet

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/ratelimit"
)

//go:embed rate.lua
var rateSource string

var rateScript = redis.NewScript(rateSource)

// Values of the rate script's reply before each key's quotas, and per quota.
const (
	replyPerRateKey = 5
	replyPerQuota   = 5
)

// rateScriptArgs returns the rate script's KEYS and ARGV for x, a rate group's exchange (see
// rate.lua). Durations sent are rounded up to the millisecond: a reset or a hold told late
// holds longer, never shorter.
func (s *Store) rateScriptArgs(x *fleet.Exchange) (keys []string, args []any) {
	tag := "{" + s.prefix + x.Group + "}:"
	keys = make([]string, 0, 2*len(x.Keys))
	args = make([]any, 0, 5+4*len(x.Keys))
	args = append(args, x.Replica, max(x.Rate.ShareFor.Milliseconds(), 1), x.Rate.MinReplicas, flag(x.Final), len(x.Keys))
	for i := range x.Keys {
		k := &x.Keys[i]
		keys = append(keys, tag+"q:"+k.Name, tag+"d:"+k.Name)
		args = append(args, k.Name, k.Own, ceilMilliseconds(k.Hold), len(k.Quotas))
		for _, q := range k.Quotas {
			remaining, reset := int64(-1), int64(0)
			if q.Remaining >= 0 && q.ResetIn > 0 {
				remaining, reset = q.Remaining, ceilMilliseconds(q.ResetIn)
			}
			args = append(args, q.Name, max(q.Limit, 0), ceilMilliseconds(q.Window), remaining, reset)
		}
	}
	return keys, args
}

// ceilMilliseconds is d in whole milliseconds, rounded up; 0 for d at or below 0.
func ceilMilliseconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// readRate fills x's outputs from the rate script's reply.
func readRate(x *fleet.Exchange, out []any) error {
	bad := func(what string, v any) error {
		return fmt.Errorf("redisfleet: the rate script returned %v (%T) where %s was due", v, v, what)
	}
	if len(out) < 2 {
		return fmt.Errorf("redisfleet: the rate script returned %d values, want at least 2", len(out))
	}
	replicas, err := integer(out[1])
	if err != nil {
		return err
	}
	x.Replicas = int(replicas)
	rest := out[2:]
	for i := range x.Keys {
		k := &x.Keys[i]
		if len(rest) < replyPerRateKey {
			return fmt.Errorf("redisfleet: the rate script's reply ends before key %d of %d", i+1, len(x.Keys))
		}
		var n [3]int64
		for j, at := range []int{0, 3, 4} {
			if n[j], err = integer(rest[at]); err != nil {
				return err
			}
		}
		var part [2]float64
		for j := range part {
			str, ok := rest[1+j].(string)
			if part[j], err = strconv.ParseFloat(str, 64); !ok || err != nil {
				return bad("a part's bound", rest[1+j])
			}
		}
		k.Hold, k.Part, k.Shared = milliseconds(n[0]), ratelimit.Part{From: part[0], To: part[1]}, milliseconds(n[1])
		quotas := int(n[2])
		rest = rest[replyPerRateKey:]
		if quotas < 0 || len(rest) < replyPerQuota*quotas {
			return fmt.Errorf("redisfleet: the rate script listed %d quotas in %d values", quotas, len(rest))
		}
		k.Quotas = k.Quotas[:0]
		for range quotas {
			name, ok := rest[0].(string)
			if !ok {
				return bad("a quota's name", rest[0])
			}
			var v [4]int64
			for j := range v {
				if v[j], err = integer(rest[1+j]); err != nil {
					return err
				}
			}
			k.Quotas = append(k.Quotas, fleet.Quota{Name: name, Limit: v[0], Window: milliseconds(v[1]), Remaining: v[2],
				ResetIn: milliseconds(v[3])})
			rest = rest[replyPerQuota:]
		}
	}
	return nil
}

// milliseconds is n ms as a Duration.
func milliseconds(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
