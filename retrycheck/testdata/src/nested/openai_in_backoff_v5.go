package nested

import (
	"context"

	"github.com/cenkalti/backoff/v5"
	"github.com/openai/openai-go"
)

func openaiInBackoffV5(ctx context.Context, client openai.Client) (*openai.ChatCompletion, error) {
	return backoff.Retry(ctx, func() (*openai.ChatCompletion, error) {
		return client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{}) // want `nested retries: openai-go ChatCompletionService.New at openai_in_backoff_v5.go:12 runs inside each attempt of backoff.Retry \(line 11\): 6 × 3 = 18 calls`
	}, backoff.WithMaxTries(6))
}
