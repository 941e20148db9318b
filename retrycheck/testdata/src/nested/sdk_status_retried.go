package nested

import (
	"context"
	"errors"
	"time"

	"github.com/openai/openai-go"
)

// The same loop going round on a 500, which the SDK retried already: reported.
func sendToolResultOn500(ctx context.Context, client openai.Client) error {
	for attempt := 0; ; attempt++ {
		_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{}) // want `nested retries: openai-go`
		if err == nil {
			return nil
		}
		var apiErr *openai.Error
		if attempt == 3 || !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
			return err
		}
		timer := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}
