package sleep

import "time"

// No context is in scope: there is nothing to watch.
func noContext(call func() error) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
