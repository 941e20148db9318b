package sdktest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Both APIs through the README's wiring, each down (503 every time): the first call of each
// opens its host's breaker, the second is refused. What the callers read of the refusals is
// what the README quotes, and every metric of otelretry's Observer names the API's host in
// server.address (Config.ServerAddress), so that a dashboard tells the APIs apart.
func TestREADMETwoAPIs(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	reader := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	t.Cleanup(func() { otel.SetMeterProvider(noop.NewMeterProvider()) })

	var refusals []string
	hosts := map[string][]string{} // metric name -> server.address of each data point
	onREADMEWiring(t, &stepsAPI{steps: []step{{status: 503}}}, false, func(rm readme) {
		ctx := context.Background()
		for range 2 {
			_, err := rm.openAI.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_4Mini,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}})
			refusals = append(refusals, err.Error())
			var e *openai.Error
			if errors.As(err, &e) && len(refusals) == 2 && (e.StatusCode != 503 || e.Type != "circuit_open" || e.Code != "circuit_open") {
				t.Errorf("openai-go's error of our refusal: StatusCode %d, Type %q, Code %q; want 503, circuit_open, circuit_open", e.StatusCode, e.Type, e.Code)
			}
		}
		for range 2 {
			_, err := rm.claude.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say hello"))}})
			refusals = append(refusals, err.Error())
		}
		var rm2 metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm2); err != nil {
			t.Fatal(err)
		}
		for _, sm := range rm2.ScopeMetrics {
			for _, m := range sm.Metrics {
				hosts[m.Name] = append(hosts[m.Name], serverAddresses(m.Data)...)
			}
		}
	})

	section := readmeSection(t)
	for _, r := range []string{"\n`" + refusals[1] + "`\n", "\n" + refusals[3] + "\n"} { // the refused calls, each on a line
		t.Log(r)
		if !strings.Contains(section, r) {
			t.Errorf("the README does not quote this refusal as the caller reads it:\n%s", r)
		}
	}
	if len(hosts) == 0 {
		t.Fatal("no metric recorded")
	}
	for name, got := range hosts {
		t.Logf("%s: %v", name, got)
		for _, h := range got {
			if h != "api.openai.com" && h != "api.anthropic.com" {
				t.Errorf("%s: a data point with server.address %q", name, h)
			}
		}
	}
	for _, name := range []string{"retry.attempts", "retry.retries", "retry.stops"} {
		if got := hosts[name]; !slices.Contains(got, "api.openai.com") || !slices.Contains(got, "api.anthropic.com") {
			t.Errorf("%s: server.address %v; want both hosts", name, got)
		}
	}
}

// serverAddresses returns the server.address of each data point of a metric ("" when it has
// none).
func serverAddresses(data metricdata.Aggregation) []string {
	var sets []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	}
	var hosts []string
	for _, s := range sets {
		v, _ := s.Value("server.address")
		hosts = append(hosts, v.AsString())
	}
	return hosts
}
