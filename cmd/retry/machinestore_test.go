//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrykit/retry/fleet"
)

// rateExchange is replica's exchange of a rate group telling (or, remaining < 0, asking)
// the view of a 20-a-second quota.
func rateExchange(replica string, remaining int64) *fleet.Exchange {
	k := fleet.Key{Name: "https://api.example:443", Own: 1}
	if remaining >= 0 {
		k.Quotas = []fleet.Quota{{Name: "requests", Limit: 20, Window: time.Second, Remaining: remaining, ResetIn: 800 * time.Millisecond}}
	}
	return &fleet.Exchange{Group: "openai-key:rate", Replica: replica, Window: 2 * time.Second,
		Rate: &fleet.RateRule{MinReplicas: 1, ShareFor: 2 * time.Second}, Keys: []fleet.Key{k}}
}

// Processes that share the machine's file share one store (issue 33: a script's processes
// keep to the API's pace while Redis is down): what one tells, another learns, and their
// parts split the quota. A file cut short counts as empty and is written whole again; a
// file whose lock is held fails the exchange when its context ends.
func TestMachineFileStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "retry", "fleet", "k.json")
	a, b := &fileStore{path: path}, &fileStore{path: path}
	if err := a.Exchange(t.Context(), rateExchange("a", 5)); err != nil {
		t.Fatal(err)
	}
	x := rateExchange("b", -1)
	if err := b.Exchange(t.Context(), x); err != nil {
		t.Fatal(err)
	}
	k := x.Keys[0]
	if len(k.Quotas) != 1 || k.Quotas[0].Remaining != 5 || k.Part != (fleet.RatePart("b", map[string]int64{"a": 1, "b": 1}, 1)) {
		t.Errorf("b learned %+v, part %+v; want a's view (5 remaining) and half the quota", k.Quotas, k.Part)
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the file's directory: %v, %v; want it private to the user (0700)", info.Mode(), err)
	}

	if err := os.WriteFile(path, []byte(`{"format":1,"gro`), 0o600); err != nil {
		t.Fatal(err)
	}
	x = rateExchange("b", -1)
	if err := b.Exchange(t.Context(), x); err != nil || len(x.Keys[0].Quotas) != 0 {
		t.Errorf("after a cut file: %v, quotas %+v; want an empty store", err, x.Keys[0].Quotas)
	}
	if data, _ := os.ReadFile(path); new(fleet.MemoryStore).UnmarshalJSON(data) != nil {
		t.Errorf("the file after the exchange: %s; want a store's form", data)
	}

	held, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := lockFile(t.Context(), held); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := a.Exchange(ctx, rateExchange("a", 3)); err == nil || err.Error() != "the machine's file "+path+": another process held its lock for more than 200ms" {
		t.Errorf("an exchange while another holds the lock: %v, want that another process held it", err)
	}
}

// failingStore fails every exchange with err, after spoiling its outputs and inputs.
type failingStore struct{ err error }

func (s failingStore) Exchange(_ context.Context, x *fleet.Exchange) error {
	for i := range x.Keys {
		x.Keys[i].Quotas = x.Keys[i].Quotas[:0]
		x.Keys[i].Own = -7
	}
	return s.err
}

// The command's store goes to Redis, and to the machine's file only when Redis is out of
// reach, with the exchange as it was before Redis spoiled it; each fallback is said. When
// Redis refuses (a wrong password), the exchange fails with Redis's error; when the file
// fails too, or there is none, with Redis's error and the file's reason.
func TestFallbackStore(t *testing.T) {
	down := fmt.Errorf("redisfleet: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
	path := filepath.Join(privateDir(t), "k.json")
	var said []error
	s := &fallbackStore{remote: failingStore{down}, local: &fileStore{path: path}, onFallback: func(err error) { said = append(said, err) }}
	if err := s.Exchange(t.Context(), rateExchange("a", 5)); err != nil {
		t.Fatal(err)
	}
	x := rateExchange("b", -1)
	if err := s.Exchange(t.Context(), x); err != nil || len(x.Keys[0].Quotas) != 1 || x.Keys[0].Quotas[0].Remaining != 5 {
		t.Errorf("through the file: %v, %+v; want a's view, 5 remaining", err, x.Keys[0].Quotas)
	}
	if len(said) != 2 || said[0] != down {
		t.Errorf("fallbacks said: %v, want Redis's error twice", said)
	}

	up := &fallbackStore{remote: new(fleet.MemoryStore), local: &fileStore{path: path}, onFallback: func(err error) { t.Errorf("fallback with Redis up: %v", err) }}
	if x := rateExchange("c", -1); up.Exchange(t.Context(), x) != nil || len(x.Keys[0].Quotas) != 0 {
		t.Errorf("with Redis up, the file was read: %+v", x.Keys[0].Quotas)
	}

	refusal := errors.New("redisfleet: WRONGPASS invalid username-password pair or user is disabled.")
	wrong := &fallbackStore{remote: failingStore{refusal}, local: &fileStore{path: path}, onFallback: func(err error) { t.Errorf("fallback on a refusal: %v", err) }}
	if err := wrong.Exchange(t.Context(), rateExchange("d", -1)); err != refusal {
		t.Errorf("with Redis refusing: %v, want its refusal", err)
	}

	dir := filepath.Join(privateDir(t), "k.json")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	both := &fallbackStore{remote: failingStore{down}, local: &fileStore{path: dir}, onFallback: func(err error) { t.Errorf("said a fallback that failed: %v", err) }}
	want := "redisfleet: dial tcp: connection refused; the machine's file " + dir + ": open: is a directory"
	if err := both.Exchange(t.Context(), rateExchange("a", 5)); !errors.Is(err, down) || err.Error() != want {
		t.Errorf("with both failing: %v, want Redis's error and the file's: %s", err, want)
	}
	none := &fallbackStore{remote: failingStore{down}, noLocal: errors.New("no file for the machine's processes: $XDG_CACHE_HOME is relative")}
	want = "redisfleet: dial tcp: connection refused; no file for the machine's processes: $XDG_CACHE_HOME is relative"
	if err := none.Exchange(t.Context(), rateExchange("a", 5)); !errors.Is(err, down) || err.Error() != want {
		t.Errorf("with no file: %v, want Redis's error and why there is no file: %s", err, want)
	}
}

// The machine's file is refused, with an error naming it and what is wrong, when another
// user could have put it there or could read it, or when it is no regular file: a FIFO
// (which used to block the process for good, deaf to SIGTERM), a symbolic link (whose
// target used to be overwritten), a directory; a file larger than maxMachineFile starts
// afresh at once (one used to cost a process seconds, or all its memory when it led to
// /dev/zero).
func TestMachineFileRefusesWhatIsNotPrivate(t *testing.T) {
	exchange := func(path string) error {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		return (&fileStore{path: path}).Exchange(ctx, rateExchange("a", 5))
	}
	for _, c := range []struct {
		name  string
		make  func(dir, path string) error
		wants string
	}{
		{"a FIFO", func(_, path string) error { return syscall.Mkfifo(path, 0o600) }, "not a regular file (p"},
		{"a symbolic link", func(dir, path string) error {
			target := filepath.Join(dir, "precious")
			if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
				return err
			}
			return os.Symlink(target, path)
		}, " is a symbolic link: want a regular file"},
		{"a directory", func(_, path string) error { return os.Mkdir(path, 0o700) }, "open: is a directory"},
		{"a file open to others", func(_, path string) error { return os.WriteFile(path, nil, 0o644) }, ": open to others (-rw-r--r--): want it private to the user"},
		{"a directory open to others", func(dir, _ string) error { return os.Chmod(dir, 0o777) }, "open to others (-rwxrwxrwx)"},
		{"a directory that is a file", func(dir, _ string) error {
			if err := os.Remove(dir); err != nil {
				return err
			}
			return os.WriteFile(dir, nil, 0o600)
		}, "not a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "fleet")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "k.json")
			if err := c.make(dir, path); err != nil {
				t.Fatal(err)
			}
			err := exchange(path)
			if err == nil || !strings.Contains(err.Error(), "the machine's file "+path) || !strings.Contains(err.Error(), c.wants) {
				t.Errorf("exchange: %v, want an error naming the file and %q", err, c.wants)
			}
			if data, _ := os.ReadFile(filepath.Join(dir, "precious")); len(data) > 0 && string(data) != "precious" {
				t.Errorf("the link's target now holds %q", data)
			}
		})
	}

	path := filepath.Join(privateDir(t), "k.json")
	if err := os.WriteFile(path, []byte(`{"format":1,"groups":{}}`+strings.Repeat(" ", maxMachineFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := exchange(path); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() > 4096 {
		t.Errorf("a file over the bound, after an exchange: %v bytes, %v; want it afresh, small", info.Size(), err)
	}
}

// outOfReach tells a Redis that cannot serve for now (down, slow, loading its data, busy,
// without its primary) from one that refuses the exchange.
func TestOutOfReach(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("redisfleet: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{fmt.Errorf("redisfleet: %w", io.EOF), true},
		{fmt.Errorf("redisfleet: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("redisfleet: %w", redisAnswer("LOADING Redis is loading the dataset in memory")), true},
		{fmt.Errorf("redisfleet: %w", redisAnswer("BUSY Redis is busy running a script.")), true},
		{fmt.Errorf("redisfleet: %w", redisAnswer("MASTERDOWN Link with MASTER is down")), true},
		{fmt.Errorf("redisfleet: %w", redisAnswer("WRONGPASS invalid username-password pair")), false},
		{fmt.Errorf("redisfleet: %w", redisAnswer("NOSCRIPT No matching script")), false},
		{errors.New("redisfleet: the exchange script returned 1 values for 2 keys, want at least 3"), false},
	} {
		if got := outOfReach(c.err); got != c.want {
			t.Errorf("outOfReach(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// redisAnswer is an error Redis answered, as go-redis gives it.
type redisAnswer string

func (e redisAnswer) Error() string { return string(e) }
func (redisAnswer) RedisError()     {}

// privateDir returns a new directory of the test's, private to the user.
func privateDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
