package retry

import (
	"time"

	"github.com/retrykit/retry/internal/quota"
	"github.com/retrykit/retry/internal/weakmap"
)

// defaultBudgets holds the default retry budget of each Policy value whose Budget is nil
// and that has run a loop: package budget's Quota rule with its defaults (internal/quota),
// holding at least the retries of one loop of the policy, told the loop's own clock. An
// entry goes when its Policy is collected.
var defaultBudgets = weakmap.Map[Policy, quota.Quota]{New: func(p *Policy) *quota.Quota {
	q := new(quota.Quota)
	q.Init(quota.RetriesFor(p.maxAttempts()), quota.DefaultRefill)
	return q
}}

// tellBudget tells the retry budget the result r at now of the attempt whose record is d
// (and the transport's re-sends); hedge says it was a hedge.
func (l *Loop) tellBudget(d *Decision, r Result, now time.Time, hedge bool) {
	switch b := l.p.Budget; {
	case isNoBudget(b):
	case b != nil:
		b.Done(l.s.Attempt > 1 || hedge, r)
		if counter, ok := b.(ResendCounter); ok && d.TransportResends > 0 {
			counter.Resent(d.TransportResends)
		}
	default:
		l.defaultBudget().Done(now, r == ResultSuccess)
	}
}

// allowRetry asks the loop's retry budget at now for one retry.
func (l *Loop) allowRetry(now time.Time) bool {
	switch b := l.p.Budget; {
	case isNoBudget(b):
		return true
	case b != nil:
		return b.AllowRetry()
	}
	return l.defaultBudget().Take(now)
}

// defaultBudget returns the default budget of the loop's Policy value, made on first use.
func (l *Loop) defaultBudget() *quota.Quota {
	if l.budget == nil {
		l.budget = defaultBudgets.Get(l.p, true)
	}
	return l.budget
}
