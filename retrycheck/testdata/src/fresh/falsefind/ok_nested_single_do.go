// Fresh case (issue 36, false findings): not a finding. The inner loop, of this project,
// is told to make a single attempt when nested, as the README recommends.
package falsefind

import (
	"context"

	"github.com/retrykit/retry"
)

func readThrough(ctx context.Context, get func(context.Context) error) error {
	return retry.Do(ctx, &retry.Policy{MaxAttempts: 5}, func(ctx context.Context) error {
		return retry.Do(ctx, &retry.Policy{MaxAttempts: 3, Nested: retry.NestedSingleAttempt}, get)
	})
}
