package retryhttp_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// What the raw HTTP/2 server does with a request.
type h2Action int

const (
	h2OK          h2Action = iota // 200 "ok" once the request is whole
	h2Refuse                      // RST_STREAM REFUSED_STREAM at once
	h2GoAway                      // GOAWAY NO_ERROR with last-stream-id 0, then drain (see serve)
	h2GoAwayError                 // GOAWAY INTERNAL_ERROR with last-stream-id 0, then drain
)

// h2Server is a small HTTP/2 server written with x/net/http2's framer, so that a test can
// refuse streams and send GOAWAY frames exactly: the i-th request it receives (over all
// connections) gets actions[min(i, len-1)]. It counts the requests (HEADERS) that arrive.
type h2Server struct {
	actions  []h2Action
	arrivals atomic.Int64
	ln       net.Listener
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

// newH2Server serves HTTP/2 with prior knowledge (h2c) on 127.0.0.1, or over TLS with ALPN
// "h2" when tlsConfig is set.
func newH2Server(t *testing.T, tlsConfig *tls.Config, actions ...h2Action) *h2Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	s := &h2Server{actions: actions, ln: ln}
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
			s.wg.Go(func() { s.serve(conn) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *h2Server) serve(conn net.Conn) {
	defer conn.Close()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(conn, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(conn, conn)
	if fr.WriteSettings() != nil {
		return
	}
	pending := map[uint32]bool{} // streams to answer once their body has arrived
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.HeadersFrame:
			action := s.actions[min(int(s.arrivals.Add(1))-1, len(s.actions)-1)]
			switch action {
			case h2Refuse:
				fr.WriteRSTStream(f.StreamID, http2.ErrCodeRefusedStream)
			case h2GoAway, h2GoAwayError:
				code := http2.ErrCodeNo
				if action == h2GoAwayError {
					code = http2.ErrCodeInternal
				}
				fr.WriteGoAway(0, code, nil)
				// Read and discard what the client still sends until it hangs up, as real
				// servers do (net/http's lingers for goAwayTimeout; RFC 9113 section 6.8
				// lets the sender discard frames above the last stream id). Closing at
				// once would leave the client's frames unread: the kernel answers them
				// with a TCP RST, and a client still writing the request body fails with
				// "broken pipe" before it has read the GOAWAY (golang.org/issue/18701),
				// so the test would race between a GOAWAY and a reset connection.
				io.Copy(io.Discard, conn)
				return
			default:
				if f.StreamEnded() {
					respond(fr, f.StreamID)
				} else {
					pending[f.StreamID] = true
				}
			}
		case *http2.DataFrame:
			if f.StreamEnded() && pending[f.StreamID] {
				delete(pending, f.StreamID)
				respond(fr, f.StreamID)
			}
		}
	}
}

func respond(fr *http2.Framer, stream uint32) {
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	enc.WriteField(hpack.HeaderField{Name: "content-length", Value: "2"})
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: block.Bytes(), EndHeaders: true})
	fr.WriteData(stream, true, []byte("ok"))
}

// h2Base returns an http.Transport that speaks HTTP/2 only, with prior knowledge over
// plain TCP (h2c), or over TLS trusting the test certificate.
func h2Base(t *testing.T, overTLS bool) (*http.Transport, *tls.Config, string) {
	base := &http.Transport{Protocols: new(http.Protocols)}
	t.Cleanup(base.CloseIdleConnections)
	if !overTLS {
		base.Protocols.SetUnencryptedHTTP2(true)
		return base, nil, "http"
	}
	certs := httptest.NewUnstartedServer(nil)
	certs.StartTLS()
	certs.Close()
	base.Protocols.SetHTTP2(true)
	base.TLSClientConfig = &tls.Config{RootCAs: certs.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs,
		ServerName: "example.com"}
	return base, &tls.Config{Certificates: certs.TLS.Certificates, NextProtos: []string{"h2"}}, "https"
}

// A stream the server did not process (REFUSED_STREAM, or above the last-stream-id of a
// GOAWAY) is a request never applied (issue 12 item 3), over h2c and over TLS:
//   - with a body net/http can rewind (retryhttp gives buffered bodies a GetBody), net/http
//     sends it again by itself within the attempt, and the record says transport_resends;
//   - a POST whose body cannot be sent again stops with non_retryable_error and
//     ErrNotProcessed, never unknown_outcome;
//   - a GOAWAY with an error code on a connection's first stream, which net/http does not
//     re-send, is retried by the loop, a POST without a key included.
func TestHTTP2UnprocessedStreams(t *testing.T) {
	for _, overTLS := range []bool{false, true} {
		for _, tc := range []struct {
			name         string
			method       string
			once         bool // the body cannot be sent again: no GetBody, buffering off
			actions      []h2Action
			wantArrivals int64
			wantAttempts int
			wantResends  int
			wantReason   retry.Reason
		}{
			{"GET refused once", "GET", false, []h2Action{h2Refuse, h2OK}, 2, 1, 1, retry.ReasonSuccess},
			{"POST refused once", "POST", false, []h2Action{h2Refuse, h2OK}, 2, 1, 1, retry.ReasonSuccess},
			{"POST after GOAWAY", "POST", false, []h2Action{h2GoAway, h2OK}, 2, 1, 1, retry.ReasonSuccess},
			{"POST after GOAWAY with an error", "POST", false, []h2Action{h2GoAwayError, h2OK}, 2, 2, 0, retry.ReasonSuccess},
			{"streamed POST refused", "POST", true, []h2Action{h2Refuse, h2OK}, 1, 1, 0, retry.ReasonNonRetryableError},
			{"streamed POST after GOAWAY", "POST", true, []h2Action{h2GoAway, h2OK}, 1, 1, 0, retry.ReasonNonRetryableError},
		} {
			name := map[bool]string{false: "h2c/", true: "TLS/"}[overTLS] + tc.name
			t.Run(name, func(t *testing.T) {
				base, serverTLS, scheme := h2Base(t, overTLS)
				srv := newH2Server(t, serverTLS, tc.actions...)
				var records []retry.Decision
				p := fast(t, 3)
				p.OnDecision = func(_ context.Context, d retry.Decision) { records = append(records, d) }
				tr := &retryhttp.Transport{Base: base, Policy: p}
				var body io.Reader
				if tc.method == "POST" {
					body = strings.NewReader("order")
					if tc.once {
						tr.MaxBufferedBody = -1
						body = io.MultiReader(body) // no GetBody
					}
				}
				req, _ := http.NewRequest(tc.method, scheme+"://"+srv.ln.Addr().String()+"/orders", body)
				resp, err := tr.RoundTrip(req)
				resends := 0
				for _, d := range records {
					resends += d.TransportResends
				}
				last := records[len(records)-1]
				if srv.arrivals.Load() != tc.wantArrivals || len(records) != tc.wantAttempts || resends != tc.wantResends ||
					last.Reason != tc.wantReason {
					t.Fatalf("%d arrivals, %d attempts, %d transport re-sends, stop %s (%v); want %d, %d, %d, %s",
						srv.arrivals.Load(), len(records), resends, last.Reason, err,
						tc.wantArrivals, tc.wantAttempts, tc.wantResends, tc.wantReason)
				}
				if tc.wantReason == retry.ReasonSuccess {
					if got := readAll(t, resp); got != "ok" || resp.ProtoMajor != 2 {
						t.Errorf("body %q over %s", got, resp.Proto)
					}
					return
				}
				if !errors.Is(err, retryhttp.ErrNotProcessed) || !errors.Is(err, retryhttp.ErrBodyNotReplayable) ||
					errors.Is(err, retry.ErrUnknownOutcome) {
					t.Errorf("err %v; want ErrNotProcessed and ErrBodyNotReplayable, not an unknown outcome", err)
				}
			})
		}
	}
}
