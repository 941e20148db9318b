//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// httpDecision is d as an HTTP loop records it: naming its request's method.
func httpDecision(method string, d retry.Decision) retry.Decision {
	d.AddAttrs(slog.String("method", method))
	return d
}

func TestInUserWordsSaysWhatHappenedAndKeepsTheError(t *testing.T) {
	deadline := fmt.Errorf("Get %q: %w", "http://127.0.0.1:1/x", context.DeadlineExceeded)
	tests := []struct {
		name string
		d    retry.Decision
		want string // the error's message
		is   error  // what errors.Is still finds
	}{
		{"http attempt timeout", httpDecision("GET", retry.Decision{Err: deadline, HasDeadline: true, Remaining: time.Second}),
			"attempt timeout reached before the server answered", context.DeadlineExceeded},
		{"http overall timeout", httpDecision("GET", retry.Decision{Err: deadline, HasDeadline: true, Remaining: 0}),
			"overall timeout reached before the server answered", context.DeadlineExceeded},
		{"http timeout after the status", httpDecision("GET", retry.Decision{Status: 200, Err: deadline, HasDeadline: true, Remaining: time.Second}),
			"attempt timeout reached before the whole response arrived", context.DeadlineExceeded},
		{"run timeout before starting", retry.Decision{Err: context.DeadlineExceeded, HasDeadline: true, Remaining: 0},
			"overall timeout reached", context.DeadlineExceeded},
		{"dropped connection", httpDecision("POST", retry.Decision{Err: fmt.Errorf("Post %q: %w", "http://127.0.0.1:1/x", io.EOF)}),
			"the server closed the connection before answering", io.EOF},
		{"connection dropped in the response", httpDecision("GET", retry.Decision{Status: 200, Err: io.ErrUnexpectedEOF}),
			"the server closed the connection before the whole response arrived", io.ErrUnexpectedEOF},
		{"other errors as they are", httpDecision("GET", retry.Decision{Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}),
			"dial tcp 127.0.0.1:1: connect: connection refused", nil},
		{"EOF outside HTTP as it is", retry.Decision{Err: io.EOF}, "EOF", io.EOF},
	}
	for _, tt := range tests {
		got := inUserWords(tt.d)
		if got.Err.Error() != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got.Err, tt.want)
		}
		if tt.is != nil && !errors.Is(got.Err, tt.is) {
			t.Errorf("%s: errors.Is(%v, %v) = false, want true", tt.name, got.Err, tt.is)
		}
		if !errors.Is(got.Err, tt.d.Err) {
			t.Errorf("%s: the new error does not unwrap to the original", tt.name)
		}
	}
	if d := inUserWords(retry.Decision{Status: 200}); d.Err != nil {
		t.Errorf("no error: got %v", d.Err)
	}
}

// hang answers nothing until the client gives up.
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

func TestHTTPRecordsSayWhatHappened(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		flags   []string
		want    string // the records' error, every attempt
	}{
		{"dropped connection", drop, []string{"--attempts", "2"}, "the server closed the connection before answering"},
		{"attempt timeout", hang, []string{"--attempts", "2", "--attempt-timeout", "50ms"}, "attempt timeout reached before the server answered"},
		{"overall timeout", hang, []string{"--attempts", "1", "--timeout", "50ms"}, "overall timeout reached before the server answered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := scripted(t, tt.handler)
			r := runBin(t, "", append(append([]string{"http", "--base", "0s", "--log", "json"}, tt.flags...), srv.URL+"/x")...)
			recs := jsonRecords(t, r)
			if r.code != exitPolicyStop || len(recs) == 0 {
				t.Fatalf("exit %d, want 3; stderr %s", r.code, r.stderr)
			}
			for _, rec := range recs {
				if rec["error"] != tt.want {
					t.Errorf("record error %q, want %q", rec["error"], tt.want)
				}
			}
		})
	}
}
