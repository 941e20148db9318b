package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
	"github.com/spf13/cobra"
)

func newHTTPCommand() *cobra.Command {
	var flags policyFlags
	var gateFlags gateFlags
	var o httpOptions
	cmd := &cobra.Command{
		Use:   "http [flags] URL",
		Short: "Send one HTTP request with retries; the final body to stdout",
		Long: `http sends one HTTP request, retrying it as the policy allows, and writes the final
response's body to stdout (or --output FILE), whatever its status. It follows redirects
with -L only.

What is retried: the statuses of --retry-on (without it, also a 413 that carries
Retry-After, as the library's default list does), after the wait the server asks for (never
earlier, and lengthened at random by up to as much again, so that clients told the same wait
do not all come back at once; a wait that does not fit --timeout or --max-wait stops at
once); and transport errors (connection refused or reset, timeouts). The server's wait is the
longest that its answer asks: Retry-After, retry-after-ms
(OpenAI, Anthropic), x-ms-retry-after-ms (Azure), the t of a RateLimit policy at r=0, the
reset of any quota at 0 (OpenAI's x-ratelimit-reset-requests/-tokens, Anthropic's
anthropic-ratelimit-*-reset, RateLimit-Reset, X-RateLimit-Reset), and a 4xx's JSON body's
google.rpc.RetryInfo (Gemini). A 4xx whose JSON body is a billing or spend-limit error
(insufficient_quota, billing_error, enforced_spend_limit_reached) is not retried.
Records name the header in retry_after_from. A response with x-should-retry: false is not
retried; one with x-should-retry: true is, even a POST's, as a declined request.
GET, HEAD, OPTIONS, TRACE, PUT and DELETE are idempotent and retried on all of these. A
POST or PATCH is retried only when it never reached the server, when the server declined
it (503, 529, a 4xx it is retried on: 408, 429, 413 with Retry-After, any 4xx of
--retry-on, since a 4xx refuses the request, which was not applied; or x-should-retry:
true), or when it carries an idempotency key (--idempotency-key, under the server's
contract): otherwise one whose answer was lost, or that failed with another retryable status
(a 500, say), stops with unknown_outcome (exit 4), because it may have been applied. A write
answered with an event stream (text/event-stream, a streamed generation) that breaks is
never sent again, key or no key, unless --resend-broken-stream: it stops with
unknown_outcome (exit 4), since a resent generation may be billed twice. Request bodies (-d)
are sent byte for byte on every attempt.

curl's flags: a script that calls curl can call retry http with the same flags. -f is
--fail; -s prints no records and no error line, -sS one error line; -A sets User-Agent;
-u USER:PASSWORD is never shown; --connect-timeout and -m (--max-time) take seconds, -m
for each attempt (--attempt-timeout). -L follows redirects, up to --max-redirs (50): after
a 301 or 302 a POST becomes a GET without its body, after a 303 every method but HEAD does,
otherwise the method and body are sent again (RFC 9110 section 15.4); the credentials (-u,
the URL's, Authorization, Cookie and X-Api-Key) go to the first URL's origin only; each
request is retried on its own within the one --timeout. --retry N is --attempts N+1,
--retry-delay S a constant wait of S seconds (a Retry-After may ask for longer, never
less), --retry-max-time S the overall deadline (--timeout; curl lets an attempt begun
finish past it, retry http ends it); --retry-all-errors with -f retries every status of 400
or more; --retry-connrefused is accepted. Where retry http differs from curl: it retries
refused connections, resets and cut bodies without --retry-all-errors (curl: timeouts and
DNS failures only), waits as its policy says (100 ms doubling, full jitter; curl: 1 s
doubling), stops at --timeout 30s unless told otherwise, never sends again a write whose
outcome is unknown (exit 4), and exits with its own statuses (below). A curl flag it does
not take is refused by name (exit 2).

Neither records nor error messages show header values, bodies, the URL's user info or the
secrets of its query. With --output FILE, FILE is replaced only by a whole response: the
body goes to a temporary file beside it, renamed over FILE once complete. No response, or
a body cut off (by the deadline, a signal, a broken connection), leaves FILE as it was,
or not created. A FILE that is not a regular file (a pipe, a device) is written in place,
and so is one of retry's open descriptors (/dev/stdout, /dev/fd/N), whatever it is open on.
On stdout, a cut-off body stays as far as it came.

The final response's body is written whatever its status, as curl does: after a stop on
503 (exit 3), FILE holds the 503's body. With --fail, a final status of 400 or more writes
no body: stdout gets nothing, FILE is left as it was (for a cron job that must keep the
last good copy), and a line on stderr says so; the exit status is the same.

A response body that breaks off (a closed connection, a reset, --attempt-timeout) is a
failed attempt, retried like any failure after sending (a write's event stream aside, as
above). The retry resumes it, as wget does, when the response allows it: a GET answered
with Accept-Ranges: bytes and a strong ETag or Last-Modified is asked for the rest (Range,
If-Range), and the 206 is appended; a 200 starts over. No byte is written twice: --output
FILE starts over in its temporary file, while bytes already on stdout stay, so when they
cannot be resumed retry http stops with exit 3 and says why. Records show where an attempt resumed (resumed_from).
Attempts reuse the kept-alive connection; a request that net/http sent again by itself
on a new connection shows in its attempt's record as transport_resends.

With --breaker, a circuit breaker guards the destination: while it is OPEN the request
is refused before it is sent (circuit_open, exit 3). With --budget, a retry budget caps
retries to a share of requests (retry_budget_exhausted, exit 3); without it, the default
budget does (20 retries per host, or the retries --attempts allows when more, one back per
success: a single request keeps every retry), and --budget off turns budgets off. With --fleet
redis://HOST:PORT/DB (or rediss://) and --fleet-key NAME, both are shared with every
process using the same NAME, one breaker per destination: a process reads the fleet's view
once before its first attempt (for at most 100 ms, and 200 ms more from the file below
while Redis is out of reach) and sends its counts at exit, so once
the fleet's failure rate has opened the breaker, new processes send nothing until a single
trial request, made by one process per open timeout, finds the service back. A Redis that
cannot be used is not an error, and is said once on stderr with the reason: while it is
out of reach (down, restarting, slow), the processes of this machine share through a file
in the user's cache directory ($XDG_CACHE_HOME/retry/fleet/); when it refuses the exchange
(a wrong password, say), or the file cannot be used, the process decides alone.
Records carry fleet_age_ms (the age of the view, Redis's or the file's) or fleet_stale. The URL's
password is never shown. The fleet shares the destination's rate limit too, as the
server publishes it in every answer's headers (x-ratelimit-*, anthropic-ratelimit-*,
RateLimit): a process starts from what the fleet has read of it (what is left before the
reset), sends only its part of what is left, and waits for the reset when its part is
spent, and a 429 that any process got holds them all until the reset, so that a script's
parallel processes (xargs -P) keep to the API's pace together rather than each on its own.

With --hedge, a request that has had no answer for the delay (1s, or delay=DURATION) gets
a hedge: a copy sent on a connection of its own, the first answer used and the other
canceled (Dean and Barroso, "The Tail at Scale"). Only a request that may be sent twice is
hedged: GET and the other idempotent methods, or one with --idempotency-key (the same key
and body on both); a POST or PATCH without a key never is. A hedge counts against --budget
as a retry, and none is sent while --breaker is OPEN, after the server asked for a wait
(Retry-After), or when --timeout leaves less than the delay. Records say which attempt was
a hedge (hedge=true) and whether its answer was used (winner=true or false; the record of
an answer not used has no decision), or why a hedge was refused (hedge_refused).

While it waits between attempts, and stderr is a terminal, a live line shows the attempt
to come, the time left to wait and why (not with --log json or --quiet).

Exit status: 0 success (final status below 400); 1 a status or error that is not retried
(its body still goes to stdout or FILE, unless --fail), or a redirect -L does not follow
(past --max-redirs, or not to an http or https URL); 2 usage or configuration error; 3
stopped by policy before success (attempts exhausted, deadline, Retry-After too long: the
last response's body, if any, still goes to stdout or FILE, unless --fail or a body began
there already; a body cut off by the deadline leaves FILE as it was; a body partly on
stdout that cannot be resumed); 4 unknown outcome: a write may have been applied,
reconcile before sending it again; 128+N when signal N ended it (130 for SIGINT, 143 for
SIGTERM).`,
		Example: `  # GET with up to 5 attempts within 10 s, headers included in the output
  retry http --attempts 5 --timeout 10s -i https://example.com/
  # POST a file with a fresh idempotency key, so that a lost answer can be retried safely
  retry http -X POST -H 'Content-Type: application/json' -d @order.json \
    --idempotency-key auto https://api.example.com/orders
  # many cron jobs calling one service: once it is down for the fleet, they stop at once
  retry http --fleet redis://127.0.0.1:6379/0 --fleet-key billing --breaker on \
    --budget ratio=0.2 https://billing.internal/export
  # retry 429 and 503 only, records as JSON lines on stderr, body to a file
  retry http --retry-on 429,503 --log json -o page.html https://example.com/
  # a chat completion: 429, 500, 503 and 529 retried after the wait the API asks
  # (retry-after-ms, quota resets), within 60 s; a 500 is retried only with a key
  retry http -X POST -H "Authorization: Bearer $OPENAI_API_KEY" \
    -H 'Content-Type: application/json' -d @chat.json --timeout 60s \
    https://api.openai.com/v1/chat/completions
  # a second copy of the GET if the first has no answer within 200 ms
  retry http --hedge delay=200ms https://example.com/search?q=tail`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("want exactly one URL, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.curl.apply(); err != nil {
				return err
			}
			p, err := flags.policy()
			if err != nil {
				return err
			}
			p.Classifier = o.curl.classifier()
			flags.quiet = flags.quiet || o.silent
			ctx, stop := notifySignals(cmd.Context())
			defer stop()
			o.dataSet = cmd.Flags().Changed("data")
			o.userSet, o.userAgentSet = cmd.Flags().Changed("user"), cmd.Flags().Changed("user-agent")
			req, body, err := o.request(ctx, args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("retry-on") {
				p.RetryableStatuses = o.retryOn
			} // else the library's default list, and its rule for 413 with Retry-After
			if cmd.Flags().Changed("hedge") && o.hedge == "" {
				return fmt.Errorf("--hedge is empty: want on, or KEY=VALUE,... (leave the flag out for none)")
			}
			if p.Hedge, err = parseHedge(o.hedge); err != nil {
				return err
			}
			g, err := gateFlags.setup(ctx, &p, breaker.Key(req.URL), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer g.close()
			rec := newRecorder(cmd.ErrOrStderr(), &flags)
			live := newLiveLine(cmd.ErrOrStderr(), !flags.quiet && !rec.json, p.MaxAttempts)
			defer live.stop()
			out := &bodyOutput{Writer: cmd.OutOrStdout(), name: "stdout"}
			if o.output != "" {
				if out, err = openOutput(o.output, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
					return exit(exitUsage, fmt.Errorf("--output: %w", err))
				}
			}
			out.fail = o.fail
			d := newDownload(out, o.include, o.retryOn)
			var last retry.Decision
			p.OnDecision = func(ctx context.Context, dec retry.Decision) {
				d.record(&dec)
				last = dec
				live.stop()
				rec.decision(ctx, dec)
				live.start(dec)
			}
			resp, err := o.follow(o.transport(&p, d, g.rateGates), req, body, d, &p)
			code, err := finish(ctx, resp, err, d)
			if out.skipped != 0 && err == nil {
				err = fmt.Errorf("the final status is %d: with --fail, its body was not written", out.skipped)
				if o.silent && last.Reason != "" {
					// -fsS: the records are not shown, so the line says why the loop stopped
					err = fmt.Errorf("%w; with --fail, its body was not written", failureLine(last))
				}
			}
			var cut bodyCutOff
			if (errors.As(err, &cut) || out.skipped != 0) && out.target != "" {
				err = fmt.Errorf("%w; --output %s was left as it was", err, o.output)
			}
			if cerr := out.close(); cerr != nil && err == nil {
				code, err = max(code, exitFailed), fmt.Errorf("--output: %w", cerr)
			}
			switch {
			case o.silent && !o.showError:
				err = nil // curl's -s: no error message
			case o.silent && err == nil && code != exitOK && last.Reason != "":
				err = failureLine(last) // -sS: the records are not shown, so say why in one line
			}
			return exit(code, err)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.method, "request", "X", "", "request `METHOD` (default GET, or POST with --data)")
	fs.StringArrayVarP(&o.headers, "header", "H", nil, "request header `'Name: value'` (repeatable)")
	fs.StringVarP(&o.data, "data", "d", "", "request body `DATA`, even empty (POST unless -X says otherwise);\n@FILE sends the file's bytes unchanged, @- standard input")
	fs.StringVarP(&o.output, "output", "o", "", "write the body to `FILE` instead of stdout")
	fs.BoolVarP(&o.include, "include", "i", false, "write the final status line and headers before the body")
	fs.BoolVarP(&o.fail, "fail", "f", false, "write nothing when the final status is 400 or more: FILE of --output\nis left as it was (the exit status is the same)")
	fs.BoolVarP(&o.location, "location", "L", false, "follow redirects (300, 301, 302, 303, 307, 308 with a Location)")
	o.maxRedirs = defaultMaxRedirs
	fs.Var(intValue[int]{&o.maxRedirs, 0, maxRedirs}, "max-redirs", "with -L, the most redirects followed, 0 to 1000 (default 50, as curl's)")
	fs.Lookup("max-redirs").DefValue = ""
	fs.StringVarP(&o.user, "user", "u", "", "basic authentication as `USER:PASSWORD`, never shown, sent to the first\nURL's origin only")
	hideInvalidValue(fs.Lookup("user"))
	fs.StringVarP(&o.userAgent, "user-agent", "A", "", "the User-Agent header; \"\" sends none (default Go-http-client/1.1)")
	fs.Var(secondsValue{&o.connectTimeout}, "connect-timeout", "the longest opening a connection may take, in SECONDS, and again\nits TLS handshake; 0: net/http's own (30 s, then 10 s for TLS)")
	fs.Lookup("connect-timeout").DefValue = ""
	fs.BoolVarP(&o.silent, "silent", "s", false, "print no decision records and no error line (usage errors still show)")
	fs.BoolVarP(&o.showError, "show-error", "S", false, "with -s, print one error line on failure")
	registerRetryOn(fs, &o.retryOn, "statuses to retry, or none")
	fs.Var(idempotencyKeyValue{&o.idempotencyKey}, "idempotency-key", "send this Idempotency-Key, or auto for a fresh one per request\nthat needs it (POST, PATCH): lets a write whose answer was lost be retried,\nunder a server's key contract (OpenAI and Anthropic document none for\ngeneration: a resent generation may be billed twice)")
	hideInvalidValue(fs.Lookup("idempotency-key"))
	fs.StringVar(&o.hedge, "hedge", "", hedgeUsage)
	o.curl.register(fs, &flags, &o.fail)
	fs.BoolVar(&o.resendStream, "resend-broken-stream", false, "send a write again when its event stream (text/event-stream) breaks,\nunder the usual rules (with a key only); a resent generation may be billed twice")
	flags.register(fs)
	flags.registerRecords(fs)
	gateFlags.rate = true
	gateFlags.register(fs)
	return cmd
}

// httpOptions are retry http's request flags.
type httpOptions struct {
	method, data, output, idempotencyKey string
	hedge                                string // --hedge's settings
	headers                              []string
	include                              bool
	fail                                 bool // --fail: no body for a final status of 400 or more
	dataSet                              bool // --data was given, even empty
	resendStream                         bool // --resend-broken-stream
	retryOn                              []int
	location                             bool // -L: follow redirects
	maxRedirs                            int
	user, userAgent                      string
	userSet, userAgentSet                bool
	connectTimeout                       time.Duration
	silent, showError                    bool
	curl                                 curlRetryFlags
}

// Bounds of --max-redirs: curl's default, and the most accepted (curl's -1, no limit, is
// not: the chain is bounded, as every loop is).
const (
	defaultMaxRedirs = 50
	maxRedirs        = 1000
)

// request builds the request the flags describe and returns it with its body (nil for
// none), or returns a usage error naming the bad flag or argument.
func (o *httpOptions) request(ctx context.Context, rawURL string, stdin io.Reader) (*http.Request, []byte, error) {
	u, err := parseTarget(rawURL)
	if err != nil {
		return nil, nil, err
	}
	body, err := o.body(stdin)
	if err != nil {
		return nil, nil, err
	}
	method := o.method
	if method == "" {
		method = http.MethodGet
		if body != nil {
			method = http.MethodPost
		}
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body) // NewRequest gives it a GetBody: every attempt resends it
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), reader)
	if err != nil {
		return nil, nil, fmt.Errorf("--request %q is invalid: want an HTTP method such as GET, POST or PUT", method)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded") // as curl -d does
	}
	if o.userSet {
		name, password, ok := strings.Cut(o.user, ":")
		if !ok {
			return nil, nil, fmt.Errorf("--user %s is invalid: want USER:PASSWORD (retry http does not prompt for a password, as curl does)", notShown)
		}
		req.SetBasicAuth(name, password)
	}
	if o.userAgentSet {
		req.Header.Set("User-Agent", o.userAgent) // net/http sends none when it is ""
	}
	// As curl does: a header given replaces the one retry would send (Content-Type), and a
	// name given twice is sent twice.
	given := http.Header{}
	for i, h := range o.headers {
		name, value, err := parseHeader(h, i+1)
		if err != nil {
			return nil, nil, err
		}
		if strings.EqualFold(name, "Host") {
			req.Host = value
		} else {
			given.Add(name, value)
		}
	}
	maps.Copy(req.Header, given)
	if o.idempotencyKey != "" && o.idempotencyKey != "auto" {
		req.Header.Set(retryhttp.DefaultIdempotencyKeyHeader, o.idempotencyKey)
	}
	return req, body, nil
}

// body returns the bytes of --data: the text itself (even empty), a file's bytes for
// @FILE, standard input for @-; nil without --data.
func (o *httpOptions) body(stdin io.Reader) ([]byte, error) {
	name, isFile := strings.CutPrefix(o.data, "@")
	switch {
	case !o.dataSet:
		return nil, nil
	case !isFile:
		return append([]byte{}, o.data...), nil // not nil, even for -d ''
	case name == "-":
		return io.ReadAll(stdin)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("--data %q: %w", o.data, err)
	}
	return b, nil
}

// finish takes the result of the request (follow's), whose download d wrote a kept response to
// its output within the attempts, and writes any other final response (status line and
// headers with --include, then the body) to the output, unless d's output began: bytes
// written are never followed by another response's. It returns the exit status of the
// contract and, for a failure that no decision record explains, an error.
func finish(ctx context.Context, resp *http.Response, err error, d *download) (int, error) {
	var respErr *retryhttp.ResponseError
	if errors.As(err, &respErr) {
		resp = respErr.Response
	}
	var werr error
	if resp != nil {
		defer resp.Body.Close()
		switch {
		case d.began: // a kept response began the output: nothing else may follow it
		case d.out.fail && resp.StatusCode >= 400:
			d.out.skipped = resp.StatusCode
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // drained, so its connection is reused
		default:
			werr = writeResponse(d.out, resp, d.include)
		}
	}
	if code, ok := signalStatus(ctx); ok && (err != nil || werr != nil) {
		return code, nil
	}
	var (
		cut      bodyCutOff
		noResume *cannotResume
		output   *outputError
		stop     *retry.Error
	)
	switch {
	case errors.As(werr, &cut) && err == nil:
		return exitPolicyStop, werr
	case werr != nil && err == nil:
		return exitFailed, werr
	case errors.As(err, &noResume):
		return exitPolicyStop, noResume
	case errors.As(err, &output):
		return exitFailed, output
	case d.incomplete() && errors.As(err, &stop) && stop.Reason == retry.ReasonUnknownOutcome:
		return exitUnknownOutcome, bodyCutOff{n: d.written, reason: stop.Reason}
	case d.incomplete() && errors.As(err, &stop) && stop.Reason.IsPolicyStop():
		return exitPolicyStop, bodyCutOff{n: d.written, reason: stop.Reason}
	}
	return httpExitStatus(resp, err)
}

// failureLine is the error line of -sS, as curl -sS prints its error: the last decision's
// reason and what its attempt met, without the records -s leaves out.
func failureLine(d retry.Decision) error {
	d = inUserWords(d)
	var what string
	switch {
	case d.Err != nil:
		what = d.Err.Error()
	case d.Status != 0:
		what = fmt.Sprintf("status %d", d.Status)
	default:
		return fmt.Errorf("%s after %d attempts", d.Reason, d.Attempt)
	}
	return fmt.Errorf("%s at attempt %d: %s", d.Reason, d.Attempt, what)
}

// httpExitStatus maps the result of a request to the exit status of the contract.
func httpExitStatus(resp *http.Response, err error) (int, error) {
	var stop *retry.Error
	switch {
	case err == nil && resp.StatusCode < 400:
		return exitOK, nil
	case err == nil:
		return exitFailed, nil // a status not retried; its decision record says so
	case !errors.As(err, &stop):
		return exitFailed, retryhttp.RedactError(err)
	case stop.Reason == retry.ReasonUnknownOutcome:
		return exitUnknownOutcome, nil
	case stop.Reason.IsPolicyStop():
		return exitPolicyStop, nil
	}
	return exitFailed, nil
}

// writeResponse writes resp to out: with include, its status line and headers first, as
// curl -i does. An error says whether reading the body or writing out failed.
func writeResponse(out *bodyOutput, resp *http.Response, include bool) error {
	if include {
		if err := writeHeader(out, resp); err != nil {
			return err
		}
	}
	n, err := io.Copy(out, bodyReader{resp.Body})
	var rerr readError
	switch {
	case errors.As(err, &rerr) && errors.Is(rerr.err, context.DeadlineExceeded):
		return bodyCutOff{n: n, reason: retry.ReasonDeadlineExceeded}
	case errors.As(err, &rerr):
		return fmt.Errorf("reading the response body: %w", rerr.err)
	case err != nil:
		return fmt.Errorf("writing the response: %w", err)
	}
	out.done()
	return nil
}

// writeHeader writes resp's status line and headers, as curl -i does.
func writeHeader(out io.Writer, resp *http.Response) error {
	fmt.Fprintf(out, "%s %s\r\n", resp.Proto, resp.Status)
	if err := resp.Header.Write(out); err != nil {
		return fmt.Errorf("writing the response: %w", err)
	}
	io.WriteString(out, "\r\n")
	return nil
}

// bodyCutOff is the error of a response body begun on the output and not completed, after
// n bytes, because the loop stopped by policy (exit 3): the deadline (--timeout,
// --attempt-timeout) or another policy stop such as the attempts running out; or because
// the request was a write whose outcome is unknown (exit 4).
type bodyCutOff struct {
	n      int64
	reason retry.Reason
}

func (e bodyCutOff) Error() string {
	if e.reason == retry.ReasonDeadlineExceeded {
		return fmt.Sprintf("the response body was cut off by the deadline (--timeout or --attempt-timeout) after %d bytes", e.n)
	}
	return fmt.Sprintf("the response body broke off after %d bytes and was not completed (%s)", e.n, e.reason)
}

// bodyReader marks the errors of reading a response body, to tell them from those of
// writing it out.
type bodyReader struct{ r io.Reader }

type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

func (b bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = readError{err}
	}
	return n, err
}

// idempotencyKeyValue is --idempotency-key: "auto" or a key of 1 to 255 visible ASCII
// characters.
type idempotencyKeyValue struct{ s *string }

func (v idempotencyKeyValue) Set(s string) error {
	if s == "" || len(s) > 255 {
		return errors.New(`want "auto" or a key of 1 to 255 visible ASCII characters`)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return errors.New(`want "auto" or a key of 1 to 255 visible ASCII characters`)
		}
	}
	*v.s = s
	return nil
}

func (v idempotencyKeyValue) String() string { return *v.s }
func (v idempotencyKeyValue) Type() string   { return "KEY" }
