package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/otelretry"
	"github.com/retrykit/retry/otelretry/stdobs"
	"github.com/retrykit/retry/retryhttp"
	"go.opentelemetry.io/otel/attribute"
)

// Config is what a Service needs. Every field but Random and Base is required.
type Config struct {
	// PricingURL and OrdersURL are the base URLs of the two upstreams.
	PricingURL, OrdersURL string
	// Stock reads the stock of a SKU from the database; the service retries it with
	// retry.DoValue.
	Stock func(ctx context.Context, sku string) (int, error)
	// Logger receives the service's logs and the retry decisions, as JSON with the request
	// ID (see NewLogger).
	Logger *slog.Logger
	// Observer records the retry metrics.
	Observer *otelretry.Observer
	// Random supplies the backoff's jitter; nil means backoff.GlobalSource.
	Random backoff.Source
	// Base sends the upstream requests; nil means http.DefaultTransport.
	Base http.RoundTripper
}

// Service answers POST /checkout?sku=SKU: it asks the pricing upstream for the price (a
// flaky GET), reads the stock from the database, and creates the order upstream (a POST
// whose Idempotency-Key is the request's ID, so an order is never created twice).
type Service struct {
	cfg                   Config
	client                *http.Client
	pricing, orders, data *retry.Policy
}

// NewService builds the service's one shared client: a retryhttp.Transport with a circuit
// breaker and a retry budget per upstream host, each request with the policy of its kind.
func NewService(cfg Config) (*Service, error) {
	for name, u := range map[string]string{"PricingURL": cfg.PricingURL, "OrdersURL": cfg.OrdersURL} {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("service: %s %q is not an http(s) URL with a host", name, u)
		}
	}
	if cfg.Stock == nil || cfg.Logger == nil || cfg.Observer == nil {
		return nil, errors.New("service: Config.Stock, Logger and Observer are required")
	}
	breakers, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 3, OpenTimeout: 30 * time.Second}})
	if err != nil {
		return nil, err
	}
	budgets, err := budget.NewGroup(budget.GroupConfig{Ratio: budget.RatioConfig{Ratio: 0.2}})
	if err != nil {
		return nil, err
	}
	strategy, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: 50 * time.Millisecond,
		Max: time.Second, Jitter: backoff.FullJitter})
	if err != nil {
		return nil, err
	}
	// A success is logged at Debug: at Info, the log shows only the loops that gave up.
	levels := stdobs.SlogLevels{Retry: slog.LevelDebug, Success: slog.LevelDebug, Failure: slog.LevelWarn}
	observe := retry.Observers(cfg.Observer.Observe, stdobs.SlogObserver(cfg.Logger, levels))
	policy := func(attempts int, attemptTimeout, timeout time.Duration) *retry.Policy {
		return &retry.Policy{MaxAttempts: attempts, AttemptTimeout: attemptTimeout, Timeout: timeout,
			Backoff: strategy, Random: cfg.Random, OnDecision: observe}
	}
	s := &Service{cfg: cfg,
		pricing: policy(3, 800*time.Millisecond, 3*time.Second), // a quick read: give up fast
		orders:  policy(4, 5*time.Second, 15*time.Second),       // a write that must get through
		data:    policy(3, time.Second, 2*time.Second),
	}
	s.client = &http.Client{Transport: &retryhttp.Transport{Base: cfg.Observer.Transport(cfg.Base),
		Breakers: breakers, Budgets: budgets}}
	return s, nil
}

// Close closes the shared client's idle connections.
func (s *Service) Close() { s.client.CloseIdleConnections() }

// ServeHTTP serves POST /checkout?sku=SKU under the request ID of the context (see
// WithRequestID): 201 with the order as JSON; 400 for a bad request; 503 with Retry-After
// when an upstream's circuit breaker is open; 502 when an upstream failed otherwise.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sku := r.URL.Query().Get("sku")
	if r.Method != http.MethodPost || r.URL.Path != "/checkout" || sku == "" {
		http.Error(w, "use POST /checkout?sku=SKU", http.StatusBadRequest)
		return
	}
	price, err := s.price(ctx, sku)
	if err != nil {
		s.fail(w, r, "pricing", err)
		return
	}
	stock, err := retry.DoValue(otelretry.WithAttributes(ctx, attribute.String("db.system.name", "sqlite")), s.data,
		func(ctx context.Context) (int, error) { return s.cfg.Stock(ctx, sku) })
	if err != nil {
		s.fail(w, r, "database", err)
		return
	}
	if stock < 1 {
		http.Error(w, "out of stock", http.StatusConflict)
		return
	}
	order, err := s.order(ctx, sku, price)
	if err != nil {
		s.fail(w, r, "orders", err)
		return
	}
	s.cfg.Logger.InfoContext(ctx, "checkout", "sku", sku, "price", price, "order", order)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{"order": order, "sku": sku, "price": price, "stock": stock})
}

// price GETs the price of sku from the pricing upstream.
func (s *Service) price(ctx context.Context, sku string) (string, error) {
	ctx = retryhttp.WithPolicy(otelretry.WithAttributes(ctx, attribute.String("upstream", "pricing")), s.pricing)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.PricingURL+"/price?sku="+url.QueryEscape(sku), nil)
	if err != nil {
		return "", err
	}
	return s.send(req, http.StatusOK)
}

// order POSTs the order with the request ID as its Idempotency-Key, so a retried attempt,
// or the caller's own retry of the checkout, never creates a second order.
func (s *Service) order(ctx context.Context, sku, price string) (string, error) {
	ctx = retryhttp.WithPolicy(otelretry.WithAttributes(ctx, attribute.String("upstream", "orders")), s.orders)
	body, err := json.Marshal(map[string]string{"sku": sku, "price": price})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.OrdersURL+"/orders", strings.NewReader(string(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(retryhttp.DefaultIdempotencyKeyHeader, RequestID(ctx))
	return s.send(req, http.StatusCreated)
}

// send sends req through the shared client and returns the response body, or an error when
// the status is not want.
func (s *Service) send(req *http.Request, want int) (string, error) {
	resp, err := s.client.Do(req)
	if err != nil {
		var rerr *retryhttp.ResponseError
		if errors.As(err, &rerr) {
			rerr.Response.Body.Close()
		}
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != want {
		return "", fmt.Errorf("%s %s: status %d", req.Method, retryhttp.RedactURL(req.URL), resp.StatusCode)
	}
	return strings.TrimSpace(string(b)), nil
}

// fail answers for an upstream that failed: 503 with Retry-After when its circuit breaker
// refused the call and said when it will admit one, 502 otherwise.
func (s *Service) fail(w http.ResponseWriter, r *http.Request, upstream string, err error) {
	text := retryhttp.RedactError(err).Error()
	s.cfg.Logger.WarnContext(r.Context(), "upstream failed", "upstream", upstream, "error", text)
	var stop *retry.Error
	if errors.As(err, &stop) && stop.Reason == retry.ReasonCircuitOpen {
		if in, ok := stop.RetryAfter(); ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(in.Seconds()))))
			http.Error(w, upstream+" unavailable", http.StatusServiceUnavailable)
			return
		}
	}
	http.Error(w, upstream+" failed", http.StatusBadGateway)
}
