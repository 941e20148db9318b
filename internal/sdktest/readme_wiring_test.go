package sdktest

import (
	"github.com/anthropics/anthropic-sdk-go" // v1
	anthropicoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/otelretry"
	"github.com/retrykit/retry/otelretry/stdobs"
	"github.com/retrykit/retry/retryhttp"
)

// The Go blocks of the README's "Calling LLM APIs", line for line: TestREADMEGoBlocks finds
// each block of the section in this file or in readme_v2_test.go, so that every one of them
// compiles against the SDKs this module requires. The functions run in the README tests.

// readmeWiring is the README's wiring of openai-go and anthropic-sdk-go v1 over one
// retryhttp client; it hands the client and the two SDK clients to use.
func readmeWiring(logger *slog.Logger, use func(llm *http.Client, openAI openai.Client, claude anthropic.Client)) error {
	obs, err := otelretry.New(otelretry.Config{ServerAddress: true}) // server.address on every metric
	if err != nil {
		return err
	}
	breakers, err := breaker.NewGroup(breaker.GroupConfig{}) // a circuit breaker per API host
	if err != nil {
		return err
	}
	llm := &http.Client{Transport: &retryhttp.Transport{
		Policy: &retry.Policy{
			Timeout:    10 * time.Minute, // each SDK attempt: its wait at the rate gate, the answer, a stream
			MaxWait:    2 * time.Minute,  // the longest server's wait handed to the SDK: openai-go's own cap
			OnDecision: retry.Observers(obs.Observe, stdobs.SlogObserver(logger, stdobs.DefaultSlogLevels)),
		},
		Breakers: breakers,
	}}
	openAI := openai.NewClient(option.WithHTTPClient(llm))             // reads OPENAI_API_KEY
	claude := anthropic.NewClient(anthropicoption.WithHTTPClient(llm)) // reads ANTHROPIC_API_KEY
	use(llm, openAI, claude)
	return nil
}

// readmeOwnLoop is the README's openai-go client that leaves the retries to the policy.
func readmeOwnLoop(llm *http.Client) (openAI openai.Client) {
	openAI = openai.NewClient(option.WithHTTPClient(llm), option.WithMaxRetries(0), option.WithHeaderDel("X-Stainless-Retry-Count"))
	return openAI
}

// readmeTokenCost is the README's call that states its expected token cost.
func readmeTokenCost(ctx context.Context, claude anthropic.Client, params anthropic.MessageNewParams) (*anthropic.Message, error) {
	ctx = retryhttp.WithTokenCost(ctx, 1200) // the tokens this request will count against the API's quotas
	msg, err := claude.Messages.New(ctx, params)
	return msg, err
}

// readmeStopOf is the README's reading of a failed call: the SDK's own error, and our stop.
func readmeStopOf(ctx context.Context, openAI openai.Client, params openai.ChatCompletionNewParams) {
	_, err := openAI.Chat.Completions.New(ctx, params)
	var apiErr *openai.Error // *anthropic.Error for claude
	if errors.As(err, &apiErr) {
		log.Printf("the API, or our refusal, answered %d", apiErr.StatusCode)
	}
	if stop, ok := retryhttp.StopOf(err); ok { // our reason, attempts and wait
		wait, _ := stop.RetryAfter()
		log.Printf("%s after %d attempts; come back in %v", stop.Reason, stop.Attempts, wait)
	}
}
