package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// constant returns a policy with a fixed wait between attempts, no jitter and no spread on
// top of a Retry-After, so that waits are exact, and no rate gate.
func constant(t testing.TB, wait time.Duration, attempts int, timeout time.Duration) *retry.Policy {
	t.Helper()
	s, err := backoff.New(backoff.Config{Kind: backoff.Constant, Base: wait, Jitter: backoff.NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	// The rate gates that a Transport gives each destination by default are turned off, so
	// that the waits these tests check are the header rules' alone (rategate_test.go tests
	// the gates).
	return &retry.Policy{Backoff: s, MaxAttempts: attempts, Timeout: timeout, RetryAfterSpread: retry.None,
		RateGate: retry.NoRateGate}
}

func scripted(t testing.TB, s retrytest.Script) *retrytest.RoundTripper {
	t.Helper()
	rt, err := retrytest.NewRoundTripper(s)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func server(t testing.TB, s retrytest.Script) *retrytest.Server {
	t.Helper()
	srv, err := retrytest.NewServer(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func request(t testing.TB, method, url, body string) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// stopOf returns the *retry.Error in err, failing the test when there is none.
func stopOf(t testing.TB, err error) *retry.Error {
	t.Helper()
	var stop *retry.Error
	if !errors.As(err, &stop) {
		t.Fatalf("error %v (%T) is not a *retry.Error", err, err)
	}
	return stop
}

// readAll reads and closes resp's body.
func readAll(t testing.TB, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatalf("closing the body: %v", err)
	}
	return string(b)
}

// respOf returns the response RoundTrip gave, directly or inside a *ResponseError.
func respOf(resp *http.Response, err error) *http.Response {
	var rerr *retryhttp.ResponseError
	if resp == nil && errors.As(err, &rerr) {
		return rerr.Response
	}
	return resp
}

// contextWithCancelAfter returns req's context canceled after d.
func contextWithCancelAfter(req *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := time.AfterFunc(d, cancel)
	return ctx, func() { stop.Stop(); cancel() }
}
