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
		{"grpc-lossy", 5, 200 * time.Millisecond, 5 * time.Second, 1.5},
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
