package retrygrpc_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// A client whose calls are retried: the server answers UNAVAILABLE once, then OK. The
// decision records go to stdout, field by field (the times and the error's text left out
// here: the times vary).
func ExampleNew() {
	// A server in memory that fails once (any gRPC server will do).
	lis := bufconn.Listen(1 << 16)
	gs := grpc.NewServer()
	newServer(answer{code: codes.Unavailable}, answer{}).register(gs)
	go gs.Serve(lis)
	defer gs.Stop()

	ic, err := retrygrpc.New(retrygrpc.WithPolicy(&retry.Policy{
		MaxAttempts: 3,
		OnDecision: func(_ context.Context, d retry.Decision) {
			var fields []string
			for f := range d.Fields() {
				if f.Key != "error" && !strings.HasSuffix(f.Key, "_ms") {
					fields = append(fields, f.String())
				}
			}
			fmt.Println(strings.Join(fields, " "))
		},
	}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	conn, err := grpc.NewClient("passthrough:///in-memory", append(ic.DialOptions(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer conn.Close()

	reply := new(wrapperspb.StringValue)
	err = conn.Invoke(context.Background(), "/retrygrpc.test.Echo/Get", wrapperspb.String("hello"), reply)
	fmt.Println(reply.GetValue(), err)
	// Output:
	// attempt=1 method=/retrygrpc.test.Echo/Get decision=retry reason=retryable_error outcome=failure grpc_code=UNAVAILABLE
	// attempt=2 method=/retrygrpc.test.Echo/Get decision=stop reason=success outcome=success grpc_code=OK
	// echo hello <nil>
}

// Options given to a call as grpc.CallOptions change the rules for that call only: here a
// write declared idempotent, retried on ABORTED as well, under a policy of its own.
func ExampleIdempotent() {
	var conn *grpc.ClientConn // dialed with an Interceptor's DialOptions
	call := func(ctx context.Context, in, out *wrapperspb.StringValue) error {
		return conn.Invoke(ctx, "/shop.Orders/SetStatus", in, out,
			retrygrpc.Idempotent(),
			retrygrpc.WithCodes(codes.Unavailable, codes.Aborted),
			retrygrpc.WithPolicy(&retry.Policy{MaxAttempts: 5, Timeout: 2 * time.Second}))
	}
	_ = call
}
