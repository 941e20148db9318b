// Fresh case (issue 36, loops not recognised): success breaks out of the loop from an if
// with an init statement, the bound is checked after the wait, and the error is kept.
package loopshape

import (
	"context"
	"fmt"
	"time"
)

type Migrator interface {
	Migrate(ctx context.Context) error
}

func runMigrations(ctx context.Context, m Migrator, maxTries int) error {
	var lastErr error
	for attempt := 1; ; attempt++ {
		if lastErr = m.Migrate(ctx); lastErr == nil {
			break
		}
		wait := time.Duration(attempt*attempt) * time.Second
		fmt.Printf("migration failed (attempt %d), retrying in %s: %v\n", attempt, wait, lastErr)
		<-time.After(wait) // want `<-time.After between attempts ignores cancellation of ctx`
		if attempt >= maxTries {
			return fmt.Errorf("migrations: %w", lastErr)
		}
	}
	return nil
}
