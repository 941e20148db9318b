package sleep

import (
	"testing"
	"time"
)

// The same test helper waiting a second 30 times: half a minute past its context's end.
func testRunUmountSlowly(t testing.TB, gopts globalOptions, dir string) {
	var err error
	for i := 0; i < 30; i++ {
		if err = umount(dir); err == nil {
			return
		}
		time.Sleep(time.Second) // want `time.Sleep between attempts ignores cancellation of gopts.ctx`
	}
	t.Errorf("unable to umount dir %v, last error was: %v", dir, err)
}
