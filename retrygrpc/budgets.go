package retrygrpc

import (
	"sync"

	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/ratelimit"
)

// targetBudgets are an Interceptor's default retry budgets, one per connection target (see
// WithBudgets), made on first use.
type targetBudgets struct {
	once  sync.Once
	group *budget.Group
}

// defaultBudgets returns ic's default budgets.
func (ic *Interceptor) defaultBudgets() *budget.Group {
	ic.budgets.once.Do(func() {
		if ic.budgets.group != nil {
			return // shared with the Interceptor that made ic (DialOptions)
		}
		quota := budget.QuotaFor(ic.s.policy)
		g, err := budget.NewGroup(budget.GroupConfig{Quota: &quota})
		if err != nil {
			panic(err) // QuotaFor's config is valid
		}
		ic.budgets.group = g
	})
	return ic.budgets.group
}

// targetGates are an Interceptor's default rate gates, one per connection target (see
// WithRateGates), made on first use.
type targetGates struct {
	once  sync.Once
	group *ratelimit.Group
}

// defaultGates returns ic's default rate gates.
func (ic *Interceptor) defaultGates() *ratelimit.Group {
	ic.gates.once.Do(func() {
		if ic.gates.group == nil { // else shared with the Interceptor that made ic (DialOptions)
			ic.gates.group = new(ratelimit.Group)
		}
	})
	return ic.gates.group
}
