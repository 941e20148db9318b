// Command retry runs HTTP requests and commands with retries, prints the schedule a policy
// gives, and demonstrates the library against a flaky local server. It is built on the
// packages of github.com/retrykit/retry and re-implements none of their rules; its
// contract (subcommands, flags, records, exit codes) is pinned in DESIGN "The command-line
// contract". See README.md beside this file, or run retry --help.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func main() {
	os.Exit(execute(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// execute runs the command line args and returns the exit code.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var exit *exitError
	if !errors.As(err, &exit) {
		// cobra's own errors (unknown flag or subcommand, wrong arguments) and flagError's.
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), err, cmd.CommandPath())
		return exitUsage
	}
	if exit.err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), exit.err)
	}
	return exit.code
}

// newRootCommand returns the retry command with every subcommand of subcommands.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "retry",
		Short: "Retry HTTP requests and commands with backoff, deadlines and reasons",
		Long: `retry decides, runs and explains retries: which failures to retry, how long to wait,
when to stop and why. http, run and plan share the policy flags (--attempts, --backoff,
--base, --multiplier, --max-delay, --jitter, --timeout, --attempt-timeout, --max-wait,
--seed). Every decision of http and run goes to stderr as it is made, with its reason:
--log text (the default) as key=value pairs, --log json as one JSON record a line,
--quiet none. A bad flag value exits with status 2, naming the flag, the value and what
is allowed.`,
		Example: `  retry demo
  retry http --attempts 5 --timeout 10s https://example.com/
  retry run --attempts 4 --base 1s -- curl -fsS https://example.com/
  retry plan --attempts 6 --base 1s --jitter additive`,
		Args:                  cobra.NoArgs,
		DisableFlagsInUseLine: true,
		SilenceErrors:         true,
		SilenceUsage:          true,
		CompletionOptions:     cobra.CompletionOptions{DisableDefaultCmd: true},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if version, _ := cmd.Flags().GetBool("version"); version {
				return printVersion(cmd)
			}
			return errors.New("missing subcommand")
		},
	}
	// --version without cobra's -v shorthand (curl's -v is verbose, not version), handled by
	// RunE rather than by cobra's Version field: that field's output is set only through
	// SetVersionTemplate, whose text/template keeps every exported method of every linked type
	// in the binary (reflect calls methods by name), 13 MB of this one (issue 34).
	root.Flags().Bool("version", false, "print the version of retry and the revision it was built from, as retry version does")
	root.SetFlagErrorFunc(flagError)
	for _, c := range subcommands() {
		c.Flags().SortFlags = false
		root.AddCommand(c)
	}
	return root
}

// flagError rewrites a bad flag value as "--flag "value" is invalid: want ..." (naming the
// flag, the value and what is allowed; the value of a flag marked by hideInvalidValue is not
// shown), a flag of curl's that retry http does not take as such (curlFlagError), and an
// unknown shorthand flag without the rest of its argument (-ZSECRET names only -Z: the rest
// may be a value); execute turns it into exit status 2.
func flagError(cmd *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && cmd.Name() == "http" {
		if curlErr, ok := curlFlagError(unknown.GetSpecifiedName(), unknown.GetSpecifiedShortnames() != ""); ok {
			return curlErr
		}
	}
	if errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() != "" {
		return fmt.Errorf("unknown shorthand flag -%s (the rest of its argument is %s)", unknown.GetSpecifiedName(), notShown)
	}
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return err
	}
	value := strconv.Quote(bad.GetValue())
	if _, secret := bad.GetFlag().Annotations[secretValue]; secret {
		value = notShown
	}
	return fmt.Errorf("--%s %s is invalid: %v", bad.GetFlag().Name, value, errors.Unwrap(err))
}

// secretValue is the annotation of the flags whose values may be secrets.
const secretValue = "retry_secret_value"

// hideInvalidValue makes flagError leave f's value out of its message.
func hideInvalidValue(f *pflag.Flag) {
	f.Annotations = map[string][]string{secretValue: nil}
}
