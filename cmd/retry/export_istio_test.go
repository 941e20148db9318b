package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"pgregory.net/rapid"
)

// Every route plan --format istio writes passes the rules of Istio's own validation
// (validateHTTPRetry and ValidateDuration in istio/istio's pkg/config/validation): durations
// of whole milliseconds from 1ms; attempts 0 with nothing else in retries (Istio refuses "http
// retry policy configured when attempts are set to 0 (disabled)"). A one-attempt policy
// exported "attempts: 0" with retryOn and perTryTimeout, and sub-millisecond timeouts as
// "0.0015s".
func TestPlanIstioPassesIstioValidation(t *testing.T) {
	durations := rapid.OneOf(rapid.SampledFrom([]string{"none", "1ns", "700us", "1500us", "2s"}),
		rapid.Custom(func(t *rapid.T) string {
			return (time.Duration(rapid.Int64Range(1, int64(10*time.Second)).Draw(t, "ns"))).String()
		}))
	rapid.Check(t, func(t *rapid.T) {
		args := []string{"plan", "--format", "istio", "--attempts", rapid.SampledFrom([]string{"1", "2", "4"}).Draw(t, "attempts"),
			"--timeout", durations.Draw(t, "timeout")}
		if at := durations.Draw(t, "attempt timeout"); at != "none" {
			args = append(args, "--attempt-timeout", at)
		}
		var stdout, stderr bytes.Buffer
		if code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Skip("refused:", stderr.String()) // e.g. an attempt timeout above the timeout
		}
		var route struct {
			Timeout *string `yaml:"timeout"`
			Retries struct {
				Attempts      int     `yaml:"attempts"`
				PerTryTimeout *string `yaml:"perTryTimeout"`
				RetryOn       string  `yaml:"retryOn"`
			} `yaml:"retries"`
		}
		if err := yaml.Unmarshal(stdout.Bytes(), &route); err != nil {
			t.Fatalf("%v: %v in\n%s", args, err, stdout.String())
		}
		for name, s := range map[string]*string{"timeout": route.Timeout, "perTryTimeout": route.Retries.PerTryTimeout} {
			if s == nil {
				continue
			}
			d, err := time.ParseDuration(*s)
			if err != nil || d < time.Millisecond || d%time.Millisecond != 0 {
				t.Fatalf("%v: %s %q, Istio wants whole milliseconds from 1ms", args, name, *s)
			}
		}
		if route.Retries.Attempts == 0 && (route.Retries.PerTryTimeout != nil || route.Retries.RetryOn != "") {
			t.Fatalf("%v: attempts 0 with more in retries, which Istio refuses:\n%s", args, stdout.String())
		}
	})
}
