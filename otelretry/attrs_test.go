package otelretry

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/retrykit/retry"
)

// FuzzRedactURL: whatever the URL, the redacted form holds no password and no query value,
// and redacting twice changes nothing more.
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"http://u:p@h/x?token=s&a=1", "https://h:8443/p?q=%zz", "http://h/#frag?x=1", "::", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := redactURL(raw)
		if got == "" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("redacted %q to %q though it does not parse", raw, got)
		}
		if p, ok := u.User.Password(); ok && len(p) > 3 && strings.Contains(got, p) {
			t.Errorf("password %q in %q", p, got)
		}
		r, err := url.Parse(got)
		if err != nil {
			t.Fatalf("redacted URL %q does not parse: %v", got, err)
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

// A gRPC call's record (retrygrpc) is written with the RPC conventions, not HTTP's.
func TestDecisionAttributesOfGRPCCall(t *testing.T) {
	d := retry.Decide(nil, retry.State{Attempt: 1}, retry.Outcome{Err: errors.New("rpc error: code = Unavailable"),
		Method: "/shop.Orders/Get", GRPCCode: "UNAVAILABLE", InnerRetries: true})
	got := map[string]string{}
	for _, kv := range DecisionAttributes(d) {
		got[string(kv.Key)] = kv.Value.String()
	}
	for k, want := range map[string]string{"rpc.system.name": "grpc", "rpc.method": "shop.Orders/Get",
		"rpc.response.status_code": "UNAVAILABLE", "retry.inner_retries": "true", "retry.reason": "retryable_error"} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if _, ok := got["http.request.method"]; ok {
		t.Errorf("a gRPC record has http.request.method: %v", got)
	}
}
