//go:build unix

package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// entity is the 100-byte body the range server serves; changed is another version of it.
var (
	entity  = strings.Repeat("0123456789", 10)
	changed = strings.Repeat("abcdefghij", 10)
)

// cutWriter is a ResponseWriter that lets 10 bytes of the body through, then breaks the
// connection (http.ErrAbortHandler), as a transfer cut off mid-way.
type cutWriter struct {
	http.ResponseWriter
	left int
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		w.ResponseWriter.Write(p[:w.left])
		http.NewResponseController(w.ResponseWriter).Flush()
		panic(http.ErrAbortHandler)
	}
	w.left -= len(p)
	return w.ResponseWriter.Write(p)
}

// rangeServer serves the entity through http.ServeContent (Range, If-Range, 206), with
// header set by setHeader for request n (0-based); the first cuts responses break after 10
// bytes. It notes each request's Range and If-Range.
type rangeServer struct {
	*httptest.Server
	mu      sync.Mutex
	ranges  []string
	ifRange []string
}

func newRangeServer(t *testing.T, cuts int, serve func(n int, w http.ResponseWriter) (body string, modified time.Time)) *rangeServer {
	s := &rangeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n := len(s.ranges)
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		s.ifRange = append(s.ifRange, r.Header.Get("If-Range"))
		s.mu.Unlock()
		body, modified := serve(n, w)
		if n < cuts {
			w = &cutWriter{ResponseWriter: w, left: 10}
		}
		http.ServeContent(w, r, "", modified, bytes.NewReader([]byte(body)))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *rangeServer) seen() (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.ranges, ","), strings.Join(s.ifRange, ",")
}

// resumedFrom lists the records' resumed_from, "-" for none.
func resumedFrom(recs []map[string]any) string {
	var out []string
	for _, r := range recs {
		if v, ok := r["resumed_from"].(float64); ok {
			out = append(out, strconv.FormatFloat(v, 'f', -1, 64))
		} else {
			out = append(out, "-")
		}
	}
	return strings.Join(out, " ")
}

var lastModified = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestHTTPResumesABrokenBody: a GET whose body breaks resumes with Range: bytes=N- and
// If-Range when the response had Accept-Ranges: bytes and a strong validator, and appends
// the 206 (issue 12 item 1): twice cut after 10 bytes, stdout gets the 100 bytes exactly
// once, and the records say where each attempt resumed.
func TestHTTPResumesABrokenBody(t *testing.T) {
	for _, tc := range []struct {
		name, wantIfRange string
		header            func(w http.ResponseWriter)
		modified          time.Time
	}{
		{"strong ETag", `"v1"`, func(w http.ResponseWriter) { w.Header().Set("ETag", `"v1"`) }, time.Time{}},
		{"Last-Modified", "Fri, 02 Jan 2026 03:04:05 GMT", func(http.ResponseWriter) {}, lastModified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRangeServer(t, 2, func(_ int, w http.ResponseWriter) (string, time.Time) {
				tc.header(w)
				return entity, tc.modified
			})
			r := runBin(t, "", "http", "--base", "1ms", "--log", "json", srv.URL)
			recs := jsonRecords(t, r)
			ranges, ifRange := srv.seen()
			if r.code != 0 || r.stdout != entity || ranges != ",bytes=10-,bytes=20-" ||
				ifRange != ","+tc.wantIfRange+","+tc.wantIfRange || resumedFrom(recs) != "- 10 20" ||
				reasons(recs) != "retry:retryable_error retry:retryable_error stop:success" {
				t.Errorf("exit %d, stdout %q; server saw Range %q, If-Range %q; records %s, resumed_from %s; stderr %s",
					r.code, r.stdout, ranges, ifRange, reasons(recs), resumedFrom(recs), r.stderr)
			}
		})
	}
}

// TestHTTPCannotResume: when a broken body cannot be resumed (a weak ETag only, or the
// entity changed and the server answers the range request with 200), -o FILE starts over
// in its temporary file and gets the whole body once, while stdout, which already holds 10
// bytes, stops with exit 3 and says why (issue 12 item 1).
func TestHTTPCannotResume(t *testing.T) {
	for _, tc := range []struct {
		name       string
		serve      func(n int, w http.ResponseWriter) (string, time.Time)
		wantFile   string
		wantRanges string // with -o
		why        string
	}{
		{"weak ETag", func(_ int, w http.ResponseWriter) (string, time.Time) {
			w.Header().Set("ETag", `W/"v1"`)
			return entity, time.Time{}
		}, entity, ",", "the response had no strong validator (an ETag that is not weak, or a Last-Modified a second before its Date)"},
		{"entity changed", func(n int, w http.ResponseWriter) (string, time.Time) {
			if n == 0 {
				w.Header().Set("ETag", `"v1"`)
				return entity, time.Time{}
			}
			w.Header().Set("ETag", `"v2"`)
			return changed, time.Time{}
		}, changed, ",bytes=10-", "the server answered the range request with 200, the whole body again (it changed, or ranges are ignored)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out")
			srv := newRangeServer(t, 1, tc.serve)
			r := runBin(t, "", "http", "--base", "1ms", "--quiet", "-o", path, srv.URL)
			got, _ := os.ReadFile(path)
			if ranges, _ := srv.seen(); r.code != 0 || string(got) != tc.wantFile || ranges != tc.wantRanges {
				t.Errorf("-o: exit %d, file %q, Range %q; want 0, the whole body once, %q; stderr %s", r.code, got, ranges, tc.wantRanges, r.stderr)
			}

			srv = newRangeServer(t, 1, tc.serve)
			r = runBin(t, "", "http", "--base", "1ms", "--quiet", srv.URL)
			want := "retry http: the response body broke off after 10 bytes, already written to stdout, and cannot be resumed there: " + tc.why + "\n"
			if r.code != 3 || r.stdout != entity[:10] || r.stderr != want {
				t.Errorf("stdout: exit %d, stdout %q, stderr %q; want 3, %q, %q", r.code, r.stdout, r.stderr, entity[:10], want)
			}
		})
	}
}

// TestHTTPBrokenBodyOfAWrite: a POST without a key whose response body breaks is an unknown
// outcome (exit 4), never sent again; with --include, a resumed body follows the headers of
// the response that began it, once.
func TestHTTPBrokenBodyOfAWrite(t *testing.T) {
	srv := newRangeServer(t, 1, func(_ int, w http.ResponseWriter) (string, time.Time) {
		w.Header().Set("ETag", `"v1"`)
		return entity, time.Time{}
	})
	r := runBin(t, "", "http", "--quiet", "-d", "order", srv.URL)
	want := "retry http: the response body broke off after 10 bytes and was not completed (unknown_outcome)\n"
	if ranges, _ := srv.seen(); r.code != 4 || ranges != "" || r.stderr != want {
		t.Errorf("POST: exit %d, Range %q (one request); stderr %s", r.code, ranges, r.stderr)
	}

	srv = newRangeServer(t, 1, func(_ int, w http.ResponseWriter) (string, time.Time) {
		w.Header().Set("ETag", `"v1"`)
		return entity, time.Time{}
	})
	r = runBin(t, "", "http", "--quiet", "--base", "1ms", "-i", srv.URL)
	head, body, _ := strings.Cut(r.stdout, "\r\n\r\n")
	if r.code != 0 || !strings.HasPrefix(head, "HTTP/1.1 200 OK\r\n") || strings.Count(r.stdout, "HTTP/1.1") != 1 || body != entity {
		t.Errorf("-i: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestHTTPResumeAnsweredWithAnotherRange (issue 25 item 3): the server answers the range
// request that resumes a broken body with a 206 whose Content-Range is not the one asked
// for. A range that begins at or before where the body broke off continues it: the bytes
// already written are skipped (If-Range made the entity the same), so the whole range
// (bytes 0-99/100) completes the body on stdout and in -o FILE alike, with exit 0, where it
// stopped with exit 3 saying the bytes were "already written to FILE" that was never
// created. A range that ends early is resumed again; one that begins beyond where the body
// broke off starts over in -o FILE's temporary file, and stops stdout with exit 3. A final
// status (a 404) answering the range request is written to -o FILE as any final status is.
func TestHTTPResumeAnsweredWithAnotherRange(t *testing.T) {
	first := func(w http.ResponseWriter) { // 200, Accept-Ranges and a strong ETag, cut after 10 bytes
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Content-Length", "100")
		(&cutWriter{ResponseWriter: w, left: 10}).Write([]byte(entity))
	}
	part := func(first, last int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Range", "bytes "+strconv.Itoa(first)+"-"+strconv.Itoa(last)+"/100")
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte(entity[first : last+1]))
		}
	}
	for _, tc := range []struct {
		name                string
		then                []http.HandlerFunc
		fileCode, fileReqs  int
		file                string
		stdoutCode, outReqs int
		stdout, stderr      string
	}{
		{"the whole range", []http.HandlerFunc{part(0, 99)}, 0, 2, entity, 0, 2, entity, ""},
		{"from before the break", []http.HandlerFunc{part(5, 99)}, 0, 2, entity, 0, 2, entity, ""},
		{"ending early, then the rest", []http.HandlerFunc{part(10, 49), part(50, 99)}, 0, 3, entity, 0, 3, entity, ""},
		{"beginning beyond the break", []http.HandlerFunc{part(50, 99), respond(200, entity)}, 0, 3, entity, 3, 2, entity[:10],
			`retry http: the response body broke off after 10 bytes, already written to stdout, and cannot be resumed there: the server's Content-Range "bytes 50-99/100" does not continue at byte 10` + "\n"},
		{"a 404", []http.HandlerFunc{respond(404, "gone")}, 1, 2, "gone", 3, 2, entity[:10],
			"retry http: the response body broke off after 10 bytes, already written to stdout, and cannot be resumed there: the server answered the range request with 404 Not Found\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handlers := append([]http.HandlerFunc{func(w http.ResponseWriter, r *http.Request) { first(w) }}, tc.then...)
			srv, n := scripted(t, handlers...)
			path := filepath.Join(t.TempDir(), "out")
			r := runBin(t, "", "http", "--quiet", "--base", "1ms", "-o", path, srv.URL)
			got, _ := os.ReadFile(path)
			if r.code != tc.fileCode || n.Load() != int64(tc.fileReqs) || string(got) != tc.file {
				t.Errorf("-o: exit %d, %d requests, file %q; want %d, %d, %q; stderr %s", r.code, n.Load(), got, tc.fileCode, tc.fileReqs, tc.file, r.stderr)
			}
			srv, n = scripted(t, handlers...)
			r = runBin(t, "", "http", "--quiet", "--base", "1ms", srv.URL)
			if r.code != tc.stdoutCode || n.Load() != int64(tc.outReqs) || r.stdout != tc.stdout || r.stderr != tc.stderr {
				t.Errorf("stdout: exit %d, %d requests, stdout %q, stderr %q; want %d, %d, %q, %q", r.code, n.Load(), r.stdout, r.stderr,
					tc.stdoutCode, tc.outReqs, tc.stdout, tc.stderr)
			}
		})
	}
}
