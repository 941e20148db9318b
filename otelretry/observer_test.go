package otelretry

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// newMetricObserver returns an Observer recording into a manual reader.
func newMetricObserver(t testing.TB, c Config) (*Observer, *sdkmetric.ManualReader) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	c.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	o, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return o, reader
}

// collect returns the metrics of reader by name.
func collect(t *testing.T, reader *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, ScopeName)
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func sum(points ...metricdata.DataPoint[int64]) metricdata.Sum[int64] {
	return metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true, DataPoints: points}
}

func point(v int64, kv ...attribute.KeyValue) metricdata.DataPoint[int64] {
	return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(kv...), Value: v}
}

var constant1s = func() backoff.Strategy {
	s, err := backoff.New(backoff.Config{Kind: backoff.Constant, Base: time.Second, Jitter: backoff.NoJitter})
	if err != nil {
		panic(err)
	}
	return s
}()

// script returns an operation labeled with labels that reports the outcomes in order, one
// per attempt.
func script(labels []slog.Attr, outcomes ...retry.Outcome) retry.Operation[int] {
	i := 0
	return retry.Operation[int]{Attempt: func(context.Context) (int, retry.Outcome) {
		o := outcomes[i]
		i++
		return i, o
	}, Attrs: labels}
}

// httpLabels are the labels package retryhttp gives a request's loop; an empty url is left
// out.
func httpLabels(method, url string) []slog.Attr {
	labels := []slog.Attr{slog.String("method", method)}
	if url != "" {
		labels = append(labels, slog.String("url", url))
	}
	return labels
}

// TestObserveMetrics runs three loops through retry.Run in a synctest bubble (waits of
// exactly 1 s) and checks every data point of every instrument.
func TestObserveMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, reader := newMetricObserver(t, Config{})
		p := &retry.Policy{MaxAttempts: 3, Backoff: constant1s, OnDecision: o.Observe}
		const u = "http://user:pw@api.example:8080/items?token=secret"
		getItems := httpLabels("GET", u)
		get503 := retry.Outcome{Status: 503}
		ctx := context.Background()

		// GET: 503, 503, 200: two retries, a success after retry.
		// The second 503 came after net/http sent the request again by itself.
		resent503 := get503
		resent503.TransportResends = 1
		_, final, err := retry.Run(ctx, p, script(getItems, get503, resent503, retry.Outcome{Status: 200}))
		final.End()
		if err != nil {
			t.Fatal(err)
		}
		// GET: 404: a permanent failure at once.
		_, final, _ = retry.Run(ctx, p, script(getItems, retry.Outcome{Status: 404}))
		final.End()
		// BREW (an unknown method): an error, then the attempts run out.
		boom := retry.Outcome{Err: errors.New("boom")}
		_, final, err = retry.Run(ctx, &retry.Policy{MaxAttempts: 2, Backoff: constant1s, OnDecision: o.Observe},
			script(httpLabels("BREW", ""), boom, boom))
		final.End()
		if !errors.Is(err, retry.ErrAttemptsExhausted) {
			t.Fatalf("err = %v, want attempts exhausted", err)
		}

		get, other := attribute.String("http.request.method", "GET"), attribute.String("http.request.method", "_OTHER")
		got := collect(t, reader)
		want := map[string]metricdata.Aggregation{
			"retry.attempts": sum(point(4, get), point(2, other)),
			"retry.retries": sum(
				point(2, get, ReasonKey.String("retryable_status"), StatusClassKey.String("5xx")),
				point(1, other, ReasonKey.String("retryable_error"), StatusClassKey.String("none"))),
			"retry.stops": sum(
				point(1, get, ReasonKey.String("success"), OutcomeKey.String("success"), StatusClassKey.String("2xx")),
				point(1, get, ReasonKey.String("non_retryable_status"), OutcomeKey.String("failure"), StatusClassKey.String("4xx")),
				point(1, other, ReasonKey.String("attempts_exhausted"), OutcomeKey.String("failure"), StatusClassKey.String("none"))),
			"retry.successes_after_retry": sum(point(1, get)),
			"retry.transport_resends":     sum(point(1, get)),
			"retry.wait.duration": metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
				DataPoints: []metricdata.HistogramDataPoint[float64]{
					waitPoint(2, 2, attribute.NewSet(get, ReasonKey.String("retryable_status"), StatusClassKey.String("5xx"))),
					waitPoint(1, 1, attribute.NewSet(other, ReasonKey.String("retryable_error"), StatusClassKey.String("none"))),
				}},
		}
		for name, agg := range want {
			m, ok := got[name]
			if !ok {
				t.Errorf("no metric %s", name)
				continue
			}
			metricdatatest.AssertAggregationsEqual(t, agg, m.Data, metricdatatest.IgnoreTimestamp())
		}
		if m, ok := got["retry.attempt.duration"]; ok {
			t.Errorf("attempt durations recorded without a Transport: %+v", m.Data)
		}
		if got["retry.wait.duration"].Unit != "s" || got["retry.attempts"].Unit != "{attempt}" {
			t.Errorf("units: %q, %q", got["retry.wait.duration"].Unit, got["retry.attempts"].Unit)
		}
	})
}

// waitPoint is a wait histogram point of count waits of 1 s each, totalling total seconds.
func waitPoint(count uint64, total float64, set attribute.Set) metricdata.HistogramDataPoint[float64] {
	counts := make([]uint64, len(WaitBoundaries)+1)
	counts[6] = count // (0.5 s, 1 s]
	return metricdata.HistogramDataPoint[float64]{Attributes: set, Count: count, Sum: total,
		Bounds: WaitBoundaries, BucketCounts: counts,
		Min: metricdata.NewExtrema(1.0), Max: metricdata.NewExtrema(1.0)}
}

// TestStopWithoutAttempt: a loop whose wait the caller cuts short ends with a stop decided
// without a new attempt; the attempts counter still counts only the attempt that ran.
func TestStopWithoutAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, reader := newMetricObserver(t, Config{})
		ctx, cancel := context.WithCancel(context.Background())
		p := &retry.Policy{MaxAttempts: 3, Backoff: constant1s, OnDecision: o.Observe}
		go func() { time.Sleep(500 * time.Millisecond); cancel() }()
		err := retry.Do(ctx, p, func(context.Context) error { return errors.New("down") })
		if !errors.Is(err, retry.ErrCanceled) {
			t.Fatalf("err = %v, want canceled", err)
		}
		got := collect(t, reader)
		metricdatatest.AssertAggregationsEqual(t, sum(point(1)), got["retry.attempts"].Data, metricdatatest.IgnoreTimestamp())
		metricdatatest.AssertAggregationsEqual(t, sum(point(1, ReasonKey.String("canceled"), OutcomeKey.String("failure"),
			StatusClassKey.String("none"))), got["retry.stops"].Data, metricdatatest.IgnoreTimestamp())
	})
}

// TestServerAddress: the host is an attribute only when asked for, and never the URL.
func TestServerAddress(t *testing.T) {
	for _, withHost := range []bool{false, true} {
		o, reader := newMetricObserver(t, Config{ServerAddress: withHost})
		d := retry.Decision{Attempt: 1, Status: 204, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess}
		d.AddAttrs(httpLabels("PUT", "https://user:pw@db.example/k?sig=x")...)
		o.Observe(context.Background(), d)
		kv := []attribute.KeyValue{attribute.String("http.request.method", "PUT")}
		if withHost {
			kv = append(kv, attribute.String("server.address", "db.example"))
		}
		got := collect(t, reader)
		metricdatatest.AssertAggregationsEqual(t, sum(point(1, kv...)), got["retry.attempts"].Data, metricdatatest.IgnoreTimestamp())
		metricdatatest.AssertAggregationsEqual(t, sum(point(1, append(kv, ReasonKey.String("success"), OutcomeKey.String("success"),
			StatusClassKey.String("2xx"))...)), got["retry.stops"].Data, metricdatatest.IgnoreTimestamp())
	}
}

// grpcCall is an operation labeled as package retrygrpc labels a call's loop, whose
// attempts end with codes, as retrygrpc records them (grpc_code); "OK" is a success.
func grpcCall(method string, codes ...string) retry.Operation[int] {
	outcomes := make([]retry.Outcome, len(codes))
	for i, code := range codes {
		outcomes[i] = retry.Outcome{Class: retry.ClassSuccess, Attrs: []slog.Attr{slog.String("grpc_code", code)}}
		if code != "OK" {
			outcomes[i].Class, outcomes[i].Err = retry.ClassRetryable, errors.New("rpc error: code = "+code)
		}
	}
	return script([]slog.Attr{slog.String("method", method)}, outcomes...)
}

// Issue 23 item 5: a gRPC call's loop is labeled with the RPC semantic conventions
// (rpc.system.name, rpc.method, rpc.response.status_code), as its spans are, not with
// http.request.method=_OTHER and retry.status_class=none; a breaker's refusal before any
// attempt carries the method too, without a code.
func TestObserveGRPCMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, reader := newMetricObserver(t, Config{ServerAddress: true})
		p := &retry.Policy{MaxAttempts: 2, Backoff: constant1s, OnDecision: o.Observe}
		ctx := WithAttributes(context.Background(), attribute.String("rpc.method", "forged")) // left out
		for _, op := range []retry.Operation[int]{
			grpcCall("/shop.Orders/Get", "UNAVAILABLE", "OK"),
			grpcCall("/shop.Orders/Get", "UNAVAILABLE", "UNAVAILABLE"),
			grpcCall("/shop.Orders/Cancel", "OK"),
		} {
			_, final, _ := retry.Run(ctx, p, op)
			final.End()
		}
		refusal := retry.Decision{Reason: retry.ReasonCircuitOpen, Class: retry.ClassRetryable, NoAttempt: true}
		refusal.AddAttrs(slog.String("method", "/shop.Orders/Get"), slog.String("breaker", "OPEN"))
		o.Observe(ctx, refusal)
		o.Observe(ctx, func() retry.Decision { // a method that is not of the form /service/method
			d := retry.Decision{Attempt: 1, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess}
			d.AddAttrs(slog.String("method", "/no-method"), slog.String("grpc_code", "OK"))
			return d
		}())

		grpc := attribute.String("rpc.system.name", "grpc")
		get, cancel := attribute.String("rpc.method", "shop.Orders/Get"), attribute.String("rpc.method", "shop.Orders/Cancel")
		other := attribute.String("rpc.method", "_OTHER")
		code := func(c string) attribute.KeyValue { return attribute.String("rpc.response.status_code", c) }
		got := collect(t, reader)
		for name, want := range map[string]metricdata.Aggregation{
			"retry.attempts": sum(point(4, grpc, get), point(1, grpc, cancel), point(1, grpc, other)),
			"retry.retries":  sum(point(2, grpc, get, ReasonKey.String("retryable_error"), code("UNAVAILABLE"))),
			"retry.stops": sum(
				point(1, grpc, get, ReasonKey.String("success"), OutcomeKey.String("success"), code("OK")),
				point(1, grpc, get, ReasonKey.String("attempts_exhausted"), OutcomeKey.String("failure"), code("UNAVAILABLE")),
				point(1, grpc, get, ReasonKey.String("circuit_open"), OutcomeKey.String("failure")),
				point(1, grpc, cancel, ReasonKey.String("success"), OutcomeKey.String("success"), code("OK")),
				point(1, grpc, other, ReasonKey.String("success"), OutcomeKey.String("success"), code("OK"))),
			"retry.successes_after_retry": sum(point(1, grpc, get)),
		} {
			metricdatatest.AssertAggregationsEqual(t, want, got[name].Data, metricdatatest.IgnoreTimestamp())
		}
	})
}
