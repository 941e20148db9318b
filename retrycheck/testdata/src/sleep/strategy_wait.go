package sleep

import (
	"context"
	"database/sql"
	"time"

	"github.com/Rican7/retry/backoff"
	"github.com/Rican7/retry/strategy"
)

// A Rican7/retry strategy sleeps with time.Sleep (kine's Execute, issue 36).
func execRetry(ctx context.Context, db *sql.DB, q string, retryable func(error) bool) (sql.Result, error) {
	wait := strategy.Backoff(backoff.Linear(100 * time.Millisecond))
	var result sql.Result
	var err error
	for retries := 0; retries < 20; retries++ {
		result, err = db.ExecContext(ctx, q)
		if err != nil && retryable(err) {
			wait(uint(retries)) // want `a Rican7/retry strategy's time.Sleep between attempts ignores cancellation of ctx`
			continue
		}
		return result, err
	}
	return result, err
}
