package retrygrpc_test

import (
	"testing"
	"testing/synctest"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
)

// With otelgrpc's stats handler, as the package documentation says, every attempt is a span
// of its own: UNAVAILABLE, UNAVAILABLE, OK make three client spans, whatever the order of
// the dial options.
func TestOtelgrpcSpanPerAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		defer tp.Shutdown(t.Context())
		s := newServer(answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{})
		cc := dialBufconn(t, s, append([]grpc.DialOption{grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp)))},
			interceptor(t, constant(t, 3, 0), nil)...)...)
		if _, err := get(t.Context(), cc, methodGet); err != nil {
			t.Fatal(err)
		}
		got := spans.GetSpans()
		if len(got) != 3 {
			t.Fatalf("%d spans, want 3 (one per attempt)", len(got))
		}
		for i, span := range got {
			if span.Name != "retrygrpc.test.Echo/Get" {
				t.Errorf("span %d named %q", i+1, span.Name)
			}
		}
		if got[0].Status.Code == got[2].Status.Code {
			t.Errorf("span statuses %v and %v: want the failed attempt's to differ from the last's", got[0].Status, got[2].Status)
		}
	})
}
