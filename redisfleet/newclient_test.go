package redisfleet

import (
	"strings"
	"testing"
)

// NewClient's error for a URL go-redis refuses says why (it used to say only "not a redis://
// URL", even of a redis:// URL with a query option go-redis does not know), and never repeats
// the password.
func TestNewClientSaysWhyWithoutThePassword(t *testing.T) {
	const want = "; want redis://[user:password@]HOST:PORT/DB[?go-redis options], or rediss://"
	for _, tc := range []struct{ url, why string }{
		{"redis://:sekret@127.0.0.1:6379/0?password=sekret", "unexpected option: password"},
		{"redis://:sekret@127.0.0.1:6379/0?dial_timeout=soon", `invalid dial_timeout duration: time: invalid duration "soon"`},
		{"http://:sekret@127.0.0.1:6379/0", "invalid URL scheme: http"},
		{"redis://:sekret@127.0.0.1:6379/a/b", "invalid URL path: /a/b"},
		{"redis://u:p@127.0.0.1:6379/0?password=x", "unexpected option: password"}, // a password that is a letter of the reason
		{"redis://:sekret@127.0.0.1:bad/0", "it does not parse (not shown: it may hold a password)"},
	} {
		_, err := NewClient(tc.url)
		if got := "redisfleet: the URL is invalid: " + tc.why + want; err == nil || err.Error() != got {
			t.Errorf("NewClient(%q) = %v, want %q", tc.url, err, got)
		}
		if err != nil && strings.Contains(err.Error(), "sekret") {
			t.Errorf("NewClient(%q): %q shows the password", tc.url, err)
		}
	}
	c, err := NewClient("redis://:sekret@127.0.0.1:6379/0?dial_timeout=2s")
	if err != nil || c.Options().DialTimeout.String() != "2s" {
		t.Errorf("NewClient with dial_timeout=2s: %v, %v; want a client with DialTimeout 2s", c, err)
	}
	if c != nil {
		c.Close()
	}
}
