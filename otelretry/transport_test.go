package otelretry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// retrying is a minimal retrying RoundTripper, a stand-in for retryhttp.Transport: it runs
// each request through retry.Run and base, and drains the responses it retries.
type retrying struct {
	base   http.RoundTripper
	policy *retry.Policy
}

func (r retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, final, err := retry.Run(req.Context(), r.policy, retry.Operation[*http.Response]{
		Attempt: func(ctx context.Context) (*http.Response, retry.Outcome) {
			resp, err := r.base.RoundTrip(req.Clone(ctx))
			o := retry.Outcome{Err: err}
			if err == nil {
				o.Status = resp.StatusCode
			}
			return resp, o
		},
		Discard: func(resp *http.Response) {
			if resp != nil {
				resp.Body.Close()
			}
		},
		Attrs: httpLabels(req.Method, redactURL(req.URL.String())),
	})
	final.End()
	if resp != nil {
		return resp, nil
	}
	return nil, err
}

// fakeServer is a base RoundTripper that takes 30 ms (of synctest time) per request and
// answers with the statuses in order; it keeps the traceparent header of each request.
type fakeServer struct {
	statuses     []int
	traceparents []string
}

func (f *fakeServer) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(30 * time.Millisecond)
	f.traceparents = append(f.traceparents, req.Header.Get("traceparent"))
	status := f.statuses[0]
	f.statuses = f.statuses[1:]
	if status == 0 {
		return nil, errors.New("connection refused")
	}
	return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

type traced struct {
	obs    *Observer
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tracer trace.Tracer
}

func newTraced(t *testing.T) traced {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs, reader := newMetricObserver(t, Config{TracerProvider: tp, Propagator: propagation.TraceContext{}})
	return traced{obs: obs, spans: spans, reader: reader, tracer: tp.Tracer("test")}
}

// TestTransportSpans: three attempts (503, 503, 200) under a caller's span become three
// client spans, children of it, numbered with http.request.resend_count, with redacted
// URLs; the server sees each attempt's own span as parent; the durations are exact.
func TestTransportSpans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTraced(t)
		server := &fakeServer{statuses: []int{503, 503, 200}}
		client := &http.Client{Transport: tr.obs.Requests(retrying{base: tr.obs.Transport(server),
			policy: &retry.Policy{MaxAttempts: 3, Backoff: constant1s}})}

		ctx, caller := tr.tracer.Start(context.Background(), "caller")
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://user:pw@api.example/items?token=secret", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		caller.End()

		ended := tr.spans.Ended()
		if len(ended) != 4 {
			t.Fatalf("%d spans, want 3 attempts and the caller", len(ended))
		}
		for i, s := range ended[:3] {
			if s.Name() != "GET" || s.SpanKind() != trace.SpanKindClient {
				t.Errorf("span %d: %q %v, want GET client", i, s.Name(), s.SpanKind())
			}
			if s.Parent().SpanID() != caller.SpanContext().SpanID() || s.SpanContext().TraceID() != caller.SpanContext().TraceID() {
				t.Errorf("span %d is not a child of the caller's span", i)
			}
			if want := "00-" + s.SpanContext().TraceID().String() + "-" + s.SpanContext().SpanID().String() + "-01"; server.traceparents[i] != want {
				t.Errorf("attempt %d sent traceparent %q, want %q", i+1, server.traceparents[i], want)
			}
			want := []attribute.KeyValue{
				attribute.String("http.request.method", "GET"),
				attribute.String("url.full", "http://api.example/items?token=REDACTED"),
				attribute.String("server.address", "api.example"),
				attribute.Int("server.port", 80),
				attribute.Int("retry.attempt", i+1),
			}
			if i > 0 {
				want = append(want, attribute.Int("http.request.resend_count", i))
			}
			wantStatus := codes.Error
			if i < 2 {
				want = append(want, attribute.Int("http.response.status_code", 503), attribute.String("error.type", "503"))
			} else {
				want = append(want, attribute.Int("http.response.status_code", 200))
				wantStatus = codes.Unset
			}
			if got, w := attribute.NewSet(s.Attributes()...), attribute.NewSet(want...); !got.Equals(&w) {
				t.Errorf("span %d attributes\n got %v\nwant %v", i, got.Encoded(attribute.DefaultEncoder()), w.Encoded(attribute.DefaultEncoder()))
			}
			if s.Status().Code != wantStatus {
				t.Errorf("span %d status %v, want %v", i, s.Status().Code, wantStatus)
			}
			if d := s.EndTime().Sub(s.StartTime()); d != 30*time.Millisecond {
				t.Errorf("span %d lasted %v, want 30ms", i, d)
			}
		}

		got := collect(t, tr.reader)
		get := attribute.String("http.request.method", "GET")
		metricdatatest.AssertAggregationsEqual(t, metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
			DataPoints: []metricdata.HistogramDataPoint[float64]{
				attemptPoint(2, attribute.NewSet(get, StatusClassKey.String("5xx"))),
				attemptPoint(1, attribute.NewSet(get, StatusClassKey.String("2xx"))),
			}}, got["retry.attempt.duration"].Data, metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())
	})
}

// attemptPoint is an attempt-duration point of count attempts of 30 ms each.
func attemptPoint(count uint64, set attribute.Set) metricdata.HistogramDataPoint[float64] {
	counts := make([]uint64, len(AttemptBoundaries)+1)
	counts[3] = count // (0.025 s, 0.05 s]
	return metricdata.HistogramDataPoint[float64]{Attributes: set, Count: count, Sum: 0.03 * float64(count),
		Bounds: AttemptBoundaries, BucketCounts: counts,
		Min: metricdata.NewExtrema(0.03), Max: metricdata.NewExtrema(0.03)}
}

// TestTransportError: a transport error marks the span with error.type and a status message
// whose URL is redacted; without Requests the attempts are not numbered.
func TestTransportError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTraced(t)
		base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			return nil, &url.Error{Op: "Post", URL: req.URL.String(), Err: errors.New("connection refused")}
		})
		req, _ := http.NewRequest("POST", "https://bob:hunter2@api.example:8443/pay?card=4111", nil)
		if _, err := tr.obs.Transport(base).RoundTrip(req); err == nil {
			t.Fatal("no error")
		}
		s := tr.spans.Ended()[0]
		if s.Status().Code != codes.Error || s.Status().Description != `Post "https://api.example:8443/pay?card=REDACTED": connection refused` {
			t.Errorf("status %+v", s.Status())
		}
		want := attribute.NewSet(attribute.String("http.request.method", "POST"),
			attribute.String("url.full", "https://api.example:8443/pay?card=REDACTED"),
			attribute.String("server.address", "api.example"), attribute.Int("server.port", 8443),
			attribute.String("error.type", "*url.Error"))
		if got := attribute.NewSet(s.Attributes()...); !got.Equals(&want) {
			t.Errorf("attributes\n got %v\nwant %v", got.Encoded(attribute.DefaultEncoder()), want.Encoded(attribute.DefaultEncoder()))
		}
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), "hunter2") || strings.Contains(kv.Value.String(), "4111") {
				t.Errorf("secret in %s", kv.Key)
			}
		}
	})
}

// TestObserveEvents: Observe adds every decision to the span of the loop's context as a
// retry.decision event with the decision record's fields.
func TestObserveEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTraced(t)
		ctx, caller := tr.tracer.Start(context.Background(), "caller")
		p := &retry.Policy{MaxAttempts: 2, Backoff: constant1s, Timeout: 10 * time.Second, OnDecision: tr.obs.Observe}
		u := "http://api.example/x?key=abc"
		_, final, err := retry.Run(ctx, p, script(httpLabels("GET", u), retry.Outcome{Status: 503},
			retry.Outcome{Status: 429, RetryAfter: 2 * time.Second, HasRetryAfter: true, RetryAfterFrom: "retry-after"}))
		final.End()
		if !errors.Is(err, retry.ErrAttemptsExhausted) {
			t.Fatalf("err = %v", err)
		}
		caller.End()
		events := tr.spans.Ended()[0].Events()
		want := [][]attribute.KeyValue{{
			attribute.Int("retry.attempt", 1), attribute.String("retry.decision", "retry"),
			attribute.String("retry.reason", "retryable_status"), attribute.String("retry.outcome", "failure"),
			attribute.Float64("retry.elapsed_ms", 0), attribute.String("http.request.method", "GET"),
			attribute.String("url.full", "http://api.example/x?key=REDACTED"), attribute.Int("http.response.status_code", 503),
			attribute.Float64("retry.remaining_ms", 10000), attribute.Float64("retry.wait_ms", 1000),
		}, {
			attribute.Int("retry.attempt", 2), attribute.String("retry.decision", "stop"),
			attribute.String("retry.reason", "attempts_exhausted"), attribute.String("retry.outcome", "failure"),
			attribute.Float64("retry.elapsed_ms", 1000), attribute.String("http.request.method", "GET"),
			attribute.String("url.full", "http://api.example/x?key=REDACTED"), attribute.Int("http.response.status_code", 429),
			attribute.Float64("retry.remaining_ms", 9000), attribute.Float64("retry.retry_after_ms", 2000),
			attribute.String("retry.retry_after_from", "retry-after"),
			attribute.Bool("retry.throttled", true), // issue 32: a 429 is a throttle
		}}
		if len(events) != len(want) {
			t.Fatalf("%d events, want %d", len(events), len(want))
		}
		for i, e := range events {
			if e.Name != "retry.decision" {
				t.Errorf("event %d named %q", i, e.Name)
			}
			if got, w := attribute.NewSet(e.Attributes...), attribute.NewSet(want[i]...); !got.Equals(&w) {
				t.Errorf("event %d\n got %v\nwant %v", i, got.Encoded(attribute.DefaultEncoder()), w.Encoded(attribute.DefaultEncoder()))
			}
		}
	})
}
