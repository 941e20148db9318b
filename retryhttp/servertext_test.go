package retryhttp_test

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// A server's own words in an error text do not make a write look unprocessed or refused
// before sending: net/http quotes a malformed header line in its error, and a server that
// answers a POST with a line such as "stream error; REFUSED_STREAM" or "net/http: invalid
// header field" has read the whole request. The write's outcome is unknown: sent once, not
// again (SPEC R3.4), and not a permanent error that hides that it may have been applied.
func TestServerTextInErrorsDoesNotMakeAWriteUnsent(t *testing.T) {
	for _, line := range []string{
		"HTTP/1.1 200 OK\r\nstream error; REFUSED_STREAM",
		"HTTP/1.1 200 OK\r\nnet/http: invalid header field",
	} {
		t.Run(line, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var requests atomic.Int32
			var wg sync.WaitGroup
			defer wg.Wait()
			defer ln.Close()
			wg.Go(func() {
				for {
					conn, err := ln.Accept()
					if err != nil {
						return
					}
					wg.Go(func() {
						defer conn.Close()
						req, err := http.ReadRequest(bufio.NewReader(conn))
						if err != nil {
							return
						}
						req.Body.Close()
						requests.Add(1)
						conn.Write([]byte(line + "\r\nContent-Length: 0\r\n\r\n"))
					})
				}
			})
			base := &http.Transport{}
			defer base.CloseIdleConnections()
			tr := &retryhttp.Transport{Base: base,
				Policy: &retry.Policy{MaxAttempts: 3, Backoff: retry.DefaultBackoff, MaxWait: time.Millisecond}}
			req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/orders", strings.NewReader("order"))
			resp, err := tr.RoundTrip(req)
			if resp != nil {
				resp.Body.Close()
			}
			var stop *retry.Error
			if !errors.As(err, &stop) || stop.Reason != retry.ReasonUnknownOutcome || stop.Attempts != 1 {
				t.Fatalf("err = %v; want unknown_outcome after 1 attempt", err)
			}
			if errors.Is(err, retryhttp.ErrNotProcessed) {
				t.Errorf("err = %v matches ErrNotProcessed: the server read the request", err)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("the server read %d POSTs, want 1", n)
			}
		})
	}
}
