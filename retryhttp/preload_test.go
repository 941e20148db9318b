package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// cutOffServer announces a body of 100 bytes and sends 10 for its first cut requests, then
// sends bodies whole.
func cutOffServer(t *testing.T, cut int64) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Length", "100")
		if n.Add(1) <= cut {
			io.WriteString(w, "0123456789")
			return
		}
		io.WriteString(w, strings.Repeat("x", 100))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// With PreloadBody, a body cut off mid-transfer is the attempt's failure (issue 12 item 1):
// a GET is retried and returns the whole body; a POST without a key stops with an unknown
// outcome after 1 request; without PreloadBody the cut is the caller's to find.
func TestPreloadBody(t *testing.T) {
	for _, tc := range []struct {
		name         string
		method       string
		preload      int64
		wantRequests int64
		wantReasons  string
		wantBody     string // "" when RoundTrip fails
		wantErr      error
	}{
		{"GET retried", "GET", 1 << 20, 3, "retryable_error retryable_error success", strings.Repeat("x", 100), nil},
		{"GET, preload shorter than the body", "GET", 50, 3, "retryable_error retryable_error success", strings.Repeat("x", 100), nil},
		{"POST without a key: unknown outcome", "POST", 1 << 20, 1, "unknown_outcome", "", retry.ErrUnknownOutcome},
		{"no preload: the caller reads the cut", "GET", 0, 1, "success", "0123456789", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := cutOffServer(t, 2)
			var reasons []string
			p := fast(t, 3)
			p.OnDecision = func(_ context.Context, d retry.Decision) { reasons = append(reasons, string(d.Reason)) }
			resp, err := client(t, &retryhttp.Transport{Policy: p, PreloadBody: tc.preload}).Do(request(t, tc.method, srv.URL, "order"))
			if n.Load() != tc.wantRequests || strings.Join(reasons, " ") != tc.wantReasons {
				t.Fatalf("%d requests, reasons %v (%v); want %d, %s", n.Load(), reasons, err, tc.wantRequests, tc.wantReasons)
			}
			if tc.wantBody == "" {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), "reading the response body (status 200) after 10 bytes: unexpected EOF") {
					t.Errorf("err %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != tc.wantBody || !errors.Is(rerr, tc.wantErr) {
				t.Errorf("body %q, read error %v; want %q, %v", got, rerr, tc.wantBody, tc.wantErr)
			}
		})
	}
	_, err := (&retryhttp.Transport{PreloadBody: -1}).RoundTrip(request(t, "GET", "http://api.test/", ""))
	if err == nil || err.Error() != "retryhttp: Transport.PreloadBody -1 is negative: want 0 (no preload) or a number of bytes" {
		t.Errorf("PreloadBody -1: %v", err)
	}
}
