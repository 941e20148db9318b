package nested

import (
	"errors"
	"time"
)

func loopInLoop(send func() error) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		err = sendWithRetries(send) // want `nested retries: sendWithRetries, which retries \(a hand-written retry loop at loop_in_loop.go:21\) runs inside each attempt of a hand-written retry loop \(line 10\): 3 × 4 = 12 calls`
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func sendWithRetries(send func() error) error {
	for i := 0; i < 4; i++ {
		if err := send(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return errors.New("gave up")
}
