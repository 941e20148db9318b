package retryhttp_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
)

// slowService answers 200 after its delay, as a recovered but slow upstream does.
type slowService struct{ delay time.Duration }

func (s slowService) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	select {
	case <-time.After(s.delay):
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("ok")), Request: req}, nil
}

// Issue 15 item 1 over HTTP: 64 workers through one Transport whose breaker opened just
// before the upstream recovered; the recovered upstream answers in 300 ms, longer than the
// 250 ms OpenTimeout. The first trial, admitted at 250 ms, succeeds at 550 ms and closes the
// breaker; from then on every call succeeds. Before, it stayed HALF_OPEN 2 s after recovery
// (4 of 24,969 calls succeeded in the last second).
func TestRecoveredSlowUpstreamClosesTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var closedAt atomic.Int64
		start := time.Now()
		b, err := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: 250 * time.Millisecond,
			OnStateChange: func(_, to breaker.State, at time.Time) {
				if to == breaker.StateClosed {
					closedAt.Store(int64(at.Sub(start)))
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		token, _, _ := b.Allow() // the outage's last failure opens it at t=0
		b.Done(token, retry.ResultFailure)
		tr := &retryhttp.Transport{Base: slowService{300 * time.Millisecond}, Policy: &retry.Policy{MaxAttempts: 1, Breaker: b}}
		var mu sync.Mutex
		var refusedLate, okLate, other int
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				for time.Since(start) < 2*time.Second {
					req, _ := http.NewRequest(http.MethodGet, "http://pricing.test/price", nil)
					resp, err := tr.RoundTrip(req)
					late := time.Since(start) >= time.Second
					mu.Lock()
					switch {
					case err == nil:
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if late {
							okLate++
						}
					case errors.Is(err, retry.ErrCircuitOpen):
						if late {
							refusedLate++
						}
					default:
						other++
					}
					mu.Unlock()
					time.Sleep(10 * time.Millisecond)
				}
			})
		}
		wg.Wait()
		if got := time.Duration(closedAt.Load()); got != 550*time.Millisecond {
			t.Errorf("CLOSED at %v, want 550ms: the first trial (admitted at 250 ms) succeeds after 300 ms", got)
		}
		// After 1 s every worker completes a call each 310 ms: 3 or 4 each, none refused.
		if refusedLate != 0 || okLate < 3*64 || other != 0 {
			t.Errorf("in the last second: %d succeeded, %d refused, %d other errors; want at least 192 successes and nothing else",
				okLate, refusedLate, other)
		}
	})
}
