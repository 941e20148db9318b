package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/retrykit/retry/fleet"
)

// machineTimeout bounds the wait for the machine's file's lock, which another process holds
// for a few milliseconds an exchange, longer when the machine is busy.
const machineTimeout = 200 * time.Millisecond

// fallbackStore is the fleet's store of a command: the Redis of --fleet and, while that is
// out of reach (down, restarting, loading its data, too slow), the machine's file, which
// the processes of this machine using the same Redis and --fleet-key share, so that a
// script's processes keep to the API's pace, and share a breaker and budget, while Redis is
// down. An exchange goes to Redis; when Redis is out of reach, the same exchange goes to
// the file, and onFallback hears of Redis's error (each time). When Redis refuses (a wrong
// password), or the file fails too, the exchange fails with Redis's error, and the file's
// when it failed: the fleet's objects then decide alone.
type fallbackStore struct {
	remote     fleet.Store
	local      *fileStore // nil: none, for the reason noLocal
	noLocal    error
	onFallback func(err error)
}

func (s *fallbackStore) Exchange(ctx context.Context, x *fleet.Exchange) error {
	in := cloneExchange(*x) // a failed exchange's outputs are undefined: the file gets the inputs
	err := s.remote.Exchange(ctx, x)
	switch {
	case err == nil || !outOfReach(err):
		return err // Redis's answer or refusal, such as a wrong password: a fault to mend, not to hide
	case s.local == nil:
		return joinReason(err, s.noLocal)
	}
	*x = in
	local, cancel := context.WithTimeout(context.WithoutCancel(ctx), machineTimeout)
	defer cancel()
	if lerr := s.local.Exchange(local, x); lerr != nil {
		return joinReason(err, lerr)
	}
	s.onFallback(err)
	return nil
}

// joinReason is Redis's error err with why the machine's file could not stand in, when
// there is a reason.
func joinReason(err, local error) error {
	if local == nil {
		return err
	}
	return fmt.Errorf("%w; %v", err, local)
}

// outOfReach reports whether err says that Redis could not be reached, did not answer in
// time, or cannot serve for now (loading its data, busy with a script, a replica without
// its primary), rather than refused the exchange.
func outOfReach(err error) bool {
	var netErr net.Error
	var answer interface {
		error
		RedisError()
	} // go-redis's error for Redis's answer
	if errors.As(err, &answer) {
		for _, code := range []string{"LOADING ", "BUSY ", "MASTERDOWN ", "TRYAGAIN ", "CLUSTERDOWN "} {
			if strings.HasPrefix(answer.Error(), code) {
				return true
			}
		}
		return false
	}
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded)
}

// cloneExchange returns x with keys and quotas of its own.
func cloneExchange(x fleet.Exchange) fleet.Exchange {
	x.Keys = slices.Clone(x.Keys)
	for i := range x.Keys {
		x.Keys[i].Quotas = slices.Clone(x.Keys[i].Quotas)
	}
	x.Opened = slices.Clone(x.Opened)
	return x
}

// maxMachineFile bounds the machine's file: one that has grown larger (past a minute of
// thousands of processes), or that is no store's form, starts afresh, so that an exchange
// stays within a few milliseconds.
const maxMachineFile = 1 << 20

// fileStore is a fleet.MemoryStore kept in a file between exchanges (its JSON form), each
// exchange under the file's lock.
type fileStore struct{ path string }

// machineStorePath is the file that the processes of this machine using the Redis that
// opts reach, and fleet key, share: under the user's cache directory, named by a hash of
// the Redis's address, database and TLS use as go-redis took them from the URL (so that
// "/0", "/00" and "?db=0" are one database) and the key. It fails where the system gives
// no user cache directory.
func machineStorePath(opts *redis.Options, key string) (string, error) {
	if errMachineFiles != nil {
		return "", errMachineFiles
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no file for the machine's processes: %w", err)
	}
	name := fmt.Sprintf("%s/%d/tls=%t\n%s", strings.ToLower(opts.Addr), opts.DB, opts.TLSConfig != nil, key)
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(dir, "retry", "fleet", hex.EncodeToString(sum[:8])+".json"), nil
}

// Exchange makes x's exchange with the store in the file (see openMachineFile), under its
// lock. A file that holds no store's JSON form (cut short by a crash), or is larger than
// maxMachineFile, counts as empty. It fails when the file cannot be opened, locked before
// ctx ends, read or written; its errors name the file.
func (f *fileStore) Exchange(ctx context.Context, x *fleet.Exchange) error {
	err := f.exchange(ctx, x)
	var pathErr *os.PathError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("the machine's file %s is a symbolic link: want a regular file", f.path)
	case errors.As(err, &pathErr) && pathErr.Path == f.path: // say the path once
		return fmt.Errorf("the machine's file %s: %s: %w", f.path, pathErr.Op, pathErr.Err)
	}
	return fmt.Errorf("the machine's file %s: %w", f.path, err)
}

func (f *fileStore) exchange(ctx context.Context, x *fleet.Exchange) error {
	file, err := openMachineFile(f.path)
	if err != nil {
		return err
	}
	defer file.Close() // which lets go of the lock
	if err := lockFile(ctx, file); errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("another process held its lock for more than %v", machineTimeout)
	} else if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(file, maxMachineFile+1))
	if err != nil {
		return err
	}
	m := new(fleet.MemoryStore)
	if len(data) > 0 && len(data) <= maxMachineFile {
		_ = m.UnmarshalJSON(data) // which leaves m empty when data is no store's form
	}
	if err := m.Exchange(ctx, x); err != nil {
		return err
	}
	if data, err = m.MarshalJSON(); err != nil {
		return err
	}
	if err := file.Truncate(0); err != nil {
		return err
	}
	_, err = file.WriteAt(data, 0)
	return err
}
