package main

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// outageAPI fails every request with 503 until recovery (from its start), then answers as
// the fake OpenAI does; it counts the requests it got while down.
type outageAPI struct {
	start, recovery time.Time
	ok              http.Handler

	mu   sync.Mutex
	sick int
}

func (a *outageAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if time.Now().Before(a.recovery) {
		a.mu.Lock()
		a.sick++
		a.mu.Unlock()
		http.Error(w, `{"error":{"message":"Service Unavailable"}}`, http.StatusServiceUnavailable)
		return
	}
	a.ok.ServeHTTP(w, r)
}

// sdkOutage runs chat completions through openai-go (its own loop of 3 attempts) over a
// retryhttp.Transport with a breaker.Group made with cfg, wired as the README says, one call
// started every 100 ms, against an API down for outage; it returns the requests the API got
// while down and the time from its recovery to the end of the first call that succeeded.
func sdkOutage(t *testing.T, cfg breaker.Config, outage time.Duration) (sick int, afterRecovery time.Duration) {
	synctest.Test(t, func(t *testing.T) {
		api := &outageAPI{start: time.Now(), recovery: time.Now().Add(outage), ok: &fakeOpenAI{answers: []answer{{reply: "Hello!"}}}}
		srv := retrytest.NewPipeServer(api)
		defer srv.Close()
		group, err := breaker.NewGroup(breaker.GroupConfig{Breaker: cfg})
		if err != nil {
			t.Fatal(err)
		}
		client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("sk-test"),
			option.WithHTTPClient(&http.Client{Transport: closingResponseErrors{&retryhttp.Transport{Base: srv.Transport(), Breakers: group}}}))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		succeeded := make(chan time.Time, 1)
	calls:
		for {
			wg.Go(func() {
				_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_4Mini,
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}})
				if err == nil {
					select {
					case succeeded <- time.Now():
					default:
					}
				}
			})
			select {
			case at := <-succeeded:
				afterRecovery = at.Sub(api.recovery)
				break calls
			case <-time.After(100 * time.Millisecond):
			}
		}
		cancel()
		wg.Wait()
		sick = api.sick
	})
	return sick, afterRecovery
}

// Issue 32, "a 30 s outage" through openai-go with our Transport under it, and item 5's
// outages of 31 s, 90 s and 10 min: the requests that reach the sick API and the refusals
// after its recovery, under the breaker's defaults (the README's wiring: 3 failures in a
// row, OPEN 30 s). The 30 s target: no more than 3 requests reach the sick API, and the
// first success comes within 1 s of recovery.
func TestOutageThroughOpenAIGo(t *testing.T) {
	for _, c := range []struct {
		outage        time.Duration
		sick          int
		afterRecovery time.Duration
	}{
		{30 * time.Second, 3, 200 * time.Millisecond},
		{31 * time.Second, 4, 29200 * time.Millisecond},
		{90 * time.Second, 5, 200 * time.Millisecond},
		{10 * time.Minute, 22, 200 * time.Millisecond},
	} {
		sick, after := sdkOutage(t, breaker.Config{ConsecutiveFailures: 3, OpenTimeout: 30 * time.Second}, c.outage)
		t.Logf("%v outage: %d requests to the sick API, first success %v after recovery", c.outage, sick, after)
		if sick != c.sick || after != c.afterRecovery {
			t.Errorf("%v outage: %d requests, first success %v after recovery; want %d, %v", c.outage, sick, after, c.sick, c.afterRecovery)
		}
	}
}
