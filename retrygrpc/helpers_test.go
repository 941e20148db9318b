package retrygrpc_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retrygrpc"
	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func TestMain(m *testing.M) {
	registerEchoDescriptor()
	goleak.VerifyTestMain(m)
}

// The test service, written by hand (no protoc): retrygrpc.test.Echo with unary methods Get
// (idempotency_level NO_SIDE_EFFECTS in its descriptor), Put (IDEMPOTENT) and Post (no
// level), a server-streaming List (NO_SIDE_EFFECTS) and a bidirectional Chat, all on
// StringValue.
const (
	methodGet  = "/retrygrpc.test.Echo/Get"
	methodPut  = "/retrygrpc.test.Echo/Put"
	methodPost = "/retrygrpc.test.Echo/Post"
	methodList = "/retrygrpc.test.Echo/List"
	methodChat = "/retrygrpc.test.Echo/Chat"
)

var (
	listDesc = grpc.StreamDesc{StreamName: "List", ServerStreams: true}
	chatDesc = grpc.StreamDesc{StreamName: "Chat", ServerStreams: true, ClientStreams: true}
)

// registerEchoDescriptor registers the service's descriptor in protoregistry.GlobalFiles, as
// generated code would, so that the interceptor can read the methods' idempotency levels.
func registerEchoDescriptor() {
	level := func(l descriptorpb.MethodOptions_IdempotencyLevel) *descriptorpb.MethodOptions {
		return &descriptorpb.MethodOptions{IdempotencyLevel: l.Enum()}
	}
	str := ".google.protobuf.StringValue"
	method := func(name string, o *descriptorpb.MethodOptions, client, server bool) *descriptorpb.MethodDescriptorProto {
		return &descriptorpb.MethodDescriptorProto{Name: &name, InputType: &str, OutputType: &str, Options: o,
			ClientStreaming: &client, ServerStreaming: &server}
	}
	name, pkg, service := "retrygrpc_test_echo.proto", "retrygrpc.test", "Echo"
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: &name, Package: &pkg, Dependency: []string{"google/protobuf/wrappers.proto"},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: &service, Method: []*descriptorpb.MethodDescriptorProto{
			method("Get", level(descriptorpb.MethodOptions_NO_SIDE_EFFECTS), false, false),
			method("Put", level(descriptorpb.MethodOptions_IDEMPOTENT), false, false),
			method("Post", nil, false, false),
			method("List", level(descriptorpb.MethodOptions_NO_SIDE_EFFECTS), false, true),
			method("Chat", nil, true, true),
		}}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	if err := protoregistry.GlobalFiles.RegisterFile(fd); err != nil {
		panic(err)
	}
}

// answer is what the scripted server does for one attempt.
type answer struct {
	code      codes.Code
	message   string         // the status message; "scripted CODE" when empty
	header    bool           // send the response header before the status
	pushback  []string       // grpc-retry-pushback-ms trailer values
	retryInfo *time.Duration // a google.rpc.RetryInfo detail's retry_delay
	sendFirst bool           // List: send one message before failing
	empty     bool           // List: end with OK without a message
	delay     time.Duration  // how long the handler takes
	after     time.Duration  // List: how long to wait after the first message
}

// seen is what the server saw of one attempt.
type seen struct {
	method  string
	at      time.Time
	attempt []string // the retry-attempt metadata
	hedge   []string // the retry-hedge metadata
	key     []string // the idempotency-key metadata
}

// server answers each attempt with the next answer of its script; the last one repeats.
type server struct {
	mu      sync.Mutex
	script  []answer
	attempt []seen
}

func newServer(script ...answer) *server { return &server{script: script} }

func (s *server) next(ctx context.Context) answer {
	md, _ := metadata.FromIncomingContext(ctx)
	method, _ := grpc.Method(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempt = append(s.attempt, seen{method: method, at: time.Now(), attempt: md.Get(retrygrpc.AttemptMetadataKey),
		hedge: md.Get(retrygrpc.HedgeMetadataKey), key: md.Get(retrygrpc.DefaultIdempotencyKey)})
	a := answer{}
	if len(s.script) > 0 {
		a = s.script[min(len(s.attempt), len(s.script))-1]
	}
	return a
}

// always makes s answer a to every attempt from now on.
func (s *server) always(a answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = []answer{a}
}

func (s *server) seen() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.attempt...)
}

// wait takes a's delay, or less when ctx ends first.
func (a answer) wait(ctx context.Context) error {
	if a.delay <= 0 {
		return nil
	}
	select {
	case <-time.After(a.delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// status returns a's status, with its trailer set on ctx.
func (a answer) status(ctx context.Context) error {
	if len(a.pushback) > 0 {
		md := metadata.MD{}
		md[retrygrpc.PushbackTrailer] = a.pushback
		grpc.SetTrailer(ctx, md)
	}
	if a.header {
		grpc.SendHeader(ctx, metadata.MD{})
	}
	if a.code == codes.OK {
		return nil
	}
	message := a.message
	if message == "" {
		message = "scripted " + retrygrpc.CodeName(a.code)
	}
	st := status.New(a.code, message)
	if a.retryInfo != nil {
		st, _ = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(*a.retryInfo)})
	}
	return st.Err()
}

func (s *server) unary(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	in := new(wrapperspb.StringValue)
	if err := dec(in); err != nil {
		return nil, err
	}
	a := s.next(ctx)
	if err := a.wait(ctx); err != nil {
		return nil, err
	}
	if err := a.status(ctx); err != nil {
		return nil, err
	}
	return wrapperspb.String("echo " + in.Value), nil
}

func (s *server) list(_ any, stream grpc.ServerStream) error {
	in := new(wrapperspb.StringValue)
	if err := stream.RecvMsg(in); err != nil {
		return err
	}
	a := s.next(stream.Context())
	if err := a.wait(stream.Context()); err != nil {
		return err
	}
	if a.empty {
		return nil
	}
	if a.sendFirst || a.code == codes.OK {
		if err := stream.SendMsg(wrapperspb.String("first " + in.Value)); err != nil {
			return err
		}
		if err := (answer{delay: a.after}).wait(stream.Context()); err != nil {
			return err
		}
	}
	if a.code == codes.OK {
		return stream.SendMsg(wrapperspb.String("second " + in.Value))
	}
	return a.status(stream.Context())
}

func (s *server) chat(_ any, stream grpc.ServerStream) error {
	a := s.next(stream.Context())
	in := new(wrapperspb.StringValue)
	if err := stream.RecvMsg(in); err != nil {
		return err
	}
	if a.code == codes.OK {
		return stream.SendMsg(wrapperspb.String("echo " + in.Value))
	}
	return a.status(stream.Context())
}

func (s *server) register(gs *grpc.Server) {
	gs.RegisterService(&grpc.ServiceDesc{
		ServiceName: "retrygrpc.test.Echo",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{
			{MethodName: "Get", Handler: s.unary}, {MethodName: "Put", Handler: s.unary}, {MethodName: "Post", Handler: s.unary},
		},
		Streams: []grpc.StreamDesc{
			{StreamName: "List", Handler: s.list, ServerStreams: true},
			{StreamName: "Chat", Handler: s.chat, ServerStreams: true, ClientStreams: true},
		},
	}, nil)
}

// dialBufconn serves s in memory and returns a connection to it with opts (bufconn works
// inside a synctest bubble). Both end with the test.
func dialBufconn(t *testing.T, s *server, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 16)
	return serve(t, s, lis, "passthrough:///bufnet", append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })}, opts...))
}

// dialTCP serves s on a free 127.0.0.1 port and returns a connection to it with opts.
func dialTCP(t *testing.T, s *server, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, s, lis, lis.Addr().String(), opts)
}

// serve serves s on lis and returns a connection to target with opts (later options win).
// Both end with the test.
func serve(t *testing.T, s *server, lis net.Listener, target string, opts []grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	gs := grpc.NewServer()
	s.register(gs)
	go gs.Serve(lis)
	cc, err := grpc.NewClient(target, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cc.Close()
		gs.Stop()
	})
	return cc
}

// records collects a policy's decisions.
type records struct {
	mu sync.Mutex
	d  []retry.Decision
}

func (r *records) add(_ context.Context, d retry.Decision) {
	r.mu.Lock()
	r.d = append(r.d, d)
	r.mu.Unlock()
}

func (r *records) all() []retry.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]retry.Decision(nil), r.d...)
}

// last returns the last decision's JSON record.
func (r *records) last(t *testing.T) string {
	t.Helper()
	d := r.all()
	if len(d) == 0 {
		t.Fatal("no decision recorded")
	}
	b, err := d[len(d)-1].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// interceptor returns the options of a connection retrying under p (its decisions recorded
// in rec when not nil) with opts.
func interceptor(t *testing.T, p retry.Policy, rec *records, opts ...retrygrpc.Option) []grpc.DialOption {
	t.Helper()
	if rec != nil {
		p.OnDecision = rec.add
	}
	ic, err := retrygrpc.New(append([]retrygrpc.Option{retrygrpc.WithPolicy(&p)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return ic.DialOptions()
}

// get calls method with "x" and returns the reply's value and the error.
func get(ctx context.Context, cc *grpc.ClientConn, method string, opts ...grpc.CallOption) (string, error) {
	out := new(wrapperspb.StringValue)
	err := cc.Invoke(ctx, method, wrapperspb.String("x"), out, opts...)
	return out.GetValue(), err
}

func duration(d time.Duration) *time.Duration { return &d }
