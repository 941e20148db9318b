//go:build unix

package main

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/spf13/pflag"
)

// TestCurlRetryFlagsMapOntoThePolicy: each curl retry flag sets the policy flag it stands
// for, with curl's units (seconds, decimals allowed) and curl's zeros (--retry-delay 0 keeps
// the backoff, --retry-max-time 0 and -m 0 remove the limit).
func TestCurlRetryFlagsMapOntoThePolicy(t *testing.T) {
	for _, tc := range []struct {
		args                          []string
		attempts                      int
		kind, jitter                  string
		base                          time.Duration
		timeout, attemptTime, maxWait time.Duration
	}{
		{nil, 3, "exponential", "full", defaultBase, 30 * time.Second, 0, 30 * time.Second},
		{[]string{"--retry", "5"}, 6, "exponential", "full", defaultBase, 30 * time.Second, 0, 30 * time.Second},
		{[]string{"--retry", "0"}, 1, "exponential", "full", defaultBase, 30 * time.Second, 0, 30 * time.Second},
		{[]string{"--retry-delay", "2"}, 3, "constant", "none", 2 * time.Second, 30 * time.Second, 0, 30 * time.Second},
		{[]string{"--retry-delay", "0.25"}, 3, "constant", "none", 250 * time.Millisecond, 30 * time.Second, 0, 30 * time.Second},
		{[]string{"--retry-delay", "500ms"}, 3, "constant", "none", 500 * time.Millisecond, 30 * time.Second, 0, 30 * time.Second},
		{[]string{"--retry-delay", "45", "--retry-max-time", "300"}, 3, "constant", "none", 45 * time.Second, 300 * time.Second, 0, 45 * time.Second},
		{[]string{"--retry-delay", "45", "--max-wait", "10s"}, 3, "constant", "none", 45 * time.Second, 30 * time.Second, 0, 10 * time.Second},
		{[]string{"--retry-delay", "0"}, 3, "exponential", "full", defaultBase, 30 * time.Second, 0, 30 * time.Second},
		{[]string{"--retry-max-time", "60"}, 3, "exponential", "full", defaultBase, time.Minute, 0, 30 * time.Second},
		{[]string{"--retry-max-time", "0"}, 3, "exponential", "full", defaultBase, retry.NoLimit, 0, 30 * time.Second},
		{[]string{"-m", "2.5"}, 3, "exponential", "full", defaultBase, 30 * time.Second, 2500 * time.Millisecond, 30 * time.Second},
		{[]string{"-m", "0"}, 3, "exponential", "full", defaultBase, 30 * time.Second, 0, 30 * time.Second},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := pflag.NewFlagSet("http", pflag.ContinueOnError)
			var f policyFlags
			var c curlRetryFlags
			fail := false
			c.register(fs, &f, &fail)
			f.register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := c.apply(); err != nil {
				t.Fatal(err)
			}
			if _, err := f.policy(); err != nil {
				t.Fatal(err)
			}
			if f.attempts != tc.attempts || f.kind != tc.kind || f.jitter != tc.jitter || f.base != tc.base ||
				f.timeout != tc.timeout || f.attemptTimeout != tc.attemptTime || f.maxWait != tc.maxWait {
				t.Errorf("attempts %d, backoff %s, jitter %s, base %v, timeout %v, attempt timeout %v, max wait %v; want %d, %s, %s, %v, %v, %v, %v",
					f.attempts, f.kind, f.jitter, f.base, f.timeout, f.attemptTimeout, f.maxWait,
					tc.attempts, tc.kind, tc.jitter, tc.base, tc.timeout, tc.attemptTime, tc.maxWait)
			}
		})
	}
}

// TestCurlFlagUsageErrors: a curl flag and the policy flag it stands for cannot both be
// given, a bad number of seconds is named, and a curl flag retry http does not take is
// named as curl's (exit 2).
func TestCurlFlagUsageErrors(t *testing.T) {
	const seconds = `want a number of seconds, zero or more, such as 2 or 0.5 (curl's unit), or a Go duration such as 500ms`
	const listed = `; the curl flags it takes are listed under "curl's flags" in retry http --help`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--retry", "2", "--attempts", "3"}, `--retry and --attempts set the same limit: give one (--retry N is --attempts N+1)`},
		{[]string{"--retry-max-time", "5", "--timeout", "10s"}, `--retry-max-time and --timeout set the same limit: give one (--retry-max-time S is --timeout S)`},
		{[]string{"-m", "1", "--attempt-timeout", "2s"}, `--max-time and --attempt-timeout set the same limit: give one (-m S is --attempt-timeout S)`},
		{[]string{"--retry-delay", "1", "--base", "2s"}, `--retry-delay sets a constant wait; it cannot be combined with --base`},
		{[]string{"--retry-delay", "1", "--jitter", "full"}, `--retry-delay sets a constant wait; it cannot be combined with --jitter`},
		{[]string{"--retry", "-1"}, `--retry "-1" is invalid: want a whole number from 0 to 999`},
		{[]string{"--retry", "1000"}, `--retry "1000" is invalid: want a whole number from 0 to 999`},
		{[]string{"--retry-delay", "soon"}, `--retry-delay "soon" is invalid: ` + seconds},
		{[]string{"--retry-max-time", "-2"}, `--retry-max-time "-2" is invalid: ` + seconds},
		{[]string{"--connect-timeout", "NaN"}, `--connect-timeout "NaN" is invalid: ` + seconds},
		{[]string{"-m", "1e300"}, `--max-time "1e300" is invalid: ` + seconds},
		{[]string{"--max-redirs", "-1"}, `--max-redirs "-1" is invalid: want a whole number from 0 to 1000`},
		{[]string{"--compressed"}, `--compressed is a curl flag that retry http does not take` + listed},
		{[]string{"--data-binary", "@f"}, `--data-binary is a curl flag that retry http does not take: -d sends @FILE's bytes unchanged, as --data-binary does` + listed},
		{[]string{"-I"}, `-I (curl's --head) is a curl flag that retry http does not take: use -X HEAD` + listed},
		{[]string{"-sSv"}, `-v (curl's --verbose) is a curl flag that retry http does not take: the decision records on stderr (--log text or json) show each attempt` + listed},
		{[]string{"-w", "%{http_code}"}, `-w (curl's --write-out) is a curl flag that retry http does not take: the decision records (--log json) carry the status and the times` + listed},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(append([]string{"http"}, tc.args...), "http://127.0.0.1:1/")...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != exitUsage || stdout != "" || first != "retry http: "+tc.want {
				t.Errorf("exit %d, stdout %q, stderr's first line\n got %s\nwant retry http: %s", code, stdout, first, tc.want)
			}
		})
	}
}

// TestSilentAndShowError: -s prints neither records nor the error line; -sS prints one line
// saying why the request failed, where the records would have, -fsS too (it said only that
// --fail kept the body back: a new user's finding); a usage error shows whatever -s says.
func TestSilentAndShowError(t *testing.T) {
	srv, _ := scripted(t, respond(503, "busy"))
	r := runBin(t, "", "http", "-s", "--retry", "1", "--retry-delay", "0.01", srv.URL)
	if r.code != 3 || r.stderr != "" || r.stdout != "busy" {
		t.Errorf("-s: exit %d, stdout %q, stderr %q; want 3, the body, nothing", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, "", "http", "-sS", "--retry", "1", "--retry-delay", "0.01", srv.URL)
	if want := "retry http: attempts_exhausted at attempt 2: status 503\n"; r.code != 3 || r.stderr != want {
		t.Errorf("-sS: exit %d, stderr %q; want 3, %q", r.code, r.stderr, want)
	}
	r = runBin(t, "", "http", "-fsS", "--retry", "1", "--retry-delay", "0.01", srv.URL)
	if want := "retry http: attempts_exhausted at attempt 2: status 503; with --fail, its body was not written\n"; r.code != 3 || r.stderr != want || r.stdout != "" {
		t.Errorf("-fsS: exit %d, stdout %q, stderr %q; want 3, nothing, %q", r.code, r.stdout, r.stderr, want)
	}
	r = runBin(t, "", "http", "-s", "--retry", "x", srv.URL)
	if r.code != 2 || !strings.HasPrefix(r.stderr, `retry http: --retry "x" is invalid`) {
		t.Errorf("-s with a usage error: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestUserPasswordNeverShown: -u's password (and the basic credentials it makes) appears in
// no record, text or JSON, and in no error when the request fails; the server gets it.
func TestUserPasswordNeverShown(t *testing.T) {
	const password = "S3CRET-u-pw"
	encoded := base64.StdEncoding.EncodeToString([]byte("alice:" + password))
	for _, log := range []string{"text", "json"} {
		var mu sync.Mutex
		var got []string
		srv, _ := scripted(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.Header.Get("Authorization"))
			mu.Unlock()
			respond(503, "busy")(w, r)
		})
		r := runBin(t, "", "http", "-u", "alice:"+password, "-L", "--log", log, "--retry", "1", "--retry-delay", "0.01", srv.URL+"/?user=alice")
		mu.Lock()
		defer mu.Unlock()
		if r.code != 3 || len(got) != 2 || got[0] != "Basic "+encoded {
			t.Errorf("--log %s: exit %d, the server saw %q", log, r.code, got)
		}
		if strings.Contains(r.stderr, password) || strings.Contains(r.stderr, encoded) {
			t.Errorf("--log %s: the password shows: %s", log, r.stderr)
		}
	}
}

// TestIncludeWithLocation: -i -L writes the status line and headers of every redirect
// followed, then the final response, as curl -i -L does; with -o FILE, a final body that
// breaks and starts over in the temporary file keeps the redirect's headers before it.
func TestIncludeWithLocation(t *testing.T) {
	srv, n := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/final")
		w.WriteHeader(http.StatusMovedPermanently)
	}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		(&cutWriter{ResponseWriter: w, left: 10}).Write([]byte(entity))
	}, respond(200, entity))
	out := filepath.Join(t.TempDir(), "out")
	r := runBin(t, "", "http", "-i", "-L", "--base", "1ms", "-o", out, srv.URL)
	got, _ := os.ReadFile(out)
	heads := strings.Split(string(got), "\r\n\r\n")
	if r.code != 0 || n.Load() != 3 || len(heads) != 3 || !strings.HasPrefix(heads[0], "HTTP/1.1 301 Moved Permanently\r\n") ||
		!strings.Contains(heads[0], "Location: /final") || !strings.HasPrefix(heads[1], "HTTP/1.1 200 OK\r\n") || heads[2] != entity {
		t.Errorf("exit %d, %d requests, file %q; stderr %s", r.code, n.Load(), got, r.stderr)
	}
}

// TestConnectTimeoutBoundsTheDialAndTheHandshake: --connect-timeout S sets the dialer's
// timeout and the TLS handshake's.
func TestConnectTimeoutBoundsTheDialAndTheHandshake(t *testing.T) {
	o := httpOptions{connectTimeout: 1500 * time.Millisecond}
	p := retry.Policy{}
	d := newDownload(&bodyOutput{name: "stdout"}, false, nil)
	client := o.transport(&p, d, nil)
	base := client.Transport.(*retryhttp.Transport).Base.(*download).base.(*http.Transport)
	if base.TLSHandshakeTimeout != 1500*time.Millisecond || base.DialContext == nil {
		t.Errorf("TLS handshake timeout %v; want 1.5s, with a dialer of that timeout", base.TLSHandshakeTimeout)
	}
}
