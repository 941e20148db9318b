package retryhttp

import (
	"strings"
	"testing"
	"time"
)

// The signals of error bodies (issue 32 item 6), read by bodySignalOf.

// The bodies of the APIs' documentation.
const (
	openAIQuota = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.",` +
		`"type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	openAIRate = `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	// anthropicSpendCap answers an organization over its tier's monthly spend cap.
	anthropicSpendCap = `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your API usage limits.",` +
		`"details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_018EeWyXxfu5pfWkrYcMdjWG"}`
	anthropicRate    = `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`
	anthropicBilling = `{"type":"error","error":{"type":"billing_error","message":"Billing error"}}`
	// gemini is a 429 of the Gemini API: a QuotaFailure, a Help and a RetryInfo.
	gemini = `{"error":{"code":429,"message":"You exceeded your current quota. Please retry in 1.840371s.","status":"RESOURCE_EXHAUSTED",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaValue":"10"}]},` +
		`{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.84s"}]}}`
)

func TestBodySignalOf(t *testing.T) {
	for _, c := range []struct {
		name string
		body string
		want bodySignal
	}{
		{"OpenAI insufficient_quota", openAIQuota, bodySignal{permanent: true}},
		{"OpenAI insufficient_quota in type alone", `{"error":{"type":"insufficient_quota","code":null}}`, bodySignal{permanent: true}},
		{"OpenAI a code that names the cause", `{"error":{"type":"insufficient_quota","code":"project_spend_limit_exceeded"}}`, bodySignal{permanent: true}},
		{"OpenAI credit_balance_exhausted", `{"error":{"code":"credit_balance_exhausted"}}`, bodySignal{permanent: true}},
		{"OpenAI rate_limit_exceeded: a pace, not a stop", openAIRate, bodySignal{}},
		{"Anthropic's spend cap", anthropicSpendCap, bodySignal{permanent: true}},
		{"Anthropic billing_error", anthropicBilling, bodySignal{permanent: true}},
		{"Anthropic rate_limit_error: a pace, not a stop", anthropicRate, bodySignal{}},
		{"Gemini's RetryInfo", gemini, bodySignal{wait: 1840 * time.Millisecond, hasWait: true}},
		{"the issue's Gemini body", `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.84s"}]}}`,
			bodySignal{wait: 1840 * time.Millisecond, hasWait: true}},
		{"Vertex AI's list form", `[{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}]`,
			bodySignal{wait: 30 * time.Second, hasWait: true}},
		{"the longest of two RetryInfos", `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"},` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3.5s"}]}}`, bodySignal{wait: 3500 * time.Millisecond, hasWait: true}},
		{"a RetryInfo without retryDelay", `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo"}]}}`, bodySignal{}},
		{"a negative retryDelay", `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"-1s"}]}}`, bodySignal{}},
		{"a retryDelay of another type", `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.Help","retryDelay":"5s"}]}}`, bodySignal{}},
		{"whitespace around", " \n" + openAIQuota + "\n", bodySignal{permanent: true}},
		{"the word in a message says nothing", `{"error":{"message":"insufficient_quota","type":"requests"}}`, bodySignal{}},
		{"a body cut short says nothing", openAIQuota[:60], bodySignal{}},
		{"not JSON", `<html><body>insufficient_quota</body></html>`, bodySignal{}},
		{"no error object", `{"type":"insufficient_quota"}`, bodySignal{}},
		{"error a string", `{"error":"insufficient_quota"}`, bodySignal{}},
		{"details of another shape", `{"error":{"details":"x","type":7}}`, bodySignal{}},
		{"an empty body", ``, bodySignal{}},
		{"an empty list", `[]`, bodySignal{}},
	} {
		if got := bodySignalOf([]byte(c.body)); got != c.want {
			t.Errorf("%s: bodySignalOf = %+v; want %+v", c.name, got, c.want)
		}
	}
}

func TestParseProtoDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1.84s", 1840 * time.Millisecond, true},
		{"30s", 30 * time.Second, true},
		{"0s", 0, true},
		{"0.000000001s", time.Nanosecond, true},
		{"315576000000s", longest, true}, // google.protobuf.Duration's largest: saturates
		{"1.0000000001s", 0, false},      // 10 fractional digits
		{"-1s", 0, false},
		{"1", 0, false},
		{"1.5ms", 0, false},
		{"s", 0, false},
		{".5s", 0, false},
		{"1.s", 0, false},
		{" 1s", 0, false},
		{"", 0, false},
	} {
		if got, ok := parseProtoDuration(c.in); got != c.want || ok != c.ok {
			t.Errorf("parseProtoDuration(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestJSONBody(t *testing.T) {
	for _, c := range []struct {
		contentType []string
		want        bool
	}{
		{nil, true},
		{[]string{"application/json"}, true},
		{[]string{"application/json; charset=UTF-8"}, true},
		{[]string{"Application/JSON"}, true},
		{[]string{"application/problem+json"}, true},
		{[]string{"text/html; charset=utf-8"}, false},
		{[]string{"text/plain"}, false},
		{[]string{"+json"}, false},
		{[]string{"application/jsonl"}, false},
	} {
		h := map[string][]string{}
		if c.contentType != nil {
			h["Content-Type"] = c.contentType
		}
		if got := jsonBody(h); got != c.want {
			t.Errorf("jsonBody(%q) = %v; want %v", c.contentType, got, c.want)
		}
	}
}

func FuzzBodySignalOf(f *testing.F) {
	for _, s := range []string{openAIQuota, anthropicSpendCap, gemini, `[{"error":{}}]`, `{"error":{"details":[{}]}}`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		s := bodySignalOf([]byte(body))
		if s.wait < 0 || !s.hasWait && s.wait != 0 || s.hasWait && !strings.Contains(body, "RetryInfo") ||
			s.permanent && !strings.Contains(body, "_") {
			t.Fatalf("bodySignalOf(%q) = %+v", body, s)
		}
	})
}

// parseProtoDuration reads what time.ParseDuration reads of a non-negative number of seconds
// with at most 9 fractional digits, to the same nanosecond.
func FuzzParseProtoDuration(f *testing.F) {
	for _, s := range []string{"1.84s", "30s", "0.000000001s", "315576000000s", "-1s", "1.5ms", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseProtoDuration(v)
		if d < 0 || !ok && d != 0 {
			t.Fatalf("parseProtoDuration(%q) = %v, %v", v, d, ok)
		}
		if std, err := time.ParseDuration(v); ok && err == nil && std != d {
			t.Fatalf("parseProtoDuration(%q) = %v; time.ParseDuration says %v", v, d, std)
		}
	})
}
