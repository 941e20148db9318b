//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// errMachineFiles is nil: this system has the machine's file for the fleet.
var errMachineFiles error

// openMachineFile opens the machine's file at path, creating it (0600) and its directory
// (0700) when missing. It refuses what another user could have put there or could read: a
// directory or file not the user's, or open to others, a symbolic link, anything but a
// regular file (a FIFO would block the process).
func openMachineFile(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if err := private(info, true); err != nil {
		return nil, fmt.Errorf("its directory %s: %w", dir, err)
	}
	file, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, err
	}
	if info, err = file.Stat(); err == nil {
		err = private(info, false)
	}
	if err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// private checks that info is of the user's own directory (dir) or regular file, with no
// access for others.
func private(info os.FileInfo, dir bool) error {
	st, _ := info.Sys().(*syscall.Stat_t)
	switch {
	case dir && !info.IsDir():
		return fmt.Errorf("not a directory (%v)", info.Mode())
	case !dir && !info.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%v)", info.Mode())
	case st != nil && int(st.Uid) != os.Getuid():
		return fmt.Errorf("owned by user %d, not by this user (%d)", st.Uid, os.Getuid())
	case info.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("open to others (%v): want it private to the user", info.Mode().Perm())
	}
	return nil
}

// lockFile takes f's exclusive lock (flock), trying again every millisecond until ctx ends.
func lockFile(ctx context.Context, f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(time.Millisecond):
		}
	}
}
