package retrygrpc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// exportedServiceConfig returns the service config JSON of one of retry plan --format grpc's
// golden files (the command line's tests keep them equal to its output).
func exportedServiceConfig(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "cmd", "retry", "testdata", "plan-export", name+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "\n") // the command line
	js, _, ok := strings.Cut(rest, "--- stderr\n")
	if !ok {
		t.Fatalf("%s: no --- stderr line", name)
	}
	return js
}

// grpc-go itself parses every service config retry plan --format grpc writes, and applies
// its retryPolicy as written.
func TestExportedServiceConfigsParse(t *testing.T) {
	for _, tt := range []struct {
		golden      string
		maxAttempts int
		initial     time.Duration
		max         time.Duration
		multiplier  float64
	}{
		{"grpc-default", 3, 100 * time.Millisecond, 30 * time.Second, 2},
		{"grpc-lossy", 5, 200 * time.Millisecond, 5 * time.Second, 1.5},           // maxAttempts 7, lowered to 5
		{"grpc-attempts-8", 5, 100 * time.Millisecond, 100 * time.Millisecond, 1}, // maxAttempts 8, lowered to 5
		{"grpc-constant", 4, time.Second, time.Second, 1},
		{"grpc-one-attempt", 0, 0, 0, 0},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cc := dialBufconn(t, newServer(), grpc.WithDefaultServiceConfig(exportedServiceConfig(t, tt.golden)))
				if _, err := get(t.Context(), cc, methodGet); err != nil { // resolves, so the config applies
					t.Fatal(err)
				}
				rp := cc.GetMethodConfig(methodGet).RetryPolicy
				if tt.maxAttempts == 0 {
					if rp != nil {
						t.Errorf("retry policy %+v, want none for one attempt", rp)
					}
					return
				}
				if rp == nil || rp.MaxAttempts != tt.maxAttempts || rp.InitialBackoff != tt.initial || rp.MaxBackoff != tt.max ||
					rp.BackoffMultiplier != tt.multiplier || len(rp.RetryableStatusCodes) != 1 || !rp.RetryableStatusCodes[codes.Unavailable] {
					t.Errorf("retry policy %+v", rp)
				}
			})
		})
	}
}

// grpc-go retries as the exported config says: retry plan --backoff constant --base 1s
// --attempts 4 makes 4 attempts, about 1 s apart (grpc-go's ±20% jitter).
func TestExportedServiceConfigRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{})
		cc := dialBufconn(t, s, grpc.WithDefaultServiceConfig(exportedServiceConfig(t, "grpc-constant")))
		if _, err := get(t.Context(), cc, methodGet); err != nil {
			t.Fatalf("error %v, want success on grpc-go's 4th attempt", err)
		}
		seen := s.seen()
		if len(seen) != 4 {
			t.Fatalf("%d attempts, want 4", len(seen))
		}
		for i := 1; i < len(seen); i++ {
			if gap := seen[i].at.Sub(seen[i-1].at); gap < 800*time.Millisecond || gap > 1200*time.Millisecond {
				t.Errorf("attempt %d came %v after the previous, want 1s ± 20%%", i+1, gap)
			}
		}
	})
}

// Issue 23 item 4: retry plan --attempts 8 --format grpc writes maxAttempts 8, and grpc-go
// makes 5 calls under it with the default options, 8 on a channel dialled with
// grpc.WithMaxCallAttempts(8), as the export's warning says.
func TestGRPCGoMaxCallAttempts(t *testing.T) {
	config := exportedServiceConfig(t, "grpc-attempts-8")
	if !strings.Contains(config, `"maxAttempts": 8,`) {
		t.Fatalf("the export writes %s, want maxAttempts 8", config)
	}
	for _, tt := range []struct {
		name  string
		opts  []grpc.DialOption
		calls int
	}{
		{"default options", nil, 5},
		{"WithMaxCallAttempts(8)", []grpc.DialOption{grpc.WithMaxCallAttempts(8)}, 8},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(answer{code: codes.Unavailable})
				cc := dialBufconn(t, s, append(tt.opts, grpc.WithDefaultServiceConfig(config))...)
				if _, err := get(t.Context(), cc, methodGet); status.Code(err) != codes.Unavailable {
					t.Fatalf("error %v, want UNAVAILABLE", err)
				}
				if n := len(s.seen()); n != tt.calls {
					t.Errorf("grpc-go made %d calls, want %d", n, tt.calls)
				}
			})
		})
	}
}

// Issue 23 item 4: grpc-go's own retry gives up on a response that carries headers (it
// retries Trailers-Only responses only): 1 call where the interceptor, under the same
// exported policy, makes 2, as the export's warning says.
func TestGRPCGoGivesUpAfterHeaders(t *testing.T) {
	config := exportedServiceConfig(t, "grpc-constant")
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable, header: true}, answer{})
		cc := dialBufconn(t, s, grpc.WithDefaultServiceConfig(config))
		if _, err := get(t.Context(), cc, methodGet); status.Code(err) != codes.Unavailable || len(s.seen()) != 1 {
			t.Errorf("grpc-go: %v after %d calls, want UNAVAILABLE after 1", err, len(s.seen()))
		}
		s2 := newServer(answer{code: codes.Unavailable, header: true}, answer{})
		cc2 := dialBufconn(t, s2, append(interceptor(t, constant(t, 4, time.Second), nil), grpc.WithDefaultServiceConfig(config))...)
		if _, err := get(t.Context(), cc2, methodGet); err != nil || len(s2.seen()) != 2 {
			t.Errorf("retrygrpc: %v after %d calls, want success after 2", err, len(s2.seen()))
		}
	})
}
