package sdktest

import (
	"bytes"
	"context"
	"log"
	"os"
	"testing"
	"time"

	anthropic1 "github.com/anthropics/anthropic-sdk-go"
	anthropic2 "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// The README's other Go blocks, run over its wiring: the SDK's loop turned off, a token
// cost stated, anthropic-sdk-go v2's client, and the reading of a failed call.
func TestREADMEBlocksRun(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	chat := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_4Mini,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}}

	t.Run("the policy's loop instead of the SDK's: one call, our retry after the 429's wait", func(t *testing.T) {
		api := &stepsAPI{steps: []step{{status: 429, header: map[string]string{"Retry-After-Ms": "1500"}}, {}}}
		onREADMEWiring(t, api, false, func(rm readme) {
			own := readmeOwnLoop(rm.llm)
			_, err := own.Chat.Completions.New(context.Background(), chat)
			at := api.times()
			if err != nil || len(at) != 2 || at[1].Sub(at[0]) < 1500*time.Millisecond || at[1].Sub(at[0]) >= 1650*time.Millisecond {
				t.Errorf("error %v, requests at %v", err, at)
			}
		})
	})
	t.Run("a token cost counts against the token quotas; a call without one does not", func(t *testing.T) {
		// The API says 1000 tokens are left until a reset in 20 s: in OpenAI's tokens quota,
		// in Anthropic's output-tokens quota.
		spent := func(anthropic bool) func(now time.Time) map[string]string {
			return func(now time.Time) map[string]string {
				if anthropic {
					return map[string]string{"Anthropic-Ratelimit-Output-Tokens-Limit": "8000", "Anthropic-Ratelimit-Output-Tokens-Remaining": "1000",
						"Anthropic-Ratelimit-Output-Tokens-Reset": now.Add(20 * time.Second).UTC().Format(time.RFC3339)}
				}
				return map[string]string{"X-Ratelimit-Limit-Tokens": "8000", "X-Ratelimit-Remaining-Tokens": "1000", "X-Ratelimit-Reset-Tokens": "20s"}
			}
		}
		claudeParams := anthropic1.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
			Messages: []anthropic1.MessageParam{anthropic1.NewUserMessage(anthropic1.NewTextBlock("Say hello"))}}
		for _, anthropic := range []bool{false, true} {
			api := &stepsAPI{steps: []step{{at: spent(anthropic)}}}
			onREADMEWiring(t, api, false, func(rm readme) {
				call := func(ctx context.Context, cost bool) error {
					ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
					defer cancel()
					var err error
					switch {
					case anthropic && cost:
						_, err = readmeTokenCost(ctx, rm.claude, claudeParams) // 1200 tokens
					case anthropic:
						_, err = rm.claude.Messages.New(ctx, claudeParams)
					default:
						if cost {
							ctx = retryhttp.WithTokenCost(ctx, 1200)
						}
						_, err = rm.openAI.Chat.Completions.New(ctx, chat)
					}
					return err
				}
				first := call(context.Background(), false) // tells the gate of the quota
				costly := call(context.Background(), true)
				stop, _ := retryhttp.StopOf(costly)
				afterCostly := len(api.times())
				plain := call(context.Background(), false)
				if first != nil || stop == nil || stop.Reason != retry.ReasonRateLimitExceedsDeadline || afterCostly != 1 || plain != nil || len(api.times()) != 2 {
					t.Errorf("anthropic %v: the first call %v; with a cost of 1200: %v after %d requests; without: %v, %d requests in all",
						anthropic, first, costly, afterCostly, plain, len(api.times()))
				}
			})
		}
	})
	t.Run("anthropic-sdk-go v2's client", func(t *testing.T) {
		onREADMEWiring(t, &stepsAPI{steps: []step{{}}}, false, func(rm readme) {
			v2 := readmeClaudeV2(rm.llm)
			msg, err := v2.Messages.New(context.Background(), anthropic2.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
				Messages: []anthropic2.MessageParam{anthropic2.NewUserMessage(anthropic2.NewTextBlock("Say hello"))}})
			if err != nil || msg.Content[0].Text != "Hello!" {
				t.Errorf("%v, %v", msg, err)
			}
		})
	})
	t.Run("reading a failed call: the SDK's status, and our stop", func(t *testing.T) {
		var logged bytes.Buffer
		log.SetOutput(&logged)
		log.SetFlags(0)
		defer func() { log.SetOutput(os.Stderr); log.SetFlags(log.LstdFlags) }()
		onREADMEWiring(t, &stepsAPI{steps: []step{{status: 503}}}, false, func(rm readme) {
			readmeStopOf(context.Background(), rm.openAI, chat) // 3 503s open the breaker
			logged.Reset()
			readmeStopOf(context.Background(), rm.openAI, chat)
		})
		want := "the API, or our refusal, answered 503\ncircuit_open after 0 attempts; come back in 30s\n"
		if logged.String() != want {
			t.Errorf("logged %q; want %q", logged.String(), want)
		}
	})
}
