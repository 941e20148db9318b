package otelretry

import (
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// FuzzRedactURL: whatever the URL, the redacted form holds no user information, no password
// and no query value, and redacting it again gives the same text (issue 23 item 9: "//@//"
// gave "//", which gave "": testdata/fuzz/FuzzRedactURL keeps it).
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"http://u:p@h/x?token=s&a=1", "https://h:8443/p?q=%zz", "http://h/#frag?x=1", "::", "",
		"//u:p@//x", "///x", "?a=1", "a://@//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := redactURL(raw)
		if got == "" {
			return
		}
		if _, err := url.Parse(raw); err != nil {
			t.Fatalf("redacted %q to %q though it does not parse", raw, got)
		}
		r, err := url.Parse(got)
		if err != nil {
			t.Fatalf("redacted URL %q does not parse: %v", got, err)
		}
		// No user information, so no password: a search for the password's text would find
		// the host's or an escape's too ("//:0000@0000", "//:0000@\x80000" gives "//%80000").
		if r.User != nil {
			t.Errorf("user information %q in %q", r.User, got)
		}
		for k, vs := range r.Query() {
			for _, v := range vs {
				if v != "REDACTED" {
					t.Errorf("query %s=%q kept in %q", k, v, got)
				}
			}
		}
		if again := redactURL(got); again != got {
			t.Errorf("redact twice: %q then %q", got, again)
		}
	})
}

func TestStatusClassAndMethod(t *testing.T) {
	for status, want := range map[int]string{0: "none", 100: "1xx", 204: "2xx", 503: "5xx", 599: "5xx", 600: "other", 42: "other"} {
		if got := statusClass(status).Value.AsString(); got != want {
			t.Errorf("statusClass(%d) = %q, want %q", status, got, want)
		}
	}
	for m, want := range map[string]string{"GET": "GET", "QUERY": "QUERY", "get": "_OTHER", "BREW": "_OTHER"} {
		if got := method(m).Value.AsString(); got != want {
			t.Errorf("method(%q) = %q, want %q", m, got, want)
		}
	}
}

// Every URL in an error's text is redacted, also one inside the error a *url.Error wraps.
func TestRedactErrorText(t *testing.T) {
	err := &url.Error{Op: "Get", URL: "http://u:SEKRET1@h/p?token=SEKRET2",
		Err: errors.New("boom http://v:SEKRET3@h2/?token=SEKRET4 and ftp://h3/x?sig=SEKRET5")}
	got := redactError(err)
	for _, secret := range []string{"SEKRET1", "SEKRET2", "SEKRET3", "SEKRET4", "SEKRET5"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s in %q", secret, got)
		}
	}
	if want := `Get "http://h/p?token=REDACTED": boom http://h2/?token=REDACTED and ftp://h3/x?sig=REDACTED`; got != want {
		t.Errorf("redactError = %q\nwant %q", got, want)
	}
}

// A gRPC call's record (retrygrpc) is written with the RPC conventions, not HTTP's: an
// attempt's, and a stop before any attempt (a breaker's refusal), which has no grpc_code but
// the full method (issue 23 item 5).
func TestDecisionAttributesOfGRPCCall(t *testing.T) {
	l, err := retry.NewLoop(nil, time.Now(), time.Time{}, false, slog.String("method", "/shop.Orders/Get"))
	if err != nil {
		t.Fatal(err)
	}
	l.Next(time.Now())
	attempt := l.Done(time.Now(), retry.Outcome{Err: errors.New("rpc error: code = Unavailable"),
		Attrs: []slog.Attr{slog.String("grpc_code", "UNAVAILABLE"), slog.Bool("inner_retries", true)}}, nil)
	refusal := retry.Decision{Reason: retry.ReasonCircuitOpen, Class: retry.ClassRetryable, NoAttempt: true}
	refusal.AddAttrs(slog.String("method", "/shop.Orders/Get"), slog.String("breaker", "OPEN"))
	odd := retry.Decision{Attempt: 1, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess}
	odd.AddAttrs(slog.String("method", "/Get"), slog.String("grpc_code", "OK"))
	for _, tc := range []struct {
		name string
		d    retry.Decision
		want map[string]string
	}{
		{"attempt", attempt, map[string]string{"rpc.system.name": "grpc", "rpc.method": "shop.Orders/Get",
			"rpc.response.status_code": "UNAVAILABLE", "retry.inner_retries": "true", "retry.reason": "retryable_error"}},
		{"refusal", refusal, map[string]string{"rpc.system.name": "grpc", "rpc.method": "shop.Orders/Get",
			"retry.breaker": "OPEN", "retry.no_attempt": "true", "retry.reason": "circuit_open"}},
		{"not a full method", odd, map[string]string{"rpc.system.name": "grpc", "rpc.method": "_OTHER",
			"rpc.method_original": "/Get", "rpc.response.status_code": "OK"}},
	} {
		got := map[string]string{}
		for _, kv := range DecisionAttributes(tc.d) {
			got[string(kv.Key)] = kv.Value.String()
		}
		for k, want := range tc.want {
			if got[k] != want {
				t.Errorf("%s: %s = %q, want %q", tc.name, k, got[k], want)
			}
		}
		if _, ok := got["http.request.method"]; ok {
			t.Errorf("%s: a gRPC record has http.request.method: %v", tc.name, got)
		}
	}
}
