package retry

import (
	"context"
	"errors"
	"testing"
)

// An operation that is itself a retry of a loop outside (an SDK's) asks the budget before
// its first attempt, and a refusal stops it there; the budget hears that attempt as a retry
// (issue 22 item 5; SPEC R7.3). countingBudget's allow counts down with every question.
func TestOuterRetryAsksTheBudgetFirst(t *testing.T) {
	attempt := func(context.Context) (int, Outcome) { return 0, Outcome{Status: 503} }
	p := &Policy{MaxAttempts: 1}

	refusing := &countingBudget{allow: 0}
	p.Budget = refusing
	var records []Decision
	p.OnDecision = func(_ context.Context, d Decision) { records = append(records, d) }
	_, _, err := Run(context.Background(), p, Operation[int]{Attempt: attempt, OuterRetry: true})
	var stop *Error
	if !errors.As(err, &stop) || stop.Reason != ReasonRetryBudgetExhausted || stop.Attempts != 0 || refusing.allow != -1 ||
		len(refusing.retries) != 0 || len(records) != 1 || !records[0].NoAttempt {
		t.Fatalf("refused: error %v, budget %+v, records %+v", err, refusing, records)
	}

	allowing := &countingBudget{allow: 1}
	p.Budget = allowing
	_, _, err = Run(context.Background(), p, Operation[int]{Attempt: attempt, OuterRetry: true})
	if !errors.Is(err, ErrAttemptsExhausted) || allowing.allow != 0 || len(allowing.retries) != 1 || !allowing.retries[0] {
		t.Fatalf("allowed: error %v, budget %+v", err, allowing)
	}

	first := &countingBudget{allow: 1}
	p.Budget = first
	Run(context.Background(), p, Operation[int]{Attempt: attempt})
	if first.allow != 1 || len(first.retries) != 1 || first.retries[0] {
		t.Fatalf("a first attempt: budget %+v", first)
	}
}
