package sdktest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/internal/sdktest/fakeapi"
	"github.com/retrykit/retry/retrytest"
)

// rig is one SDK, in one mode, calling a fake API inside a synctest bubble: the API's
// windows, its outage and every wait of the SDK and of our Transport run on the bubble's
// fake clock, over in-memory connections (retrytest.PipeServer).
type rig struct {
	api   *fakeapi.Server
	call  caller
	watch *watcher
	sdk   sdk
}

// onFakeAPI runs f inside a synctest bubble, with s calling a fakeapi.Server of cfg in
// mode m.
func onFakeAPI(t *testing.T, s sdk, m mode, cfg fakeapi.Config, f func(r *rig)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		api := fakeapi.New(cfg)
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		w := newWatcher()
		f(&rig{api: api, watch: w, sdk: s, call: s.connect(srv.URL, m.client(t, srv.Transport(), w))})
	})
}

// result is what came of one call.
type result struct {
	call       string
	start, end time.Time
	err        error
	stop       stop
}

func (r result) elapsed() time.Duration { return r.end.Sub(r.start) }

// one makes call now, with a deadline timeout from now unless timeout is 0.
func (r *rig) one(call string, timeout time.Duration) result {
	ctx := withCall(context.Background(), call)
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res := result{call: call, start: time.Now()}
	res.err = r.call(ctx, call)
	res.end = time.Now()
	if res.err != nil {
		res.stop = stopOf(r.sdk, res.err)
	}
	return res
}

// concurrently makes n calls at once, named prefix0, prefix1, ..., and returns once all
// have returned.
func (r *rig) concurrently(n int, prefix string, timeout time.Duration) []result {
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = r.one(fmt.Sprint(prefix, i), timeout) })
	}
	wg.Wait()
	return results
}

// succeeded counts the calls that returned no error.
func succeeded(results []result) int {
	n := 0
	for _, r := range results {
		if r.err == nil {
			n++
		}
	}
	return n
}

// lastEnd returns when the last of results returned.
func lastEnd(results []result) time.Time {
	var t time.Time
	for _, r := range results {
		if r.end.After(t) {
			t = r.end
		}
	}
	return t
}

// failures summarises the errors of the failed calls, by kind, most frequent first:
// "150 × 429 Too Many Requests, 50 × circuit_open".
func failures(results []result) string {
	counts := map[string]int{}
	for _, r := range results {
		if r.err != nil {
			counts[kind(r.stop, r.err)]++
		}
	}
	kinds := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d × %s", counts[k], k))
	}
	return strings.Join(parts, ", ")
}

// byCall groups requests by the call they belong to.
func byCall(requests []fakeapi.Request) map[string][]fakeapi.Request {
	m := map[string][]fakeapi.Request{}
	for _, q := range requests {
		m[q.Call] = append(m[q.Call], q)
	}
	return m
}

// count counts the requests for which keep is true.
func count(requests []fakeapi.Request, keep func(fakeapi.Request) bool) int {
	n := 0
	for _, q := range requests {
		if keep(q) {
			n++
		}
	}
	return n
}

// measured holds the scenarios' results, so that the report and the target tests, which
// read the same runs, run each once.
var measured sync.Map

// measure returns the result of run under key, running it the first time only.
func measure[T any](t *testing.T, key string, run func(t *testing.T) T) T {
	t.Helper()
	if v, ok := measured.Load(key); ok {
		return v.(T)
	}
	v := run(t)
	if !t.Failed() {
		measured.Store(key, v)
	}
	return v
}
