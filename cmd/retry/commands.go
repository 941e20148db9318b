package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// subcommands returns every subcommand of retry, in the order --help lists them. This is
// the one place where a subcommand is registered: add new ones here.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		newHTTPCommand(),
		newRunCommand(),
		newPlanCommand(),
		newDemoCommand(),
		newSimulateCommand(),
		newVersionCommand(),
	}
}

// noArgs is the Args of a subcommand that takes no arguments. Its error says so, where
// cobra.NoArgs says `unknown command "extra"`; it does not show them, as a stray argument
// may be a URL holding a secret.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return fmt.Errorf("%s takes no arguments, got %d (its settings are flags)", cmd.Name(), len(args))
}
