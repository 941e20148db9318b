package fleet

import (
	"slices"
	"time"

	"github.com/retrykit/retry/ratelimit"
)

// RateRule is how a store shares a rate group's quotas out among the replicas
// (Exchange.Rate): each replica keeps to its [RatePart] of every quota of a key. [RateGate]
// fills it in from its RateGateConfig.
type RateRule struct {
	// MinReplicas is the fewest replicas the quotas are shared among
	// (RateGateConfig.MinReplicas).
	MinReplicas int
	// ShareFor is how long a replica's demand counts in the parts after its exchange
	// (Config.StaleAfter: after that the replica's view is stale, and it keeps its last
	// part alone); a replica gone without a final exchange leaves its part to the others
	// then.
	ShareFor time.Duration
}

// MergeQuota is how every store merges a replica's view of a quota (in) into the fleet's
// (stored), both counted from the same moment; the zero Quota is no view. What a server
// said last wins: the larger limit and window (each replica's may be estimated, and too
// small); for the current window, in's when stored has none, or when in's reset is half a
// window later or more (the next window); stored's when in has none, or when in's reset is
// half a window earlier or more (a window that has passed); else, the same window, the
// lower remaining (the fresher reading: the server counts down) and the later reset.
func MergeQuota(stored, in Quota) Quota {
	out := Quota{Name: in.Name, Limit: max(stored.Limit, in.Limit, 0), Window: max(stored.Window, in.Window, 0), Remaining: -1}
	half := out.Window / 2
	switch {
	case !in.current() && !stored.current():
	case !in.current():
		out.Remaining, out.ResetIn = stored.Remaining, stored.ResetIn
	case !stored.current() || in.ResetIn-stored.ResetIn >= half && half > 0:
		out.Remaining, out.ResetIn = in.Remaining, in.ResetIn
	case stored.ResetIn-in.ResetIn >= half && half > 0:
		out.Remaining, out.ResetIn = stored.Remaining, stored.ResetIn
	default:
		out.Remaining, out.ResetIn = min(stored.Remaining, in.Remaining), max(stored.ResetIn, in.ResetIn)
	}
	return out
}

// RatePart is a rate group's rule, as every store applies it: replica's part of a key's
// quotas, given the demand of every replica that counts (demands, by replica name, replica
// included; a negative demand counts as 0). Each replica weighs its demand + 1, so that a
// replica without demand yet has a part too; the parts are laid in the order of the
// replicas' names from 0 on, each From the running sum of the weights before it over their
// total, so that they tile [0, 1) and hold no unit twice (see ratelimit.Part). When fewer
// than minReplicas replicas count, the total counts one more for each missing, and the
// parts add up to less than 1. A replica absent from demands counts with no demand.
func RatePart(replica string, demands map[string]int64, minReplicas int) ratelimit.Part {
	names := make([]string, 0, len(demands)+1)
	for name := range demands {
		names = append(names, name)
	}
	if _, ok := demands[replica]; !ok {
		names = append(names, replica)
	}
	slices.Sort(names)
	// The sums are of whole numbers, in float64 so that they cannot overflow: the Redis
	// store's Lua computes the same figures, and must get the same parts.
	var total, from float64
	for _, name := range names {
		w := weight(demands[name])
		if name < replica {
			from += w
		}
		total += w
	}
	if n := len(names); n < minReplicas {
		total = total * float64(minReplicas) / float64(n)
	}
	return ratelimit.Part{From: from / total, To: (from + weight(demands[replica])) / total}
}

// weight is a replica's weight in the parts: its demand + 1.
func weight(demand int64) float64 { return float64(max(demand, 0)) + 1 }
