//go:build unix

package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// seenRequest is a request as the test server saw it.
type seenRequest struct {
	at                   time.Time
	method, path, host   string
	body                 string
	authorization, agent string
	cookie, apiKey       string
}

// curlServer answers request n with steps[min(n, len-1)] and notes every request. other is
// a second server on another port (another origin), for redirects away from the first.
type curlServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

// curlStep answers one request; other is the URL of the other origin's server.
type curlStep func(w http.ResponseWriter, r *http.Request, other string)

func newCurlServer(t *testing.T, other string, steps ...curlStep) *curlServer {
	s := &curlServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.seen)
		s.seen = append(s.seen, seenRequest{at: time.Now(), method: r.Method, path: r.URL.Path, host: r.Host,
			body: string(body), authorization: r.Header.Get("Authorization"), agent: r.Header.Get("User-Agent"),
			cookie: r.Header.Get("Cookie"), apiKey: r.Header.Get("X-Api-Key")})
		s.mu.Unlock()
		if len(steps) == 0 {
			io.WriteString(w, "ok")
			return
		}
		steps[min(n, len(steps)-1)](w, r, other)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *curlServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

func status(code int, header ...string) curlStep {
	return func(w http.ResponseWriter, r *http.Request, _ string) {
		respond(code, http.StatusText(code), header...)(w, r)
	}
}

// redirectTo answers code with a Location of path on this server, or on the other one when
// path starts with "other:".
func redirectTo(code int, path string) curlStep {
	return func(w http.ResponseWriter, r *http.Request, other string) {
		location := path
		if rest, ok := strings.CutPrefix(path, "other:"); ok {
			location = other + rest
		}
		w.Header().Set("Location", location)
		w.WriteHeader(code)
	}
}

// hangFor answers 200 after d, or when the client gives up.
func hangFor(d time.Duration) curlStep {
	return func(w http.ResponseWriter, r *http.Request, _ string) {
		select {
		case <-time.After(d):
			io.WriteString(w, "late")
		case <-r.Context().Done():
		}
	}
}

// closeWithoutAnswer reads the request and closes the connection: curl's "empty reply".
func closeWithoutAnswer(w http.ResponseWriter, r *http.Request, _ string) { drop(w, r) }

// curlCase is a command line given to retry http and to curl alike, with what the server
// saw from each. "{D}" in args is the delay of the case (curlDelay), "{2D}" twice it.
type curlCase struct {
	name     string
	args     []string
	steps    []curlStep
	refused  bool     // the URL's port is closed: no server sees anything
	full     bool     // the URL's listener never accepts, and its queue is full: connecting hangs
	ours     sideWant // retry http
	curl     *sideWant
	minGap   float64                                            // the least gap between two requests, in delays; 0: not checked
	check    func(who string, first, other []seenRequest) error // what the servers saw, for both
	describe string                                             // the server's script, for the table
}

// sideWant is what one side must give: the requests the server sees and the exit status.
// elapsed, in delays, bounds the run's wall time from below (positive) or above (negative).
type sideWant struct {
	requests, exit int
	elapsed        float64
}

// sideGot is what one side gave.
type sideGot struct {
	requests, exit int
	gaps           []time.Duration
	elapsed        time.Duration
	stderr         string
}

// curlDelay returns the delay the table's waits use, as a flag value and a duration: 0.1 s,
// or 1 s when the curl on the machine takes whole seconds only (curl before 8.16 for
// --retry-delay and --retry-max-time).
func curlDelay(curl string) (string, time.Duration) {
	if curl != "" && exec.Command(curl, "--retry-delay", "0.1", "--retry-max-time", "0.2", "--version").Run() != nil {
		return "1", time.Second
	}
	return "0.1", 100 * time.Millisecond
}

// TestCurlFlags is the table of issue 25 item 1: command lines a script gives curl, given
// to retry http unchanged, and what a server on 127.0.0.1 sees (requests, the waits between
// them) and the exit status. Where curl is installed the same command line runs it against
// a server of its own with the same script, and the counts are compared side by side; where
// they differ, the case says so (curl's sideWant). Exit statuses differ by contract: curl's
// are its own (22 for -f, 7 refused, 28 timeout, 47 redirects, 52 empty reply).
func TestCurlFlags(t *testing.T) {
	curl, _ := exec.LookPath("curl")
	if curl == "" && os.Getenv("CI") == "true" {
		t.Fatal("curl is not installed; CI installs it (apt-get install curl)")
	}
	delay, d := curlDelay(curl)
	ok, busy := status(200), status(503)
	for _, tc := range []curlCase{
		{name: "retry until 200", args: []string{"--retry", "2", "--retry-delay", "{D}"}, steps: []curlStep{busy, busy, ok},
			describe: "503, 503, 200", ours: sideWant{3, 0, 2}, curl: &sideWant{3, 0, 2}, minGap: 1},
		{name: "the default waits", args: []string{"--retry", "1"}, steps: []curlStep{busy, ok},
			// retry http waits as its policy says (full jitter under 100 ms), curl 1 s.
			describe: "503, 200", ours: sideWant{2, 0, 0}, curl: &sideWant{2, 0, 1}, check: gapWithin(300*time.Millisecond, time.Second)},
		{name: "--retry 0", args: []string{"--retry", "0"}, steps: []curlStep{busy},
			describe: "503", ours: sideWant{1, 3, -1}, curl: &sideWant{1, 0, -1}},
		{name: "503 throughout", args: []string{"--retry", "2", "--retry-delay", "{D}"}, steps: []curlStep{busy},
			describe: "503 always", ours: sideWant{3, 3, 2}, curl: &sideWant{3, 0, 2}, minGap: 1},
		{name: "-f, 503 throughout", args: []string{"-f", "--retry", "2", "--retry-delay", "{D}"}, steps: []curlStep{busy},
			describe: "503 always", ours: sideWant{3, 3, 2}, curl: &sideWant{3, 22, 2}, minGap: 1},
		{name: "-f, 404 not retried", args: []string{"-fsS", "--retry", "2", "--retry-delay", "{D}"}, steps: []curlStep{status(404)},
			describe: "404", ours: sideWant{1, 1, -1}, curl: &sideWant{1, 22, -1}},
		{name: "-f --retry-all-errors retries a 404", args: []string{"-f", "--retry", "2", "--retry-delay", "{D}", "--retry-all-errors"},
			steps: []curlStep{status(404)}, describe: "404 always", ours: sideWant{3, 3, 2}, curl: &sideWant{3, 22, 2}, minGap: 1},
		{name: "Retry-After outlasts --retry-delay", args: []string{"--retry", "1", "--retry-delay", "{D}"},
			steps: []curlStep{status(429, "Retry-After", "1"), ok}, describe: "429 Retry-After: 1, 200",
			ours: sideWant{2, 0, 0}, curl: &sideWant{2, 0, 0}, minGap: -1},
		{name: "--retry-max-time", args: []string{"-f", "--retry", "5", "--retry-delay", "{D}", "--retry-max-time", "{2D}"},
			steps: []curlStep{busy}, describe: "503 always",
			// retry http starts no wait that would end past the limit; curl sleeps into it
			// and sends one more request.
			ours: sideWant{2, 3, 1}, curl: &sideWant{3, 22, 2}, minGap: 1},
		{name: "-m cuts each attempt", args: []string{"-m", "0.3", "--retry", "1", "--retry-delay", "{D}"},
			steps: []curlStep{hangFor(5 * time.Second)}, describe: "answers after 5 s",
			ours: sideWant{2, 3, 1}, curl: &sideWant{2, 28, 1}},
		{name: "no answer: curl retries only with --retry-all-errors", args: []string{"--retry", "2", "--retry-delay", "{D}"},
			steps: []curlStep{closeWithoutAnswer}, describe: "closes without answering",
			ours: sideWant{3, 3, 2}, curl: &sideWant{1, 52, -1}},
		{name: "no answer, --retry-all-errors", args: []string{"--retry", "2", "--retry-delay", "{D}", "--retry-all-errors"},
			steps: []curlStep{closeWithoutAnswer}, describe: "closes without answering",
			ours: sideWant{3, 3, 2}, curl: &sideWant{3, 52, 2}, minGap: 1},
		{name: "refused: curl retries only with --retry-connrefused", args: []string{"--retry", "2", "--retry-delay", "{D}"},
			refused: true, describe: "port closed", ours: sideWant{0, 3, 2}, curl: &sideWant{0, 7, -1}},
		{name: "refused, --retry-connrefused", args: []string{"--retry", "2", "--retry-delay", "{D}", "--retry-connrefused"},
			refused: true, describe: "port closed", ours: sideWant{0, 3, 2}, curl: &sideWant{0, 7, 2}},
		{name: "--connect-timeout", args: []string{"--connect-timeout", "0.2", "--retry", "1", "--retry-delay", "{D}"},
			full: true, describe: "never accepts", ours: sideWant{0, 3, 1}, curl: &sideWant{0, 28, 1}},
		{name: "POST answered 500: not sent again", args: []string{"-d", "x", "--retry", "2", "--retry-delay", "{D}"},
			steps: []curlStep{status(500), ok}, describe: "500, 200",
			// curl sends the write again; retry http stops: it may have been applied.
			ours: sideWant{1, 4, -1}, curl: &sideWant{2, 0, 1}},
		{name: "POST answered 503: declined, sent again", args: []string{"-d", "x", "--retry", "2", "--retry-delay", "{D}"},
			steps: []curlStep{busy, ok}, describe: "503, 200", ours: sideWant{2, 0, 1}, curl: &sideWant{2, 0, 1}, minGap: 1},
		{name: "-L 302", args: []string{"-L"}, steps: []curlStep{redirectTo(302, "/next"), ok}, describe: "302 to /next, 200",
			ours: sideWant{2, 0, -1}, curl: &sideWant{2, 0, -1}, check: methods("GET /", "GET /next")},
		{name: "-L POST 302: GET without the body", args: []string{"-L", "-d", "x=1"},
			steps: []curlStep{redirectTo(302, "/next"), ok}, describe: "302 to /next, 200",
			ours: sideWant{2, 0, -1}, curl: &sideWant{2, 0, -1}, check: methods("POST / x=1", "GET /next")},
		{name: "-L POST 303: GET", args: []string{"-L", "-d", "x=1"},
			steps: []curlStep{redirectTo(303, "/next"), ok}, describe: "303 to /next, 200",
			ours: sideWant{2, 0, -1}, curl: &sideWant{2, 0, -1}, check: methods("POST / x=1", "GET /next")},
		{name: "-L POST 307: POST with the body", args: []string{"-L", "-d", "x=1"},
			steps: []curlStep{redirectTo(307, "/next"), ok}, describe: "307 to /next, 200",
			ours: sideWant{2, 0, -1}, curl: &sideWant{2, 0, -1}, check: methods("POST / x=1", "POST /next x=1")},
		{name: "-L PUT 308: PUT with the body", args: []string{"-L", "-X", "PUT", "-d", "x=1"},
			steps: []curlStep{redirectTo(308, "/next"), ok}, describe: "308 to /next, 200",
			ours: sideWant{2, 0, -1}, curl: &sideWant{2, 0, -1}, check: methods("PUT / x=1", "PUT /next x=1")},
		{name: "-L same origin keeps -u", args: []string{"-L", "-u", "user:s3cret"},
			steps: []curlStep{redirectTo(302, "/next"), ok}, describe: "302 to /next, 200",
			ours: sideWant{2, 0, -1}, curl: &sideWant{2, 0, -1}, check: credentials(2, 0)},
		{name: "-L cross origin drops -u, Cookie", args: []string{"-L", "-u", "user:s3cret", "-H", "Cookie: session=s3cret"},
			steps: []curlStep{redirectTo(302, "other:/landing")}, describe: "302 to another port",
			ours: sideWant{1, 0, -1}, curl: &sideWant{1, 0, -1}, check: credentials(1, 1)},
		{name: "-L --max-redirs 2 on a loop", args: []string{"-L", "--max-redirs", "2"},
			steps: []curlStep{redirectTo(302, "/again")}, describe: "302 to itself",
			ours: sideWant{3, 1, -1}, curl: &sideWant{3, 47, -1}},
		{name: "-A", args: []string{"-A", "deploy-script/1.0"}, describe: "200",
			ours: sideWant{1, 0, -1}, curl: &sideWant{1, 0, -1}, check: agent("deploy-script/1.0")},
		{name: "-d with --retry-on 400 (retry's own flag)", args: []string{"-d", "x", "--retry-on", "400", "--retry", "2", "--retry-delay", "{D}"},
			steps: []curlStep{status(400), ok}, describe: "400, 200", ours: sideWant{2, 0, 1}, minGap: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.NewReplacer("{D}", delay, "{2D}", twice(delay)).Replace(a)
			}
			var wg sync.WaitGroup
			var ours, theirs sideGot
			var oursSeen, theirsSeen [2][]seenRequest
			wg.Go(func() {
				ours, oursSeen = runCurlCase(t, tc, func(url string) result { return runBin(t, "", append(append([]string{"http"}, args...), url)...) })
			})
			if curl != "" && tc.curl != nil {
				wg.Go(func() {
					theirs, theirsSeen = runCurlCase(t, tc, func(url string) result { return runCurl(t, curl, append(args, url)...) })
				})
			}
			wg.Wait()
			line := fmt.Sprintf("| `%s` | %s | %s |", strings.Join(args, " "), tc.describe, ours)
			tc.verify(t, "retry http", tc.ours, ours, oursSeen, d)
			if curl != "" && tc.curl != nil {
				line += fmt.Sprintf(" %s |", theirs)
				tc.verify(t, "curl", *tc.curl, theirs, theirsSeen, d)
			}
			t.Log(line)
		})
	}
}

// runCurlCase starts the servers of tc, runs run against the first one's URL, and returns
// what came of it and what each server saw.
func runCurlCase(t *testing.T, tc curlCase, run func(url string) result) (sideGot, [2][]seenRequest) {
	other := newCurlServer(t, "")
	srv := newCurlServer(t, other.URL, tc.steps...)
	url := srv.URL + "/"
	switch {
	case tc.refused:
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url = "http://" + l.Addr().String() + "/"
		l.Close()
	case tc.full:
		url = "http://" + fullListener(t) + "/"
	}
	r := run(url)
	seen := srv.requests()
	got := sideGot{requests: len(seen), exit: r.code, elapsed: r.elapsed, stderr: r.stderr}
	for i := 1; i < len(seen); i++ {
		got.gaps = append(got.gaps, seen[i].at.Sub(seen[i-1].at))
	}
	return got, [2][]seenRequest{seen, other.requests()}
}

// fullListener returns the address of a socket that listens with a backlog of 0 and never
// accepts, its one queued connection taken: a connection to it is neither accepted nor
// refused (Linux drops the SYN), as with a host that does not answer.
func fullListener(t *testing.T) string {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	c, err := net.Dial("tcp", addr) // fills the queue
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return addr
}

// gapWithin checks the gap between the first two requests: at most ours for retry http, at
// least theirs for curl.
func gapWithin(ours, theirs time.Duration) func(string, []seenRequest, []seenRequest) error {
	return func(who string, first, _ []seenRequest) error {
		if len(first) < 2 {
			return fmt.Errorf("%d requests", len(first))
		}
		gap := first[1].at.Sub(first[0].at)
		if who == "curl" && gap < theirs-20*time.Millisecond || who != "curl" && gap > ours {
			return fmt.Errorf("the retry came %v after the first request", gap)
		}
		return nil
	}
}

// verify checks what one side gave against want.
func (tc curlCase) verify(t *testing.T, who string, want sideWant, got sideGot, seen [2][]seenRequest, d time.Duration) {
	t.Helper()
	if got.requests != want.requests || got.exit != want.exit {
		t.Errorf("%s: %d requests, exit %d; want %d, exit %d; stderr %s", who, got.requests, got.exit, want.requests, want.exit, got.stderr)
	}
	slack := 20 * time.Millisecond
	if want.elapsed > 0 && got.elapsed < time.Duration(want.elapsed*float64(d))-slack {
		t.Errorf("%s: done in %v; want at least %v", who, got.elapsed, time.Duration(want.elapsed*float64(d)))
	}
	if want.elapsed < 0 && got.elapsed > time.Duration(-want.elapsed*float64(d))+time.Second/2 {
		t.Errorf("%s: done in %v; want at most %v", who, got.elapsed, time.Duration(-want.elapsed*float64(d)))
	}
	least := time.Duration(tc.minGap * float64(d))
	if tc.minGap < 0 {
		least = time.Second // the Retry-After
	}
	for i, g := range got.gaps {
		if g < least-slack {
			t.Errorf("%s: request %d came %v after the one before; want at least %v", who, i+2, g, least)
		}
	}
	if tc.check != nil {
		if err := tc.check(who, seen[0], seen[1]); err != nil {
			t.Errorf("%s: %v", who, err)
		}
	}
}

// methods checks the first server's requests as "METHOD PATH[ BODY]".
func methods(want ...string) func(string, []seenRequest, []seenRequest) error {
	return func(_ string, first, _ []seenRequest) error {
		var got []string
		for _, r := range first {
			got = append(got, strings.TrimSpace(r.method+" "+r.path+" "+r.body))
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("the server saw %q; want %q", got, want)
		}
		return nil
	}
}

// credentials checks that every request to the first server carried -u's Authorization
// (and the Cookie when one was given) and that the other server's requests carried none.
func credentials(first, other int) func(string, []seenRequest, []seenRequest) error {
	return func(_ string, a, b []seenRequest) error {
		if len(a) != first || len(b) != other {
			return fmt.Errorf("%d and %d requests; want %d and %d", len(a), len(b), first, other)
		}
		for _, r := range a {
			if r.authorization == "" {
				return fmt.Errorf("%s %s on the first origin lacks the credentials", r.method, r.path)
			}
		}
		for _, r := range b {
			if r.authorization != "" || r.cookie != "" {
				return fmt.Errorf("%s %s on another origin got Authorization %q, Cookie %q", r.method, r.path, r.authorization, r.cookie)
			}
		}
		return nil
	}
}

func agent(want string) func(string, []seenRequest, []seenRequest) error {
	return func(_ string, a, _ []seenRequest) error {
		if len(a) != 1 || a[0].agent != want {
			return fmt.Errorf("User-Agent %v; want %q", a, want)
		}
		return nil
	}
}

func twice(seconds string) string {
	if seconds == "1" {
		return "2"
	}
	return "0.2"
}

// String gives the table's cell: "3, exit 0, waits 1s 1s, 2.02s".
func (g sideGot) String() string {
	s := fmt.Sprintf("%d, exit %d", g.requests, g.exit)
	if len(g.gaps) > 0 {
		parts := make([]string, len(g.gaps))
		for i, gap := range g.gaps {
			parts[i] = gap.Round(10 * time.Millisecond).String()
		}
		s += ", waits " + strings.Join(parts, " ")
	}
	return s + ", " + g.elapsed.Round(10*time.Millisecond).String()
}

// runCurl runs curl with args, bounded to 20 s, as runBin runs retry.
func runCurl(t *testing.T, curl string, args ...string) result {
	t.Helper()
	c := exec.Command(curl, args...)
	c.Env = append(os.Environ(), "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1")
	return runProcess(t, c, "")
}
