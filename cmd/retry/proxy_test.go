//go:build unix

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHTTPProxyConnectStatus: through HTTPS_PROXY, a proxy that refuses the CONNECT tunnel
// is classified by its status (issue 12 item 2): 407 and 403 stop after 1 CONNECT with exit
// 1; 503 is retried, 3 CONNECTs, and exits 3 when the attempts run out. The origin's name
// is never resolved: the CONNECT goes to the proxy on 127.0.0.1, which answers it itself.
func TestHTTPProxyConnectStatus(t *testing.T) {
	for _, tc := range []struct {
		status, wantConnects, wantCode int
		wantReasons                    string
	}{
		{407, 1, 1, "stop:non_retryable_error"},
		{403, 1, 1, "stop:non_retryable_error"},
		{503, 3, 3, "retry:retryable_error retry:retryable_error stop:attempts_exhausted"},
	} {
		var connects atomic.Int64
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodConnect {
				connects.Add(1)
			}
			w.WriteHeader(tc.status)
		}))
		t.Setenv("HTTPS_PROXY", proxy.URL)
		t.Setenv("NO_PROXY", "")
		r := runBin(t, "", "http", "--base", "1ms", "--log", "json", "https://origin.test/")
		proxy.Close()
		recs := jsonRecords(t, r)
		if got := reasons(recs); r.code != tc.wantCode || connects.Load() != int64(tc.wantConnects) || got != tc.wantReasons {
			t.Errorf("proxy %d: exit %d, %d CONNECTs, records %s; want %d, %d, %s", tc.status, r.code, connects.Load(), got,
				tc.wantCode, tc.wantConnects, tc.wantReasons)
			continue
		}
		if msg, _ := recs[0]["error"].(string); !strings.Contains(msg, fmt.Sprintf("answered CONNECT with %d %s", tc.status, http.StatusText(tc.status))) ||
			!strings.Contains(msg, proxy.URL) {
			t.Errorf("proxy %d: error %q", tc.status, msg)
		}
	}
}
