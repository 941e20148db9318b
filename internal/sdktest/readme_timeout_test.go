package sdktest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	anthropic1 "github.com/anthropics/anthropic-sdk-go"
	option1 "github.com/anthropics/anthropic-sdk-go/option"
	anthropic2 "github.com/anthropics/anthropic-sdk-go/v2"
	option2 "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/retrykit/retry/retryhttp"
)

// Policy.Timeout bounds each SDK attempt, and the reading of a streamed answer's body: the
// README's "Calling LLM APIs" says what a stream longer than it gets (issue 32 item 8).

// streamingAPI streams an answer as each API does (server-sent events): minutes text deltas,
// the first 30 s after the request and then one a minute, then the end; it counts the
// requests.
type streamingAPI struct {
	minutes  int
	requests atomic.Int32
}

func (a *streamingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	a.requests.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	anthropic := r.URL.Path == "/v1/messages"
	if anthropic {
		io.WriteString(w, "event: message_start\ndata: "+`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`+"\n\n")
		io.WriteString(w, "event: content_block_start\ndata: "+`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`+"\n\n")
	}
	rc.Flush()
	for i := range a.minutes {
		wait := time.Minute
		if i == 0 {
			wait = 30 * time.Second
		}
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
		if anthropic {
			io.WriteString(w, "event: content_block_delta\ndata: "+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}`+"\n\n")
		} else {
			io.WriteString(w, "data: "+`{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`+"\n\n")
		}
		rc.Flush()
	}
	if anthropic {
		io.WriteString(w, "event: content_block_stop\ndata: "+`{"type":"content_block_stop","index":0}`+"\n\nevent: message_stop\ndata: "+`{"type":"message_stop"}`+"\n\n")
	} else {
		io.WriteString(w, "data: [DONE]\n\n")
	}
}

// streamer reads one streamed answer of its SDK through hc from the API at url: how many
// text deltas came, and the stream's error.
type streamer struct {
	name   string
	stream func(url string, hc *http.Client) (deltas int, err error)
}

// eventStream is what the SDKs' ssestream.Stream[E] offers its reader.
type eventStream[E any] interface {
	Next() bool
	Current() E
	Err() error
	Close() error
}

// deltas reads s to its end and counts the events for which isDelta holds.
func deltas[E any](s eventStream[E], isDelta func(E) bool) (int, error) {
	defer s.Close()
	n := 0
	for s.Next() {
		if isDelta(s.Current()) {
			n++
		}
	}
	return n, s.Err()
}

var streamers = []streamer{
	{"openai-go", func(url string, hc *http.Client) (int, error) {
		client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("sk-test"), option.WithHTTPClient(hc))
		return deltas(client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_4Mini,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}}),
			func(openai.ChatCompletionChunk) bool { return true })
	}},
	{"anthropic-sdk-go v1", func(url string, hc *http.Client) (int, error) {
		client := anthropic1.NewClient(option1.WithBaseURL(url), option1.WithAPIKey("sk-ant-test"), option1.WithHTTPClient(hc))
		return deltas(client.Messages.NewStreaming(context.Background(), anthropic1.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
			Messages: []anthropic1.MessageParam{anthropic1.NewUserMessage(anthropic1.NewTextBlock("Say hello"))}}),
			func(e anthropic1.MessageStreamEventUnion) bool { return e.Type == "content_block_delta" })
	}},
	{"anthropic-sdk-go v2", func(url string, hc *http.Client) (int, error) {
		client := anthropic2.NewClient(option2.WithBaseURL(url), option2.WithAPIKey("sk-ant-test"), option2.WithHTTPClient(hc))
		return deltas(client.Messages.NewStreaming(context.Background(), anthropic2.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
			Messages: []anthropic2.MessageParam{anthropic2.NewUserMessage(anthropic2.NewTextBlock("Say hello"))}}),
			func(e anthropic2.MessageStreamEventUnion) bool { return e.Type == "content_block_delta" })
	}},
}

// A stream that outlives Policy.Timeout (the README's 10 min) ends there: the caller has the
// deltas that came, then the stream's error, context.DeadlineExceeded; the request is not
// sent again. A stream within it comes whole.
func TestREADMEStreamOutlivesTimeout(t *testing.T) {
	for _, s := range streamers {
		for _, c := range []struct {
			minutes, deltas int
			err             error
		}{{9, 9, nil}, {15, 10, context.DeadlineExceeded}} {
			t.Run(fmt.Sprint(s.name, "/", c.minutes, " min"), func(t *testing.T) {
				api := &streamingAPI{minutes: c.minutes}
				onREADMEWiring(t, api, false, func(rm readme) {
					start := time.Now()
					deltas, err := s.stream(rm.url, rm.llm)
					took := time.Since(start)
					_, hasStop := retryhttp.StopOf(err)
					t.Logf("%d deltas in %v, %d requests; error %T %v", deltas, took, api.requests.Load(), err, err)
					if deltas != c.deltas || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) || api.requests.Load() != 1 || hasStop {
						t.Errorf("%d deltas in %v, %d requests, error %v (a stop of ours: %v); want %d deltas, error %v, 1 request",
							deltas, took, api.requests.Load(), err, hasStop, c.deltas, c.err)
					}
					if c.err != nil && (took != 10*time.Minute || err.Error() != "context deadline exceeded") {
						t.Errorf("the stream ended after %v with %q; want 10m0s, context deadline exceeded", took, err)
					}
				})
			})
		}
	}
}
