package sdktest

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	retrybackoff "github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/retryhttp"
)

// The README's log lines are what stdobs.SlogObserver prints, through slog's JSON handler at
// Debug, for one chat completion through openai-go over the README's wiring: a 429 that says
// the quota of requests is spent until its reset in 451 ms, then the completion. The time
// is testing/synctest's clock, which starts at 2000-01-01T00:00:00Z; the jitter source is
// seeded, so that the wait is the same on every run.
func TestREADMESlogLines(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	api := &stepsAPI{steps: []step{
		{status: 429, header: map[string]string{"X-Ratelimit-Limit-Requests": "50", "X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "451ms"}},
		{header: map[string]string{"X-Ratelimit-Limit-Requests": "50", "X-Ratelimit-Remaining-Requests": "49", "X-Ratelimit-Reset-Requests": "1s"}},
	}}
	var logged string
	onREADMEWiring(t, api, false, func(rm readme) {
		rm.llm.Transport.(*retryhttp.Transport).Policy.Random = retrybackoff.NewSource(1)
		_, err := rm.openAI.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_4Mini,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}})
		if err != nil {
			t.Fatal(err)
		}
		logged = rm.logs.String()
	})
	blocks := fenced(readmeSection(t), "json")
	if len(blocks) != 1 || blocks[0] != logged {
		t.Errorf("the README's log lines (its one json block of the section):\n%s\nwhat SlogObserver printed:\n%s", strings.Join(blocks, "\n"), logged)
	}
}
