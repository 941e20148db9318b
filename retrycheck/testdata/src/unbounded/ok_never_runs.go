package unbounded

import "time"

// Not a loop at all: it never runs (swift's test, issue 36).
func neverRuns(check func() error) {
	for i := 10; i <= 0; i-- {
		if err := check(); err == nil {
			break
		}
		time.Sleep(time.Second)
	}
}
