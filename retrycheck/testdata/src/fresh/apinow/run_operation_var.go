// Fresh case (issue 36, our API as it is): the Operation is built first and handed to
// Run by name; its Attempt uses the outer context.
package apinow

import (
	"context"
	"database/sql"

	"github.com/retrykit/retry"
)

func countRows(ctx context.Context, db *sql.DB, table string) (int, error) {
	op := retry.Operation[int]{
		Attempt: func(attemptCtx context.Context) (int, retry.Outcome) {
			var n int
			err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n) // want `the attempt function of retry.Run uses the outer ctx instead of its own context parameter`
			return n, retry.Outcome{Err: err}
		},
	}
	n, fin, err := retry.Run(ctx, &retry.Policy{MaxAttempts: 3}, op)
	fin.End()
	return n, err
}
