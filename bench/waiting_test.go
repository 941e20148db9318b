package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/retryhttp"
)

// waitingLoops is how many HTTP loops BenchmarkWaitingLoop parks at once.
const waitingLoops = 500

// waitingWait is the wait each loop parks in after its first 503: long enough to measure in.
const waitingWait = time.Minute

// waitingClients returns each library's client that, answered 503, waits waitingWait before
// its second and last attempt. The request's context ends the wait.
func waitingClients(tb testing.TB) []struct {
	name   string
	client *http.Client
} {
	constant, err := backoff.New(backoff.Config{Kind: backoff.Constant, Base: waitingWait, Jitter: backoff.NoJitter})
	if err != nil {
		tb.Fatal(err)
	}
	ours := &http.Client{Transport: &retryhttp.Transport{Base: transport(),
		Policy: &retry.Policy{MaxAttempts: 2, Backoff: constant, Timeout: 2 * waitingWait, MaxWait: 2 * waitingWait,
			Budget: retry.NoBudget}}} // the peers have no retry budget: with ours, 480 of the 500 retries would be refused

	rh := retryablehttp.NewClient()
	rh.HTTPClient = &http.Client{Transport: transport()}
	rh.Logger = nil
	rh.RetryMax = 1
	rh.RetryWaitMin, rh.RetryWaitMax = waitingWait, waitingWait

	fs := &http.Client{Transport: failsafehttp.NewRoundTripper(transport(),
		failsafehttp.NewRetryPolicyBuilder().WithMaxRetries(1).WithDelay(waitingWait).Build())}

	return []struct {
		name   string
		client *http.Client
	}{
		{"retry", ours},
		{"hashicorp-go-retryablehttp", rh.StandardClient()},
		{"failsafe-go", fs},
	}
}

// BenchmarkWaitingLoop measures what an HTTP retry loop holds while it waits (issue 20 item
// 5): waitingLoops GETs, each answered 503 by a loopback server that closes every
// connection, each then parked in its wait before a second attempt. It reports, per parked
// loop, the live heap (after GCs, less what was live before the loops started), the size of
// the goroutine's stack while it waits (read by each goroutine when its loop returns, after
// the GCs that may halve a parked stack; amd64 only) and the goroutines. caller= says how
// much the frames above the call take, as a service's handler frames would: 0 B, and about
// 1.5 KB (net/http's server frames and a handler's).
func BenchmarkWaitingLoop(b *testing.B) {
	var arrived atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "overloaded\n")
	}))
	defer srv.Close()
	for _, depth := range []struct {
		name   string
		frames int
	}{{"0B", 0}, {"1.5KB", 5}} {
		for _, c := range waitingClients(b) {
			b.Run("caller="+depth.name+"/lib="+c.name, func(b *testing.B) {
				var heap, stack, stacks, goroutines float64
				for range b.N {
					h, s, all, g := parkLoops(b, c.client, srv.URL, &arrived, depth.frames)
					heap, stack, stacks, goroutines = heap+h, stack+s, stacks+all, goroutines+g
				}
				n := float64(b.N)
				b.ReportMetric(heap/n, "heap-B/loop")
				if stack > 0 {
					b.ReportMetric(stack/n, "stack-B/loop")
				}
				b.ReportMetric(stacks/n, "stackinuse-B/loop")
				b.ReportMetric(goroutines/n, "goroutines/loop")
			})
		}
	}
}

// parkLoops starts waitingLoops GETs of url with client, each under frames frames of about
// 300 bytes, waits until every one has had its 503 and is parked, measures, then ends them
// through their context. It returns the heap, the mean stack and the goroutines per parked
// loop, and the growth of the runtime's stack memory (MemStats.StackInuse) per parked loop,
// which counts the stacks the runtime keeps in its pools too: read it with one library a
// process (-test.bench 'WaitingLoop/caller=0B/lib=retry$').
func parkLoops(b *testing.B, client *http.Client, url string, arrived *atomic.Int64, frames int) (heap, stack, stacks, goroutines float64) {
	b.Helper()
	before := settled()
	arrived.Store(0)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var ownStacks atomic.Int64
	for range waitingLoops {
		wg.Go(func() {
			underFrames(frames, func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if resp, err := client.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				ownStacks.Add(int64(goroutineStackSize())) // as it was while parked: nothing ran deeper since
			})
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for arrived.Load() < waitingLoops && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if arrived.Load() < waitingLoops {
		b.Fatalf("only %d of %d requests arrived in 30 s", arrived.Load(), waitingLoops)
	}
	time.Sleep(200 * time.Millisecond) // every 503 read, drained and closed: all loops parked
	parked := settled()
	if arrived.Load() != waitingLoops {
		b.Fatalf("%d requests arrived: a loop did not wait", arrived.Load())
	}
	if live := parked.goroutines - before.goroutines; live < waitingLoops {
		b.Fatalf("%d goroutines more than before the loops, fewer than the %d loops: a loop returned instead of waiting", live, waitingLoops)
	}
	cancel()
	wg.Wait()
	n := float64(waitingLoops)
	return float64(int64(parked.heap)-int64(before.heap)) / n, float64(ownStacks.Load()) / n,
		float64(int64(parked.stacks)-int64(before.stacks)) / n, float64(parked.goroutines-before.goroutines) / n
}

// underFrames calls f under n frames of about 300 bytes each.
//
//go:noinline
func underFrames(n int, f func()) byte {
	var frame [256]byte
	if n == 0 {
		f()
		return frame[0]
	}
	return underFrames(n-1, f) + frame[n%len(frame)]
}

// memory is what the process holds at one moment.
type memory struct {
	heap       uint64
	stacks     uint64 // MemStats.StackInuse
	goroutines int
}

// settled collects garbage four times (each pass frees what finalizers released, and may
// halve a parked goroutine's stack) and reads the live heap, the stack memory and the
// goroutines.
func settled() memory {
	for range 4 {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memory{heap: m.HeapAlloc, stacks: m.StackInuse, goroutines: runtime.NumGoroutine()}
}
