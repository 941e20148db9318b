package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tokens per answer, as the bodies' usage reports them and the token limits count them.
const (
	InputTokens  = 12
	OutputTokens = 3
)

// api is one of the two APIs the Server plays: the bodies and headers that differ.
type api struct {
	anthropic       bool
	requestIDHeader string
}

var (
	openAI    = api{requestIDHeader: "X-Request-Id"}
	anthropic = api{anthropic: true, requestIDHeader: "Request-Id"}
)

// apiOf returns the API whose endpoint path is; OpenAI's, for its error bodies, when none.
func apiOf(path string) (api, bool) {
	switch path {
	case "/v1/chat/completions":
		return openAI, true
	case "/v1/messages":
		return anthropic, true
	}
	return openAI, false
}

// authenticated reports whether r carries a credential the API takes: OpenAI's bearer
// token; Anthropic's x-api-key, or a bearer token (anthropic-sdk-go v2 sends its key so).
func (a api) authenticated(r *http.Request) bool {
	bearer := strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
	if a.anthropic {
		return bearer || r.Header.Get("X-Api-Key") != ""
	}
	return bearer
}

// completion returns the body of answer n: a chat completion or a message saying "Hello!".
func (a api) completion(model string, n int, now time.Time) any {
	if a.anthropic {
		return map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "text", "text": "Hello!"}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": InputTokens, "output_tokens": OutputTokens}}
	}
	return map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": now.Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": "Hello!", "refusal": nil},
			"logprobs": nil, "finish_reason": "stop"}},
		"usage":              map[string]any{"prompt_tokens": InputTokens, "completion_tokens": OutputTokens, "total_tokens": InputTokens + OutputTokens},
		"system_fingerprint": nil}
}

// errorAnswer returns an error answer with the API's error body. errorType is Anthropic's
// error type; OpenAI's body gets the type and code OpenAI sends for the same status.
func (a api) errorAnswer(status int, errorType, message string) answer {
	if a.anthropic {
		return answer{status: status, header: http.Header{}, body: map[string]any{"type": "error",
			"error": map[string]any{"type": errorType, "message": message}}}
	}
	openAIType, code := "invalid_request_error", any(nil)
	switch status {
	case http.StatusUnauthorized:
		code = "invalid_api_key"
	case http.StatusNotFound:
		code = "unknown_url"
	case http.StatusTooManyRequests:
		openAIType, code = "requests", "rate_limit_exceeded"
	case http.StatusServiceUnavailable:
		openAIType = "server_error"
	}
	return answer{status: status, header: http.Header{}, body: map[string]any{"error": map[string]any{
		"message": message, "type": openAIType, "param": nil, "code": code}}}
}

// rateLimited returns the 429 of a request over quota q, without its rate-limit fields
// (quota.publish adds them).
func (a api) rateLimited(q quota) answer {
	if a.anthropic {
		return a.errorAnswer(http.StatusTooManyRequests, "rate_limit_error", fmt.Sprintf(
			"This request would exceed your organization's rate limit of %d requests per %v. Please try again later.", q.limit, q.window))
	}
	return a.errorAnswer(http.StatusTooManyRequests, "", fmt.Sprintf(
		"Rate limit reached on requests per %v: Limit %d, Used %d, Requested 1. Please try again in %s.", q.window, q.limit, q.limit, q.resetIn()))
}

// unavailable returns the answer during an outage: OpenAI's 503, Anthropic's 529.
func (a api) unavailable() answer {
	if a.anthropic {
		return a.errorAnswer(529, "overloaded_error", "Overloaded")
	}
	return a.errorAnswer(http.StatusServiceUnavailable, "", "The server is overloaded or not ready yet.")
}

// write sends answer x, with its Content-Length; a cut answer gets half its body, then the
// connection is closed.
func (a api) write(w http.ResponseWriter, x answer) {
	body, err := json.Marshal(x.body)
	if err != nil {
		panic(err) // the bodies are made of maps, strings and numbers
	}
	for k, v := range x.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(x.status)
	if !x.cut {
		w.Write(body)
		return
	}
	w.Write(body[:len(body)/2])
	rc := http.NewResponseController(w)
	rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close() // mid-body: the client reads fewer bytes than announced
	}
}
