package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/retrykit/retry"
	"github.com/spf13/cobra"
)

func newRunCommand() *cobra.Command {
	var flags policyFlags
	var gateFlags gateFlags
	var retryOnExit []int
	stdinMode := stdinFirst
	cmd := &cobra.Command{
		Use:   "run [flags] -- CMD ARG...",
		Short: "Run a command until it succeeds or the policy stops",
		Long: `run runs CMD with its arguments, and again after each failure the policy allows
to retry, waiting as the policy says. A failure is a non-zero exit status (only those of
--retry-on-exit, when given) or an attempt cut short by --attempt-timeout.

Each attempt runs in its own process group with RETRY_ATTEMPT=n (1 for the first) in its
environment. When an attempt outlives --attempt-timeout or the overall --timeout, its
whole process group is killed (SIGKILL). SIGINT, SIGTERM, SIGHUP and SIGQUIT are
forwarded to the running attempt's process group and end the loop: no further attempt
starts, and the attempt's deadline still holds (an attempt that ignores the signal is
killed when --attempt-timeout or --timeout is reached). On Linux an attempt whose retry is
killed outright (SIGKILL) gets SIGKILL too; its own children do not.

Standard input (--stdin): by default (first) the attempts share retry's standard input,
so the first attempt reads it and later attempts see only what is left; when it is a
terminal the command gets none (it runs in a process group of its own). With --stdin
replay every attempt gets all of it: a regular file (< FILE) is read again from where it
began, whatever its size; anything else (a pipe) is read whole before the first attempt,
at most 16 MiB, within --timeout: larger input stops retry run before it runs anything
(exit 2), and so does one that does not end within --timeout (exit 124). With --stdin
none the command gets nothing (/dev/null): a command that reads an open, empty standard
input does not wait on it.

With --breaker, a circuit breaker counts failed attempts and, while OPEN, refuses the next
one (circuit_open); with --budget, a ratio retry budget caps retries (by default the
default budget does: 20 retries, or the retries --attempts allows when more, one back per
success; --budget off for none). With --fleet and
--fleet-key, both are shared through Redis with every process using the same key (see
retry http --help): 500 cron jobs running a command against a dead service stop once the
fleet has learned it, not after each has failed three times.

Exit status: the last attempt's (0 on success; 128+N when signal N ended it), 124 when a
timeout (--timeout, or --attempt-timeout on the last attempt) ended the attempt, as
timeout(1) exits, or --stdin replay's input did not end within --timeout, 127 when CMD
cannot be found, 126 when it cannot be run, 2 on usage errors (and for --stdin replay's
input over 16 MiB), 3 when the circuit breaker refused the first attempt (the command did
not run),
128+N when signal N arrived between attempts, or was forwarded to an attempt that then
exited 0 or was killed at its deadline.`,
		Example: `  # curl until the page loads, at most 5 attempts within 20 s
  retry run --attempts 5 --timeout 20s -- curl -fsS https://example.com/
  # a nightly job on many hosts: once the fleet sees the service down, the others skip it
  retry run --fleet redis://redis.internal:6379/0 --fleet-key billing-export -- ./export.sh
  # retry only on exit status 75 (EX_TEMPFAIL), each attempt bounded to 10 s
  retry run --retry-on-exit 75 --attempt-timeout 10s -- ./sync.sh
  # the attempt number is in the environment
  retry run --attempts 3 --base 0s -- sh -c 'test "$RETRY_ATTEMPT" -ge 2'
  # every attempt gets the whole input
  pg_dump shop | retry run --stdin replay -- psql -h replica shop`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("missing command: give it after --, as in retry run [flags] -- CMD [ARG]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := flags.policy()
			if err != nil {
				return err
			}
			r := &runner{argv: args, retryOn: retryOnExit, stdin: stdinSource{mode: stdinMode, in: cmd.InOrStdin()},
				stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(), timeout: cmd.Flags().Lookup("timeout").Value.String()}
			p.OnDecision = newRecorder(cmd.ErrOrStderr(), &flags).decision
			g, err := gateFlags.setup(cmd.Context(), &p, "", cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer g.close()
			return r.loop(cmd.Context(), p)
		},
	}
	cmd.Flags().SetInterspersed(false) // flags after CMD are CMD's, even without "--"
	flags.register(cmd.Flags())
	flags.registerRecords(cmd.Flags())
	gateFlags.register(cmd.Flags())
	cmd.Flags().Var(codeListValue{codes: &retryOnExit, min: 1, max: 255, what: "exit codes", example: "1,75", word: "any"},
		"retry-on-exit", "exit statuses to retry, or any for every non-zero status (default: any)")
	cmd.Flags().Lookup("retry-on-exit").DefValue = ""
	cmd.Flags().Var(choiceValue{&stdinMode, stdinModes}, "stdin", "what the attempts read on standard input: first (retry's, shared: the\n"+
		"first attempt reads it), replay (all of it, to every attempt; from a pipe at most\n16 MiB), none (nothing)")
	return cmd
}

// commandStdin returns what the attempts read: in, or nothing when in is a terminal, which
// a command outside the terminal's foreground process group must not read.
func commandStdin(in io.Reader) io.Reader {
	if isTerminal(in) {
		return nil
	}
	return in
}

// isTerminal reports whether v is an *os.File open on a character device (a terminal).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// runner runs the attempts of retry run.
type runner struct {
	argv           []string
	retryOn        []int // nil: any non-zero status
	stdin          stdinSource
	stdout, stderr io.Writer
	timeout        string // --timeout as given, for messages

	attempt       int
	lastCode      int  // the last attempt's exit status
	deadlineEnded bool // the overall deadline killed the last attempt

	mu          sync.Mutex
	child       *os.Process    // the running attempt, or nil
	signal      syscall.Signal // the first signal received, or 0
	signalAlone bool           // it arrived when no attempt ran
}

// loop runs the attempts under p and returns the exit status as an *exitError (nil for 0).
func (r *runner) loop(parent context.Context, p retry.Policy) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	if p.Timeout != retry.NoLimit {
		// The overall deadline as a context deadline: the loop stops with deadline_exceeded
		// as before, and an attempt it kills can be told from one its own timeout killed.
		var cancelTimeout context.CancelFunc
		ctx, cancelTimeout = context.WithTimeout(ctx, p.Timeout)
		defer cancelTimeout()
		p.Timeout = retry.NoLimit
	}
	stopSignals := r.forwardSignals(cancel)
	defer stopSignals()
	if err := r.stdin.prepare(ctx, r.timeout); err != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.signal != 0 {
			return exit(128+int(r.signal), nil)
		}
		return err
	}

	code, final, err := retry.Run(ctx, &p, retry.Operation[int]{Attempt: func(actx context.Context) (int, retry.Outcome) {
		code, o := r.run(ctx, actx)
		r.lastCode = code
		return code, o
	}})
	final.End()

	r.mu.Lock()
	defer r.mu.Unlock()
	var stop *retry.Error
	switch {
	case err == nil:
		return nil
	case r.signal != 0 && r.signalAlone:
		return exit(128+int(r.signal), nil)
	case r.deadlineEnded:
		return exit(exitDeadline, nil)
	case errors.As(err, &stop) && (code == exitNotFound || code == exitCannotRun) && stop.Err != nil:
		return exit(code, stop.Err)
	case errors.As(err, &stop) && r.attempt == 0: // the circuit breaker refused the first attempt
		return exit(exitPolicyStop, fmt.Errorf("the command was not run: %s", stop.Reason))
	case errors.As(err, &stop) && stop.Reason == retry.ReasonCircuitOpen:
		// The breaker refused a retry: Run returns no value without an attempt.
		return exit(r.lastCode, nil)
	}
	return exit(code, nil)
}

// Exit statuses of a command that could not start, as shells report them.
const (
	exitCannotRun = 126
	exitNotFound  = 127
)

// run runs one attempt and returns its exit status and outcome. ctx is the loop's context,
// actx the attempt's.
func (r *runner) run(ctx, actx context.Context) (int, retry.Outcome) {
	r.attempt++
	c := exec.Command(r.argv[0], r.argv[1:]...)
	c.Env = append(os.Environ(), "RETRY_ATTEMPT="+strconv.Itoa(r.attempt))
	stdin, err := r.stdin.attempt()
	if err != nil {
		return exitCannotRun, retry.Outcome{Err: retry.Permanent(err)}
	}
	c.Stdin, c.Stdout, c.Stderr = stdin, r.stdout, r.stderr
	startInGroup(c)
	if err := actx.Err(); err != nil {
		return 0, retry.Outcome{Err: err}
	}
	done, err := startAndWait(c)
	if err != nil {
		code := exitCannotRun
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			code = exitNotFound
		}
		return code, retry.Outcome{Err: retry.Permanent(err)}
	}
	r.started(c.Process)
	killed, err := r.wait(ctx, actx, c.Process, done)
	sig := r.ended()
	switch {
	case sig != 0 && killed != "":
		// The command outlived the signal forwarded to it and then its deadline.
		return 128 + int(sig), retry.Outcome{Err: fmt.Errorf("%v forwarded, then the %s reached: process group killed", sig, killed)}
	case killed != "":
		r.deadlineEnded = killed == overallTimeout
		return exitDeadline, retry.Outcome{Err: retry.Retryable(fmt.Errorf("%s reached: process group killed", killed))}
	}
	code := exitStatus(c.ProcessState)
	if err == nil && code == 0 {
		if sig != 0 {
			// The command ignored the signal and succeeded; the loop still ended by the signal.
			return 128 + int(sig), retry.Outcome{Err: fmt.Errorf("%v forwarded, then the command exited 0", sig)}
		}
		return 0, retry.Outcome{}
	}
	err = fmt.Errorf("exit status %d", code)
	if r.retryOn != nil && !containsInt(r.retryOn, code) {
		err = retry.Permanent(err)
	}
	return code, retry.Outcome{Err: err}
}

// What killed an attempt that outlived its deadline (runner.wait).
const (
	attemptTimeout = "attempt timeout"
	overallTimeout = "overall timeout"
)

// startAndWait starts c and returns a channel that gets c.Wait's result. The goroutine that
// starts c keeps its OS thread locked until c has been waited for: on Linux the attempt's
// parent-death signal (startInGroup) fires when the thread that started it ends, not the
// process (go.dev/issue/27505), and a locked thread cannot be ended or reused under it.
// Go ends threads only when a goroutine exits locked to one, which this goroutine never
// does while c runs, so the signal comes only when retry itself dies.
func startAndWait(c *exec.Cmd) (<-chan error, error) {
	started, done := make(chan error, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := c.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- c.Wait()
	}()
	return done, <-started
}

// wait waits for the attempt p to end (done gives its Wait's result) and returns, when it
// killed the attempt's group, what killed it (attemptTimeout or overallTimeout), and that
// result. When the attempt's context actx ends because its deadline has passed,
// the group is killed at once. When it ends because a signal was forwarded, the command may
// end as it chooses, but only until that deadline: then the group is killed.
func (r *runner) wait(ctx, actx context.Context, p *os.Process, done <-chan error) (killed string, err error) {
	select {
	case err = <-done:
		return "", err
	case <-actx.Done():
	}
	deadline, hasDeadline := actx.Deadline()
	if r.interrupted() {
		if !hasDeadline {
			return "", <-done
		}
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		select {
		case err = <-done:
			return "", err
		case <-timer.C:
		}
	}
	signalGroup(p, syscall.SIGKILL)
	err = <-done
	if overall, ok := ctx.Deadline(); ok && !time.Now().Before(overall) {
		return overallTimeout, err
	}
	return attemptTimeout, err
}

// forwardedSignals are the signals that retry run forwards to the running attempt's process
// group, and that end the loop: those a terminal, a shell or a supervisor sends to stop a
// job. Without the forwarding, retry would end (or ignore them) and leave the attempt
// running in its own process group.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// forwardSignals forwards forwardedSignals to the running attempt's process group and ends
// the loop (cancel). The returned function stops forwarding.
func (r *runner) forwardSignals(cancel context.CancelFunc) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, forwardedSignals...)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case s := <-sigs:
				r.forward(s.(syscall.Signal))
				cancel()
			case <-quit:
				return
			}
		}
	})
	return func() {
		signal.Stop(sigs)
		close(quit)
		wg.Wait()
	}
}

func (r *runner) forward(s syscall.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.signal == 0 {
		r.signal, r.signalAlone = s, r.child == nil
	}
	if r.child != nil {
		signalGroup(r.child, s)
	}
}

// started records the running attempt; a signal that came while it started is forwarded.
func (r *runner) started(p *os.Process) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.child = p
	if r.signal != 0 {
		r.signalAlone = false
		signalGroup(p, r.signal)
	}
}

// ended records that the running attempt has ended and returns the signal forwarded to
// it, or 0.
func (r *runner) ended() syscall.Signal {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.child = nil
	if r.signalAlone {
		return 0
	}
	return r.signal
}

func (r *runner) interrupted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.signal != 0
}

func containsInt(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}
