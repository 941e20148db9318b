package attemptctx

import (
	"context"
	"time"

	gax "github.com/googleapis/gax-go/v2"
)

func gaxUnnamed(ctx context.Context, rpc func(context.Context) error) error {
	return gax.Invoke(ctx, func(context.Context, gax.CallSettings) error {
		return rpc(ctx) // want `the attempt function of gax.Invoke uses the outer ctx instead of its own context parameter`
	}, gax.WithTimeout(time.Second))
}
