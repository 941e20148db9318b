package main

import "github.com/spf13/cobra"

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
