package retrygrpc

import (
	"context"
	"strconv"

	"github.com/retrykit/retry"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// hedgeable reports whether c, a unary call, may be hedged: its policy has a Hedger, it may
// be sent again, grpc-go does not retry it by itself, its reply is a protobuf message (each
// hedge reads its answer into a message of its own, and the winner's is copied into the
// caller's), and none of its options writes what an attempt reads back into the caller's
// memory (grpc.Header, grpc.Trailer, grpc.Peer), which attempts running at once would race
// on.
func (c *call) hedgeable() bool {
	if c.policy.Hedge == nil || !c.repeatable || c.inner.Load() {
		return false
	}
	if _, ok := c.reply.(proto.Message); !ok {
		return false
	}
	for _, o := range c.opts {
		switch o.(type) {
		case grpc.HeaderCallOption, grpc.TrailerCallOption, grpc.PeerCallOption:
			return false
		}
	}
	return true
}

// hedgedUnary runs a unary call that may be hedged, and copies the reply of the attempt whose
// answer was used into the caller's when it was a hedge's.
func (c *call) hedgedUnary() error {
	c.hedges = new([retry.MaxHedges]attemptState)
	reply, final, err := retry.RunConcurrent(c.ctx, &c.policy,
		retry.Operation[proto.Message]{Attempt: c.hedgedAttempt, Attrs: c.labels[:]})
	final.End()
	if own := c.reply.(proto.Message); reply != nil && reply != own {
		proto.Reset(own)
		proto.Merge(own, reply)
	}
	return stopStatus(err, c.method)
}

// hedgedAttempt sends the call once: the attempt itself with the call's state and reply, or
// a hedge (retry.HedgeOf) with its own, and the hedge's number in its metadata.
func (c *call) hedgedAttempt(ctx context.Context) (proto.Message, retry.Outcome) {
	attempt, hedge := retry.HedgeOf(ctx)
	if hedge == 0 {
		reply := c.reply.(proto.Message)
		_, o := c.unaryAttempt(ctx)
		return reply, o
	}
	st := &c.hedges[hedge-1] // only this hedge's goroutine uses it while it runs
	reply := c.reply.(proto.Message).ProtoReflect().New().Interface()
	hctx := metadata.AppendToOutgoingContext(ctx, AttemptMetadataKey, strconv.Itoa(attempt),
		HedgeMetadataKey, strconv.Itoa(hedge))
	err := c.invoker(hctx, c.method, c.req, reply, c.cc, c.unaryOptions(st)...)
	return reply, c.outcome(st, ctx, err, st.trailer, true, false)
}
