// Command llm sends chat completions to an OpenAI-style endpoint (OpenAI, Azure OpenAI, or any
// server speaking POST {base}/chat/completions) through retryhttp, under a deadline, a retry
// budget shared by its requests, and decision records logged with log/slog as JSON on stderr.
//
// Usage:
//
//	OPENAI_API_KEY=... go run ./examples/llm -model gpt-5.4-mini 'Say hello' 'Say goodbye'
//	go run ./examples/llm -base http://127.0.0.1:8080/v1 -timeout 20s 'Say hello'
//
// Each argument is one prompt, one request; the replies go to stdout, one a line. What the
// transport does with the API's answers:
//   - a 429 or 503 is retried after the wait the API asks for: retry-after-ms (OpenAI,
//     Anthropic), x-ms-retry-after-ms (Azure), Retry-After, or the reset of a quota at 0
//     (x-ratelimit-reset-requests, x-ratelimit-reset-tokens), never earlier; a wait that does
//     not fit the deadline stops at once, with the API's answer kept;
//   - x-should-retry: true retries, false stops; 529 (overloaded) is retried like 503;
//   - a 500 stops at once (unknown_outcome): the completion may have been made, and a resent
//     one may be billed twice. -key sends an Idempotency-Key, with which a 500 is retried:
//     use it only with a server that documents an idempotency-key contract for generation,
//     which neither OpenAI nor Anthropic does;
//   - the budget (10% of the requests, plus a floor) stops retries when the endpoint fails
//     for everyone, rather than multiply its load.
//
// A decision record names the header a wait came from (retry_after_from). The exit status is
// 0 when every prompt got a reply, 1 otherwise, 2 for bad flags.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retryhttp"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr, http.DefaultTransport)
	var usage usageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "llm:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "llm:", err)
		os.Exit(1)
	}
}

// usageError is a bad flag or argument.
type usageError struct{ error }

// run sends the prompts of args through base (the network, or a test's server) and writes
// the replies to stdout and the decision records to stderr.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, base http.RoundTripper) error {
	fs := flag.NewFlagSet("llm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("base", "https://api.openai.com/v1", "the API's base `URL`")
	model := fs.String("model", "gpt-5.4-mini", "the model")
	timeout := fs.Duration("timeout", 60*time.Second, "deadline of each prompt, its attempts and waits together")
	keyed := fs.Bool("key", false, "send an Idempotency-Key, so that a 500 is retried (only for a server whose idempotency-key contract covers generation)")
	keyEnv := fs.String("api-key-env", "OPENAI_API_KEY", "the environment variable holding the API key")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() == 0 {
		return usageError{errors.New("want one or more prompts")}
	}
	if *timeout <= 0 {
		return usageError{fmt.Errorf("-timeout %v: want a positive duration", *timeout)}
	}

	// Retries at Debug, stops at Info: the records of every decision, as JSON lines.
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	shared, err := budget.NewRatio(budget.RatioConfig{}) // 10% of the requests, at least 1 retry a second
	if err != nil {
		return err
	}
	policy := &retry.Policy{
		MaxAttempts: 4,
		Timeout:     retry.NoLimit, // each prompt's context carries the deadline
		Budget:      shared,
		OnDecision:  retry.LogDecisions(logger),
	}
	client := &http.Client{Transport: &retryhttp.Transport{Base: base, Policy: policy, AutoIdempotencyKey: *keyed}}
	c := chatClient{http: client, url: strings.TrimSuffix(*endpoint, "/") + "/chat/completions", key: getenv(*keyEnv), model: *model}

	failed := 0
	for _, prompt := range fs.Args() {
		pctx, cancel := context.WithTimeout(ctx, *timeout)
		reply, err := c.complete(pctx, prompt)
		cancel()
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "error: %s\n", explain(err))
			continue
		}
		fmt.Fprintln(stdout, reply)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d prompts got no reply", failed, fs.NArg())
	}
	return nil
}

// chatClient sends chat completions.
type chatClient struct {
	http       *http.Client
	url        string
	key, model string
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// complete asks for a completion of prompt and returns its first choice's text.
func (c chatClient) complete(ctx context.Context, prompt string) (string, error) {
	body, err := json.Marshal(struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
	}{c.model, []message{{"user", prompt}}})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var rerr *retryhttp.ResponseError
		if errors.As(err, &rerr) {
			rerr.Response.Body.Close() // the last answer came with the error; it says why in err
		}
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the API answered %s", resp.Status) // a status not retried: 400, 401, ...
	}
	var completion struct {
		Choices []struct {
			Message message `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&completion); err != nil {
		return "", fmt.Errorf("reading the completion: %w", err)
	}
	if len(completion.Choices) == 0 {
		return "", errors.New("the completion has no choice")
	}
	return completion.Choices[0].Message.Content, nil
}

// explain says why a prompt got no reply: the loop's reason, attempts and the server's wait
// when it stopped by policy.
func explain(err error) string {
	var stop *retry.Error
	if !errors.As(err, &stop) {
		return retryhttp.RedactError(err).Error()
	}
	s := fmt.Sprintf("%s after %d attempts in %v", stop.Reason, stop.Attempts, stop.Elapsed.Round(time.Millisecond))
	if wait, ok := stop.RetryAfter(); ok {
		s += fmt.Sprintf(" (the server asked for %v, in %s)", wait, stop.RetryAfterFrom())
	}
	if stop.Status != 0 {
		s += fmt.Sprintf(", last status %d", stop.Status)
	}
	if stop.MayHaveApplied {
		s += "; the completion may have been made"
	}
	return s
}
