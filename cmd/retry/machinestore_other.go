//go:build !unix

package main

import (
	"context"
	"errors"
	"os"
)

// machineStores reports whether this system has the machine's file for the fleet: not
// here, where files have no advisory lock of the kind the processes would share.
const machineStores = false

func lockFile(context.Context, *os.File) error {
	return errors.New("no file locks on this system")
}
