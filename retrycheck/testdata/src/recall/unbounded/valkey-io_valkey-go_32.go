// Seeded from https://github.com/valkey-io/valkey-go/pull/32: the retry function did not
// stop at its max retries limit.
package unbounded

import "time"

func doRetry(cmd func() error, backoff func(int) time.Duration) error {
	attempts := 0
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		err := cmd()
		if err == nil {
			return nil
		}
		attempts++ // counted, but never compared
		time.Sleep(backoff(attempts))
	}
}
