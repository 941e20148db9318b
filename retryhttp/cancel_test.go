package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// slow503s answers each attempt after 10 ms: 503 twice, then 200; it ends early with the
// request's context.
type slow503s struct{ calls int }

func (s *slow503s) RoundTrip(req *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, req.Body)
	req.Body.Close()
	select {
	case <-req.Context().Done():
		return nil, req.Context().Err()
	case <-time.After(10 * time.Millisecond):
	}
	s.calls++
	status := map[bool]int{true: 200, false: 503}[s.calls == 3]
	return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader("x")), Request: req}, nil
}

// Every way a call ends gives a *retry.Error with its reason and exactly one stop record
// (issue 15 item 4): the caller cancels at every millisecond of a call that buffers a
// streamed body for 20 ms, then runs attempts of 10 ms with waits of 10 ms between them,
// succeeding at 70 ms. Before then, whether the cancel lands while the body is buffered,
// during an attempt or during a wait, the result is reason canceled, matching
// context.Canceled, with one stop record that says so.
func TestEveryCancellationIsARecordedStop(t *testing.T) {
	for k := range 75 {
		synctest.Test(t, func(t *testing.T) {
			pr, pw := io.Pipe()
			written := make(chan struct{})
			defer func() { <-written }() // the writer stops at its next write once the body is closed
			go func() {
				defer close(written)
				for range 10 {
					time.Sleep(2 * time.Millisecond)
					if _, err := pw.Write([]byte("b")); err != nil {
						return
					}
				}
				pw.Close()
			}()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(time.Duration(k)*time.Millisecond, cancel)
			req, _ := http.NewRequestWithContext(ctx, "PUT", "http://api.test/", pr)
			var stops []retry.Decision
			p := constant(t, 10*time.Millisecond, 3, time.Second)
			p.OnDecision = func(_ context.Context, d retry.Decision) {
				if !d.Retry {
					stops = append(stops, d)
				}
			}
			resp, err := (&retryhttp.Transport{Base: &slow503s{}, Policy: p}).RoundTrip(req)
			if k >= 70 {
				if err != nil || resp.StatusCode != 200 || len(stops) != 1 || stops[0].Reason != retry.ReasonSuccess {
					t.Fatalf("cancel at %d ms, after the success at 70 ms: %v, %v, stops %+v", k, resp, err, stops)
				}
				readAll(t, resp)
				return
			}
			var stop *retry.Error
			if !errors.As(err, &stop) || stop.Reason != retry.ReasonCanceled || !errors.Is(err, context.Canceled) {
				t.Fatalf("cancel at %d ms: %v (%T); want a *retry.Error with reason canceled", k, err, err)
			}
			if len(stops) != 1 || stops[0].Reason != retry.ReasonCanceled || attr(stops[0], "method") != "PUT" {
				t.Fatalf("cancel at %d ms: stop records %+v; want one, canceled, naming the request", k, stops)
			}
		})
	}
}
