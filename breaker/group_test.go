package breaker

import (
	"net/url"
	"testing"
	"time"
)

func TestGroupKeepsOneBreakerPerKeyBounded(t *testing.T) {
	type keyed struct {
		key      string
		from, to State
	}
	var seen []keyed
	own := 0
	g, err := NewGroup(GroupConfig{
		Breaker: Config{ConsecutiveFailures: 1, OnStateChange: func(State, State, time.Time) { own++ }},
		MaxKeys: 2,
		OnStateChange: func(key string, from, to State, _ time.Time) {
			seen = append(seen, keyed{key, from, to})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := g.Get("a")
	if g.Get("a") != a || g.Get("b") == a {
		t.Fatal("Get does not keep one breaker per key")
	}
	call(t, a, fail)
	if g.Get("b").State() != StateClosed || len(seen) != 1 || seen[0] != (keyed{"a", StateClosed, StateOpen}) || own != 1 {
		t.Fatalf("changes %v, own hook %d", seen, own)
	}
	g.Get("a") // a is now the most recently used; c evicts b
	g.Get("c")
	if g.Len() != 2 || g.Get("a") != a || g.Get("a").State() != StateOpen {
		t.Fatalf("len %d; a evicted or reset", g.Len())
	}
	g.Get("b") // evicts c (a was used last)
	if g.Len() != 2 || g.Get("a") != a {
		t.Fatal("wrong eviction")
	}
}

func TestKey(t *testing.T) {
	if got := Key(nil); got != "" {
		t.Errorf("Key(nil) = %q", got)
	}
	for in, want := range map[string]string{
		"https://Example.COM/path?q=secret":  "https://example.com:443",
		"http://user:pw@example.com:8080/x":  "http://example.com:8080",
		"HTTP://example.com":                 "http://example.com:80",
		"http://[::1]:9000/":                 "http://[::1]:9000",
		"https://[2001:db8::1]/":             "https://[2001:db8::1]:443",
		"ftp://files.example.com:2121/a.txt": "ftp://files.example.com:2121",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Key(u); got != want {
			t.Errorf("Key(%s) = %q, want %q", in, got, want)
		}
	}
}
