package sdktest

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
)

// ours returns the http.Client a service gives an SDK, over base: the Transport wired as the
// README's "Calling LLM APIs" recommends (readmeWiring: a circuit breaker per destination
// from breaker.NewGroup with its defaults, the default retry budget and rate gate of each
// destination, a Timeout of 10 min and a MaxWait of 2 min), plus PreloadBody, as the
// issue's cut-body scenario has it (under an SDK's loop it reads nothing ahead, and the
// other scenarios' answers arrive whole). The policy's decisions and the breakers' changes
// of state go to w instead of the README's observers.
//
// This is the one place the scenarios build our Transport: change it as the README's
// recommendation changes (issue 32).
func ours(t testing.TB, base http.RoundTripper, w *watcher) *http.Client {
	t.Helper()
	breakers, err := breaker.NewGroup(breaker.GroupConfig{OnStateChange: w.breakerChanged})
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &retryhttp.Transport{
		Base:        base,
		Policy:      &retry.Policy{Timeout: 10 * time.Minute, MaxWait: 2 * time.Minute, OnDecision: w.decided},
		Breakers:    breakers,
		PreloadBody: 1 << 20,
	}}
}

// alone returns the http.Client of the SDK alone: base itself, under the SDK's own loop.
func alone(_ testing.TB, base http.RoundTripper, _ *watcher) *http.Client {
	return &http.Client{Transport: base}
}

// mode is how an SDK sends: alone, or over our Transport.
type mode struct {
	name   string
	client func(t testing.TB, base http.RoundTripper, w *watcher) *http.Client
}

var (
	sdkAlone = mode{"SDK alone", alone}
	overOurs = mode{"ours", ours}
)

// callKey is the context key of the call a request belongs to: the SDK passes the caller's
// context on to each attempt, and the policy's OnDecision gets it.
type callKey struct{}

func withCall(ctx context.Context, call string) context.Context {
	return context.WithValue(ctx, callKey{}, call)
}

// watcher collects what our Transport decided: the decisions of each call, and how many
// times a breaker opened. It is safe for concurrent use.
type watcher struct {
	mu        sync.Mutex
	decisions map[string][]retry.Decision // by call
	opened    int
}

func newWatcher() *watcher { return &watcher{decisions: map[string][]retry.Decision{}} }

func (w *watcher) decided(ctx context.Context, d retry.Decision) {
	call, _ := ctx.Value(callKey{}).(string)
	w.mu.Lock()
	w.decisions[call] = append(w.decisions[call], d)
	w.mu.Unlock()
}

func (w *watcher) breakerChanged(_ string, _, to breaker.State, _ time.Time) {
	if to == breaker.StateOpen {
		w.mu.Lock()
		w.opened++
		w.mu.Unlock()
	}
}

// stops returns how many stop records (decision "stop") call wrote.
func (w *watcher) stops(call string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, d := range w.decisions[call] {
		if !d.Retry && !d.Lost {
			n++
		}
	}
	return n
}

// breakerOpenings returns how many times a breaker opened.
func (w *watcher) breakerOpenings() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.opened
}
