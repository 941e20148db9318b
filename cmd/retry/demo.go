package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/retrykit/retry/retrytest"
	"github.com/spf13/cobra"
)

func newDemoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Start a flaky server on 127.0.0.1 and show the client at work",
		Long: `demo starts a scripted flaky HTTP server on 127.0.0.1 (package retrytest, which your
own tests can use too) and runs four short scenarios against it with retry http, exactly
as the command lines it prints would. Each decision is printed as it is made, then a
one-line verdict per scenario:

  1. GET: 503 with Retry-After: 1, then a connection reset, then 200: success on
     attempt 3, after waiting the second the server asked for.
  2. GET with a 10 s timeout: 503 with Retry-After: 120: stops at once with
     retry_after_exceeds_deadline; no 120 s sleep, no second attempt (exit 3).
  3. POST without an idempotency key, the connection dropped after the server read it:
     stops with unknown_outcome, the write is not sent again (exit 4).
  4. The same POST with --idempotency-key auto: retried with the same key; the server,
     which deduplicates by key, reports exactly one order created.

It takes about 1.5 s and exits 0 when every scenario behaves as described, 1 otherwise.`,
		Example: `  retry demo
  go run ./cmd/retry demo   # from the repository root, nothing to install`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			failed := 0
			for i, s := range demoScenarios {
				if !s.play(cmd.Context(), cmd.OutOrStdout(), i+1) {
					failed++
				}
			}
			if failed > 0 {
				return exit(exitFailed, fmt.Errorf("%d of %d scenarios did not behave as described", failed, len(demoScenarios)))
			}
			return nil
		},
	}
}

// demoScenario is one scenario of retry demo: a script for the server, the flags of
// retry http, and the verdict on what happened.
type demoScenario struct {
	title  string
	script retrytest.Script
	args   []string // retry http's flags; the path and the server's URL follow
	path   string
	// verdict says whether the run went as described, and how, from retry http's exit
	// status, the server's counts and the elapsed time.
	verdict func(code int, srv *retrytest.Server, elapsed time.Duration) (bool, string)
}

var demoScenarios = []demoScenario{
	{
		title: "GET: 503 with Retry-After: 1, then a connection reset, then 200",
		script: retrytest.Script{Steps: []retrytest.Step{
			// Connection: close makes the reset hit a new connection: on a reused one,
			// net/http would send the GET again by itself within attempt 2 (its record
			// would say transport_resends=1), and the reset would not show as an attempt.
			{Status: 503, Header: http.Header{"Retry-After": {"1"}, "Connection": {"close"}}, Body: "busy\n"},
			{Action: retrytest.Reset},
			{Status: 200, Body: "hello\n"},
		}},
		args: []string{"--attempts", "3", "--timeout", "10s"},
		path: "/hello",
		verdict: func(code int, srv *retrytest.Server, elapsed time.Duration) (bool, string) {
			ok := code == exitOK && srv.Requests() == 3 && elapsed >= time.Second
			return ok, fmt.Sprintf("success on attempt %d after %v, the Retry-After honoured (exit %d)",
				srv.Requests(), elapsed.Round(100*time.Millisecond), code)
		},
	},
	{
		title:  "GET with a 10 s timeout: 503 with Retry-After: 120",
		script: retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: http.Header{"Retry-After": {"120"}}}}},
		args:   []string{"--timeout", "10s"},
		path:   "/slow",
		verdict: func(code int, srv *retrytest.Server, elapsed time.Duration) (bool, string) {
			ok := code == exitPolicyStop && srv.Requests() == 1 && elapsed < time.Second
			return ok, fmt.Sprintf("stopped at once with retry_after_exceeds_deadline: %d request, %v, no 120 s sleep (exit %d)",
				srv.Requests(), elapsed.Round(time.Millisecond), code)
		},
	},
	{
		title:  "POST without an idempotency key, the connection dropped after the server read it",
		script: retrytest.Script{Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201, Body: "created\n"}}},
		args:   []string{"-d", `{"item":"book"}`},
		path:   "/orders",
		verdict: func(code int, srv *retrytest.Server, _ time.Duration) (bool, string) {
			ok := code == exitUnknownOutcome && srv.Requests() == 1 && srv.Orders() == 1
			return ok, fmt.Sprintf("stopped with unknown_outcome, not sent again: the server did create %d order, reconcile before resending (exit %d)",
				srv.Orders(), code)
		},
	},
	{
		title: "The same POST with --idempotency-key auto, against a server that deduplicates by key",
		script: retrytest.Script{Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201, Body: "created\n"}},
			Dedupe: true},
		args: []string{"-d", `{"item":"book"}`, "--idempotency-key", "auto"},
		path: "/orders",
		verdict: func(code int, srv *retrytest.Server, _ time.Duration) (bool, string) {
			received := srv.Received()
			key := func(i int) string { return received[i].Header.Get(retrytest.IdempotencyKeyHeader) }
			sameKey := len(received) == 2 && key(0) != "" && key(0) == key(1)
			ok := code == exitOK && sameKey && srv.Orders() == 1
			return ok, fmt.Sprintf("retried with the same Idempotency-Key (%d requests); the server created exactly %d order (exit %d)",
				srv.Requests(), srv.Orders(), code)
		},
	},
}

// play runs the scenario against a fresh server and writes its title, command line,
// decision records, body and verdict to w. It reports whether the verdict is good.
func (s demoScenario) play(ctx context.Context, w io.Writer, n int) bool {
	fmt.Fprintf(w, "%d. %s\n", n, s.title)
	srv, err := retrytest.NewServer(s.script)
	if err != nil {
		fmt.Fprintf(w, "   ✘ cannot start the server: %v\n\n", err)
		return false
	}
	defer srv.Close()
	args := append(append([]string{"http"}, s.args...), srv.URL+s.path)
	fmt.Fprintf(w, "   $ retry %s\n", shellJoin(args))
	var body bytes.Buffer
	start := time.Now()
	code := execute(ctx, args, strings.NewReader(""), &body, &indented{w: w})
	ok, verdict := s.verdict(code, srv, time.Since(start))
	if body.Len() > 0 {
		fmt.Fprintf(w, "   body: %q\n", body.String())
	}
	mark := "✔"
	if !ok {
		mark = "✘ unexpected:"
	}
	fmt.Fprintf(w, "   %s %s\n\n", mark, verdict)
	return ok
}

// indented writes each line indented by three spaces.
type indented struct{ w io.Writer }

func (i *indented) Write(p []byte) (int, error) {
	lines := strings.SplitAfter(string(p), "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("   " + l)
		}
	}
	if _, err := io.WriteString(i.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// shellJoin quotes args for a POSIX shell where needed.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \"'{}$&|;<>*?`\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
