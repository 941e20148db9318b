//go:build !unix

package main

import (
	"context"
	"errors"
	"os"
)

// errMachineFiles says why this system has no machine's file for the fleet: its files have
// no advisory lock of the kind the processes would share.
var errMachineFiles = errors.New("no file for the machine's processes on this system")

func openMachineFile(string) (*os.File, error) { return nil, errMachineFiles }

func lockFile(context.Context, *os.File) error { return errMachineFiles }
