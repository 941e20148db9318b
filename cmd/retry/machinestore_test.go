//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
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
	if err := a.Exchange(ctx, rateExchange("a", 3)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an exchange while another holds the lock: %v, want the context's deadline", err)
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
// Redis refuses (a wrong password), or the file fails too, the exchange fails with Redis's
// error.
func TestFallbackStore(t *testing.T) {
	down := fmt.Errorf("redisfleet: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
	path := filepath.Join(t.TempDir(), "k.json")
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

	both := &fallbackStore{remote: failingStore{down}, local: &fileStore{path: t.TempDir()} /* a directory */, onFallback: func(err error) { t.Errorf("said a fallback that failed: %v", err) }}
	if err := both.Exchange(t.Context(), rateExchange("a", 5)); err != down {
		t.Errorf("with both failing: %v, want Redis's error", err)
	}
}
