package retryhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

func TestRedactURL(t *testing.T) {
	cases := map[string]string{
		"https://api.test/v1/items?page=2":                                      "https://api.test/v1/items?page=2",
		"https://bob:hunter2@api.test/":                                         "https://REDACTED@api.test/",
		"https://api.test/?token=abc&page=2&API_KEY=k&sig=s":                    "https://api.test/?token=REDACTED&page=2&API_KEY=REDACTED&sig=REDACTED",
		"https://api.test/?a=1;token=abc&X-Amz-Signature=s":                     "https://api.test/?a=1;token=REDACTED&X-Amz-Signature=REDACTED",
		"https://b.s3.test/o?X-Amz-Signature=ff&X-Amz-Credential=c&versionId=1": "https://b.s3.test/o?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&versionId=1",
		"https://api.test/cb#access_token=abc":                                  "https://api.test/cb",
		"https://api.test/?acc%65ss_token=abc":                                  "https://api.test/?acc%65ss_token=REDACTED",
	}
	for in, want := range cases {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := retryhttp.RedactURL(u); got != want {
			t.Errorf("RedactURL(%s) = %s; want %s", in, got, want)
		}
	}
	if retryhttp.RedactURL(nil) != "" {
		t.Error("RedactURL(nil) is not empty")
	}
}

// secretRequest builds a request carrying a distinct secret in every place SPEC R6.2 and the
// issue name; every secret contains "s3cr3t".
func secretRequest(t *testing.T, method string) *http.Request {
	params := []string{"token", "key", "api_key", "access_token", "signature", "sig", "password", "secret", "X-Amz-Signature"}
	q := make([]string, len(params))
	for i, p := range params {
		q[i] = p + "=s3cr3t-q" + fmt.Sprint(i)
	}
	req := request(t, method, "http://alice:s3cr3t-pass@api.test/orders?page=1&"+strings.Join(q, "&"), `{"card":"s3cr3t-body"}`)
	req.Header.Set("Authorization", "Bearer s3cr3t-auth")
	req.Header.Set("Proxy-Authorization", "Basic s3cr3t-proxy")
	req.Header.Set("Cookie", "session=s3cr3t-cookie")
	req.Header.Set("X-Api-Key", "s3cr3t-apikey")
	return req
}

// TestNoSecretInOutput runs every scenario, plus failures whose error messages embed the
// URL and headers, with a debug logger and a JSON record hook, and checks that no secret
// appears in the logs, the records or the errors' messages.
func TestNoSecretInOutput(t *testing.T) {
	leaky := retrytest.Step{Action: retrytest.Reset, Err: &url.Error{Op: "Post",
		URL: "http://alice:s3cr3t-pass@api.test/orders?token=s3cr3t-q0",
		Err: fmt.Errorf("proxy refused Authorization %q and key s3cr3t-apikey", "Bearer s3cr3t-auth")}}
	all := append([]scenario{
		{name: "error embeds URL and headers", method: "GET", steps: []retrytest.Step{leaky, ok200}, wantStatus: 200, wantRequests: 2, wantReason: retry.ReasonSuccess},
		{name: "POST error embeds URL and headers", method: "POST", steps: []retrytest.Step{leaky}, wantErr: retry.ErrUnknownOutcome, wantRequests: 1, wantReason: retry.ReasonUnknownOutcome},
	}, scenarios...)
	for _, s := range all {
		t.Run(s.name, func(t *testing.T) {
			var out bytes.Buffer
			p := constant(t, time.Second, 3, 30*time.Second)
			logger := retry.LogDecisions(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
			p.OnDecision = func(ctx context.Context, d retry.Decision) {
				logger(ctx, d)
				b, err := json.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				out.Write(b)
				if d.Err != nil {
					fmt.Fprintf(&out, "%v %+v\n", d.Err, d.Err)
				}
			}
			decisions := s.run(t, p, secretRequest(t, s.method))
			if len(decisions) == 0 || out.Len() == 0 {
				t.Fatal("nothing recorded")
			}
			if !strings.Contains(out.String(), "http://REDACTED@api.test/orders?page=1&token=REDACTED") {
				t.Errorf("the records lack the redacted URL:\n%s", out.String())
			}
			if i := strings.Index(out.String(), "s3cr3t"); i >= 0 {
				t.Errorf("secret in the output at %d:\n%s", i, out.String())
			}
		})
	}
}

// TestRedactErrorFromClient: http.Client wraps the transport's error in a *url.Error that
// embeds the URL; RedactError removes the secrets and keeps errors.Is working.
func TestRedactErrorFromClient(t *testing.T) {
	rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Action: retrytest.Refuse}}})
	c := &http.Client{Transport: &retryhttp.Transport{Base: rt, Policy: &retry.Policy{MaxAttempts: 1}}}
	req := secretRequest(t, "GET")
	_, err := c.Do(req)
	if err == nil || !strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("expected http.Client's error to embed the URL's secrets: %v", err)
	}
	safe := retryhttp.RedactError(err)
	if strings.Contains(safe.Error(), "s3cr3t") || !strings.Contains(safe.Error(), "REDACTED") {
		t.Errorf("RedactError left a secret: %v", safe)
	}
	if !errors.Is(safe, retry.ErrAttemptsExhausted) {
		t.Errorf("RedactError lost the chain: %v", safe)
	}
	if retryhttp.RedactError(nil) != nil {
		t.Error("RedactError(nil) != nil")
	}
}
