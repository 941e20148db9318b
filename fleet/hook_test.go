package fleet

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// OnFleetStateChange sees the fleet's changes of state, as the store reports them, at a
// replica that never failed a call and whose local breaker never changed (issue 24 item 7):
// CLOSED to OPEN when the others' failures meet the rule, OPEN to HALF_OPEN when the open
// timeout ends, HALF_OPEN to CLOSED after the trial call's success. The hook may call the
// group (here SyncNow).
func TestOnFleetStateChangeSeesTheFleetsChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		var (
			mu      sync.Mutex
			changes []string
			watcher *Breaker
		)
		cfg := testConfig
		cfg.OnFleetStateChange = func(key string, from, to breaker.State, at time.Time) {
			mu.Lock()
			changes = append(changes, fmt.Sprintf("key %q: %v to %v", key, from, to))
			mu.Unlock()
			_ = watcher.SyncNow(t.Context())
		}
		watcher = newReplicaWith(t, "watcher", store, cfg)
		loud := testConfig
		loud.Breaker.ConsecutiveFailures = 1000 // the fleet's rule decides
		others := replicas(t, 2, store, loud)
		time.Sleep(time.Second)
		for _, b := range others {
			for range 10 {
				call(b, retry.ResultFailure)
			}
		}
		time.Sleep(testConfig.Breaker.OpenTimeout + time.Second) // OPEN, then HALF_OPEN
		for deadline := time.Now().Add(5 * time.Second); watcher.State() != breaker.StateClosed && time.Now().Before(deadline); {
			call(others[0], retry.ResultSuccess) // the trial call, once elected
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(time.Second)
		mu.Lock()
		defer mu.Unlock()
		want := `key "": CLOSED to OPEN; key "": OPEN to HALF_OPEN; key "": HALF_OPEN to CLOSED`
		if got := strings.Join(changes, "; "); got != want {
			t.Errorf("OnFleetStateChange saw %s; want %s", got, want)
		}
		if s := watcher.local.State(); s != breaker.StateClosed {
			t.Errorf("the watcher's local breaker is %v, want CLOSED all along", s)
		}
	})
}
