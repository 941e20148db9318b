package retry

import "context"

// loopKey is the context key under which a running loop marks its attempts' contexts.
type loopKey struct{}

// InLoop reports whether ctx belongs to an attempt of a retry loop of this package, that is,
// whether a loop started now would be nested inside another.
func InLoop(ctx context.Context) bool {
	_, ok := ctx.Value(loopKey{}).(bool)
	return ok
}

// markedContext is the caller's context with the loop's mark, which every attempt's context
// derives from. It is context.WithValue(parent, loopKey{}, true) without an allocation under
// the root contexts.
type markedContext struct {
	context.Context
}

var (
	markedBackground = &markedContext{context.Background()}
	markedTODO       = &markedContext{context.TODO()}
)

// markContext returns parent with the loop's mark.
func markContext(parent context.Context) context.Context {
	switch parent {
	case context.Background():
		return markedBackground
	case context.TODO():
		return markedTODO
	}
	return &markedContext{parent}
}

func (c *markedContext) Value(key any) any {
	if _, ok := key.(loopKey); ok {
		return true
	}
	return c.Context.Value(key)
}

func (c *markedContext) String() string { return "retry.markedContext" }
