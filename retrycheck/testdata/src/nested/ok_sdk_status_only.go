package nested

import (
	"context"
	"errors"
	"time"

	"github.com/openai/openai-go"
)

// The loop goes round only on one 400, which the SDK does not retry, and returns on every
// error the SDK retries: the attempts never multiply (openai-go's agents_stream.go,
// issue 36).
func sendToolResult(ctx context.Context, client openai.Client, callID string) error {
	delays := [...]time.Duration{100 * time.Millisecond, 300 * time.Millisecond}
	for attempt := 0; ; attempt++ {
		_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{})
		if err == nil {
			return nil
		}
		var apiErr *openai.Error
		if attempt == len(delays) || !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message != "Unknown pending tool call: "+callID {
			return err
		}
		timer := time.NewTimer(delays[attempt])
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}
