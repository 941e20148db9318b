package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/otelretry"
	"github.com/retrykit/retry/retrytest"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is a service under test with its log, its metrics and a fake database that fails
// its first `failures` calls.
type fixture struct {
	svc     *Service
	handler http.Handler
	log     *bytes.Buffer
	reader  *sdkmetric.ManualReader
	stock   atomic.Int64
}

func newFixture(t *testing.T, pricingURL, ordersURL string, base http.RoundTripper, failures int64) *fixture {
	t.Helper()
	f := &fixture{log: new(bytes.Buffer), reader: sdkmetric.NewManualReader()}
	obs, err := otelretry.New(otelretry.Config{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))})
	if err != nil {
		t.Fatal(err)
	}
	f.svc, err = NewService(Config{PricingURL: pricingURL, OrdersURL: ordersURL, Base: base,
		Logger: NewLogger(f.log, slog.LevelDebug, nil), Observer: obs, Random: backoff.NewSource(1),
		Stock: func(ctx context.Context, sku string) (int, error) {
			if f.stock.Add(1) <= failures {
				return 0, errors.New("database is locked")
			}
			return 7, ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.svc.Close)
	f.handler = RequestIDs(f.svc)
	return f
}

// checkout sends POST /checkout?sku=a with request ID id and returns the status, the
// Retry-After header and the body.
func (f *fixture) checkout(id string) (int, string, string) {
	req := httptest.NewRequest(http.MethodPost, "/checkout?sku=a", nil)
	req.Header.Set(RequestIDHeader, id)
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Retry-After"), rec.Body.String()
}

// logLine is what a test compares of a log line.
type logLine struct {
	Level, Msg, RequestID, Reason string
	Attempt                       int
}

func (f *fixture) lines(t *testing.T) []logLine {
	t.Helper()
	var out []logLine
	dec := json.NewDecoder(f.log)
	for dec.More() {
		var l struct {
			Level, Msg string
			RequestID  string `json:"request_id"`
			Decision   struct {
				Reason  string
				Attempt int
			}
		}
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		out = append(out, logLine{l.Level, l.Msg, l.RequestID, l.Decision.Reason, l.Decision.Attempt})
	}
	return out
}

// Against real retrytest servers: a flaky pricing GET, a database locked once and an orders
// POST whose connection drops after the order was created. The checkout succeeds; the
// caller's retry of it (same request ID) creates no second order; every log line carries
// the request ID; the metrics tell the three loops apart (issue 17's service).
func TestCheckoutExactOutcomes(t *testing.T) {
	pricing, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{{Status: 503}, {Body: "12.50"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer pricing.Close()
	orders, err := retrytest.NewRoutedServer(retrytest.Routes{
		"POST /orders": {Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201, Body: "o-1"}}, Dedupe: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer orders.Close()
	f := newFixture(t, pricing.URL, orders.URL, nil, 1)

	const want = `{"order":"o-1","price":"12.50","sku":"a","stock":7}` + "\n"
	for i := range 2 {
		if status, _, body := f.checkout("r-1"); status != http.StatusCreated || body != want {
			t.Fatalf("checkout %d: %d %q, want 201 %q", i+1, status, body, want)
		}
	}
	if pricing.Requests() != 3 || orders.Requests() != 3 || orders.Orders() != 1 || f.stock.Load() != 3 {
		t.Errorf("pricing requests %d, orders requests %d, orders %d, stock reads %d; want 3, 3, 1, 3",
			pricing.Requests(), orders.Requests(), orders.Orders(), f.stock.Load())
	}
	posts := orders.Received()
	for i, r := range posts {
		if r.Header.Get("Idempotency-Key") != "r-1" || !bytes.Equal(r.Body, posts[0].Body) {
			t.Errorf("POST %d: key %q body %q; want r-1 and the first POST's body", i+1, r.Header.Get("Idempotency-Key"), r.Body)
		}
	}

	wantLines := []logLine{
		{"DEBUG", "retry", "r-1", "retryable_status", 1}, {"DEBUG", "retry stop", "r-1", "success", 2}, // pricing
		{"DEBUG", "retry", "r-1", "retryable_error", 1}, {"DEBUG", "retry stop", "r-1", "success", 2}, // database
		{"DEBUG", "retry", "r-1", "retryable_error", 1}, {"DEBUG", "retry stop", "r-1", "success", 2}, // orders
		{"INFO", "checkout", "r-1", "", 0},
		{"DEBUG", "retry stop", "r-1", "success", 1}, {"DEBUG", "retry stop", "r-1", "success", 1},
		{"DEBUG", "retry stop", "r-1", "success", 1}, {"INFO", "checkout", "r-1", "", 0},
	}
	if got := f.lines(t); !reflect.DeepEqual(got, wantLines) {
		t.Errorf("log lines\n got %v\nwant %v", got, wantLines)
	}

	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	metrics := map[string]metricdata.Metrics{}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		metrics[m.Name] = m
	}
	get, post := attribute.String("http.request.method", "GET"), attribute.String("http.request.method", "POST")
	upPricing, upOrders := attribute.String("upstream", "pricing"), attribute.String("upstream", "orders")
	db := attribute.String("db.system.name", "sqlite")
	success := []attribute.KeyValue{otelretry.ReasonKey.String("success"), otelretry.OutcomeKey.String("success")}
	metricdatatest.AssertAggregationsEqual(t, metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
		DataPoints: []metricdata.DataPoint[int64]{
			{Attributes: attribute.NewSet(append(success, upPricing, get, otelretry.StatusClassKey.String("2xx"))...), Value: 2},
			{Attributes: attribute.NewSet(append(success, db, otelretry.StatusClassKey.String("none"))...), Value: 2},
			{Attributes: attribute.NewSet(append(success, upOrders, post, otelretry.StatusClassKey.String("2xx"))...), Value: 2},
		}}, metrics["retry.stops"].Data, metricdatatest.IgnoreTimestamp())
	metricdatatest.AssertAggregationsEqual(t, metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
		DataPoints: []metricdata.DataPoint[int64]{
			{Attributes: attribute.NewSet(upPricing, get), Value: 3},
			{Attributes: attribute.NewSet(db), Value: 3},
			{Attributes: attribute.NewSet(upOrders, post), Value: 3},
		}}, metrics["retry.attempts"].Data, metricdatatest.IgnoreTimestamp())
}

// With pricing down, its circuit breaker opens after three failed attempts (502); the next
// checkout is refused at once with 503 and Retry-After: 30, sending nothing; 30 s later a
// trial call succeeds and the checkout goes through. Orders, on its own breaker and budget,
// creates exactly one order. Fake time, scripted hosts on one in-memory RoundTripper.
func TestPricingBreakerOpens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, err := retrytest.NewRoutedRoundTripper(retrytest.Routes{
			"pricing.test/": {Steps: []retrytest.Step{{Status: 500}, {Status: 500}, {Status: 500}, {Body: "9.99"}}},
			"orders.test/":  {Steps: []retrytest.Step{{Status: 201, Body: "o-7"}}, Dedupe: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		f := newFixture(t, "http://pricing.test", "http://orders.test", rt, 0)
		if status, _, _ := f.checkout("r-1"); status != http.StatusBadGateway || rt.Requests() != 3 {
			t.Fatalf("first checkout: %d after %d requests, want 502 after 3", status, rt.Requests())
		}
		if status, retryAfter, _ := f.checkout("r-2"); status != http.StatusServiceUnavailable || retryAfter != "30" || rt.Requests() != 3 {
			t.Fatalf("second checkout: %d Retry-After %q after %d requests, want 503, 30, 3", status, retryAfter, rt.Requests())
		}
		time.Sleep(30 * time.Second)
		if status, _, body := f.checkout("r-3"); status != http.StatusCreated || body != `{"order":"o-7","price":"9.99","sku":"a","stock":7}`+"\n" {
			t.Fatalf("third checkout: %d %q", status, body)
		}
		if rt.Requests() != 5 || rt.Orders() != 1 {
			t.Errorf("requests %d, orders %d; want 5 (3 failures, 1 trial, 1 POST) and 1", rt.Requests(), rt.Orders())
		}
		var warnings []string
		for _, l := range f.lines(t) {
			if l.Level == "WARN" {
				warnings = append(warnings, l.RequestID+" "+l.Msg+" "+l.Reason)
			}
		}
		want := []string{"r-1 retry stop attempts_exhausted", "r-1 upstream failed ", "r-2 retry stop circuit_open", "r-2 upstream failed "}
		if !reflect.DeepEqual(warnings, want) {
			t.Errorf("warnings %q, want %q", warnings, want)
		}
	})
}

// NewService names a bad upstream URL.
func TestNewServiceRejectsBadURL(t *testing.T) {
	_, err := NewService(Config{PricingURL: "pricing.test", OrdersURL: "http://orders.test"})
	if err == nil || err.Error() != `service: PricingURL "pricing.test" is not an http(s) URL with a host` {
		t.Errorf("err = %v", err)
	}
}
