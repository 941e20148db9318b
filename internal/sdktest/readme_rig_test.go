package sdktest

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	anthropic1 "github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"

	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// stepsAPI answers request n with steps[n], the last step again once they run out, delay
// after it came (unless the client goes first); it records when each request came.
type stepsAPI struct {
	steps []step
	delay time.Duration
	mu    sync.Mutex
	at    []time.Time
}

func (a *stepsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	s := a.steps[min(len(a.at), len(a.steps)-1)]
	a.at = append(a.at, time.Now())
	a.mu.Unlock()
	io.Copy(io.Discard, r.Body) // the server then watches the connection: r's context ends with it
	select {
	case <-time.After(a.delay):
	case <-r.Context().Done():
		return
	}
	(&scriptedAPI{step: s}).ServeHTTP(w, r)
}

// times returns when each request came.
func (a *stepsAPI) times() []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.at)
}

// readme is the README's wiring (readmeWiring) serving SDK calls against a handler, inside a
// synctest bubble: llm is the README's *http.Client, its Transport's Base the handler's
// in-memory server; logs holds what stdobs.SlogObserver wrote, as JSON lines, at Debug.
type readme struct {
	url     string
	llm     *http.Client
	openAI  openai.Client
	claude  anthropic1.Client
	logs    *bytes.Buffer
	refused *failing // Base when refuse is set
}

// toPipe sends every request to the PipeServer of its transport over plain HTTP, so that the
// SDK clients of the README's wiring keep their own base URLs (https://api.openai.com/v1/,
// https://api.anthropic.com/) and the records and metrics name the real hosts.
type toPipe struct{ rt http.RoundTripper }

func (p toPipe) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.URL.Scheme = "http"
	return p.rt.RoundTrip(r)
}

// onREADMEWiring runs f inside a synctest bubble with the README's wiring over a PipeServer
// serving h (toPipe), or over a transport whose every exchange fails when refuse is set.
// Base replaces http.DefaultTransport before the first request. The SDK clients of the
// wiring read their keys from the environment: the tests that use them set it.
func onREADMEWiring(t *testing.T, h http.Handler, refuse bool, f func(r readme)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		srv := retrytest.NewPipeServer(h)
		defer srv.Close()
		logs := new(bytes.Buffer)
		logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		r := readme{url: srv.URL, logs: logs, refused: &failing{}}
		err := readmeWiring(logger, func(llm *http.Client, openAI openai.Client, claude anthropic1.Client) {
			r.llm, r.openAI, r.claude = llm, openAI, claude
		})
		if err != nil {
			t.Fatal(err)
		}
		r.llm.Transport.(*retryhttp.Transport).Base = toPipe{srv.Transport()}
		if refuse {
			r.llm.Transport.(*retryhttp.Transport).Base = r.refused
		}
		f(r)
	})
}
