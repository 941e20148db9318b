package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// One retry http call keeps every retry its flags allow under the default budget (issue 21
// item 1: a single run keeps its attempts): --attempts 25 against a server answering 503
// makes all 25, as does curl's --retry 24, and so does --budget off; attempts_exhausted,
// exit 3.
func TestHTTPDefaultBudgetAndOff(t *testing.T) {
	for _, tc := range []struct {
		flags    []string
		attempts int64
		reason   string
	}{
		{nil, 25, "attempts_exhausted"},
		{[]string{"--budget", "off"}, 25, "attempts_exhausted"},
	} {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		args := append([]string{"http", "--attempts", "25", "--backoff", "constant", "--base", "1ms", "--jitter", "none", "--log", "json"}, tc.flags...)
		r := runBin(t, "", append(args, srv.URL)...)
		srv.Close()
		if r.code != 3 || n.Load() != tc.attempts || !strings.Contains(r.stderr, `"reason":"`+tc.reason+`"`) {
			t.Errorf("retry %s: exit %d after %d attempts; want 3 after %d, %s; stderr %s", strings.Join(args, " "), r.code, n.Load(), tc.attempts, tc.reason, r.stderr)
		}
	}
}
