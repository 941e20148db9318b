package retryhttp

import (
	"net/url"
	"testing"

	"github.com/retrykit/retry/breaker"
	"pgregory.net/rapid"
)

// The cached destination key is breaker.Key's, whatever URLs come in whatever order, hash
// collisions and case included (issue 34: a request to a host seen before builds no key).
func TestDestinationKeyIsBreakerKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		for range rapid.IntRange(1, 200).Draw(t, "requests") {
			u := &url.URL{
				Scheme: rapid.SampledFrom([]string{"http", "https", "HTTPS", "ftp"}).Draw(t, "scheme"),
				Host: rapid.SampledFrom([]string{"a.test", "A.test", "a.test:80", "a.test:443", "b.test:8080", "[::1]:9",
					"[::1]", "c.test:"}).Draw(t, "host") + rapid.StringMatching(`[a-z]{0,2}`).Draw(t, "suffix"),
			}
			if got, want := destinationKey(u), breaker.Key(u); got != want {
				t.Fatalf("destinationKey(%v) = %q, breaker.Key = %q", u, got, want)
			}
		}
	})
}

func TestDestinationKeyAllocatesNothingWhenSeen(t *testing.T) {
	u, _ := url.Parse("https://api.openai.com/v1/chat/completions")
	destinationKey(u)
	if n := testing.AllocsPerRun(100, func() { destinationKey(u) }); n != 0 {
		t.Errorf("%v allocations a lookup of a host seen before, want 0", n)
	}
}
