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
	"time"

	"github.com/retrykit/retry/fleet"
)

// machineTimeout bounds an exchange with the machine's file, its lock's wait included.
const machineTimeout = 50 * time.Millisecond

// fallbackStore is the fleet's store of a command: the Redis of --fleet and, while that is
// out of reach (down, restarting, too slow), the machine's file, which the processes of
// this machine using the same Redis and --fleet-key share, so that a script's processes
// keep to the API's pace, and share a breaker and budget, while Redis is down. An exchange
// goes to Redis; when Redis cannot be reached or does not answer in time, the same
// exchange goes to the file, and onFallback hears of Redis's error (each time). When Redis
// refuses (a wrong password), or the file fails too, the exchange fails with Redis's
// error: the fleet's objects then decide alone.
type fallbackStore struct {
	remote     fleet.Store
	local      *fileStore // nil: none on this system
	onFallback func(err error)
}

func (s *fallbackStore) Exchange(ctx context.Context, x *fleet.Exchange) error {
	if s.local == nil {
		return s.remote.Exchange(ctx, x)
	}
	in := cloneExchange(*x) // a failed exchange's outputs are undefined: the file gets the inputs
	err := s.remote.Exchange(ctx, x)
	if err == nil {
		return nil
	}
	if !outOfReach(err) {
		return err // Redis's answer, such as a wrong password: a fault to mend, not to hide
	}
	*x = in
	local, cancel := context.WithTimeout(context.WithoutCancel(ctx), machineTimeout)
	defer cancel()
	if s.local.Exchange(local, x) != nil {
		return err
	}
	s.onFallback(err)
	return nil
}

// outOfReach reports whether err says that Redis could not be reached or did not answer in
// time, rather than answered with a refusal.
func outOfReach(err error) bool {
	var netErr net.Error
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

// fileStore is a fleet.MemoryStore kept in a file between exchanges (its JSON form), each
// exchange under the file's lock.
type fileStore struct{ path string }

// machineStorePath is the file that the processes of this machine using the Redis shown
// (redacted) and fleet key share: under the user's cache directory, named by a hash of
// both. ok is false where the system has no such directory.
func machineStorePath(shown, key string) (path string, ok bool) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256([]byte(shown + "\n" + key))
	return filepath.Join(dir, "retry", "fleet", hex.EncodeToString(sum[:8])+".json"), true
}

// Exchange makes x's exchange with the store in the file, which it creates (and its
// directory, private to the user) when missing; a file that holds no store's JSON form
// (cut short by a crash) counts as empty. It fails when the file cannot be locked, read or
// written before ctx ends.
func (f *fileStore) Exchange(ctx context.Context, x *fleet.Exchange) error {
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return err
	}
	file, err := os.OpenFile(f.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer file.Close() // which lets go of the lock
	if err := lockFile(ctx, file); err != nil {
		return fmt.Errorf("lock %s: %w", f.path, err)
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return err
	}
	m := new(fleet.MemoryStore)
	if len(data) > 0 {
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
