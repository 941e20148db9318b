package sdktest

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"

	anthropic1 "github.com/anthropics/anthropic-sdk-go"
	option1 "github.com/anthropics/anthropic-sdk-go/option"
	anthropic2 "github.com/anthropics/anthropic-sdk-go/v2"
	option2 "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/retrykit/retry/internal/sdktest/fakeapi"
)

// caller makes one call, tagged call (fakeapi.CallHeader), with the SDK's defaults: its own
// loop of 3 attempts. It returns the SDK's error.
type caller func(ctx context.Context, call string) error

// sdk is one official SDK, calling its own API with the client a test gives it.
type sdk struct {
	// module is the SDK's module path; its version is read from the test binary.
	module string
	// api names the API it calls: "OpenAI" (chat completions) or "Anthropic" (messages).
	api string
	// connect returns a caller that calls the API at url through hc.
	connect func(url string, hc *http.Client) caller
	// response returns the *http.Response inside the SDK's own error type, or nil when err
	// is not of it: what the SDK's caller has of the last answer.
	response func(err error) *http.Response
}

// name returns the SDK's module path and the version this module requires, such as
// "openai-go/v3 v3.100.0" (a test binary records no dependencies: go.mod is read).
func (s sdk) name() string {
	short := strings.TrimPrefix(strings.TrimPrefix(s.module, "github.com/openai/"), "github.com/anthropics/")
	gomod, _ := os.ReadFile("go.mod")
	for line := range strings.Lines(string(gomod)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == s.module {
			return short + " " + f[1]
		}
	}
	return short
}

// sdks are the SDKs under test (issue 32): openai-go, anthropic-sdk-go v1 and v2.
var sdks = []sdk{
	{
		module: "github.com/openai/openai-go/v3", api: "OpenAI",
		connect: func(url string, hc *http.Client) caller {
			client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("sk-test"), option.WithHTTPClient(hc))
			return func(ctx context.Context, call string) error {
				_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_4Mini,
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}},
					option.WithHeader(fakeapi.CallHeader, call))
				return err
			}
		},
		response: func(err error) *http.Response {
			var e *openai.Error
			if errors.As(err, &e) {
				return e.Response
			}
			return nil
		},
	},
	{
		module: "github.com/anthropics/anthropic-sdk-go", api: "Anthropic",
		connect: func(url string, hc *http.Client) caller {
			client := anthropic1.NewClient(option1.WithBaseURL(url), option1.WithAPIKey("sk-ant-test"), option1.WithHTTPClient(hc))
			return func(ctx context.Context, call string) error {
				_, err := client.Messages.New(ctx, anthropic1.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
					Messages: []anthropic1.MessageParam{anthropic1.NewUserMessage(anthropic1.NewTextBlock("Say hello"))}},
					option1.WithHeader(fakeapi.CallHeader, call))
				return err
			}
		},
		response: func(err error) *http.Response {
			var e *anthropic1.Error
			if errors.As(err, &e) {
				return e.Response
			}
			return nil
		},
	},
	{
		module: "github.com/anthropics/anthropic-sdk-go/v2", api: "Anthropic",
		connect: func(url string, hc *http.Client) caller {
			client := anthropic2.NewClient(option2.WithBaseURL(url), option2.WithAPIKey("sk-ant-test"), option2.WithHTTPClient(hc))
			return func(ctx context.Context, call string) error {
				_, err := client.Messages.New(ctx, anthropic2.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
					Messages: []anthropic2.MessageParam{anthropic2.NewUserMessage(anthropic2.NewTextBlock("Say hello"))}},
					option2.WithHeader(fakeapi.CallHeader, call))
				return err
			}
		},
		response: func(err error) *http.Response {
			var e *anthropic2.Error
			if errors.As(err, &e) {
				return e.Response
			}
			return nil
		},
	},
}
