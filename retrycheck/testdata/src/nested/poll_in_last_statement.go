package nested

import "time"

// The poll is the body's last statement but not a return: the loop goes round when it
// fails, and each round polls again: reported.
func updateAndPoll(update func() error, poll func() error) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = update(); err != nil {
			time.Sleep(time.Second)
			continue
		}
		if err = pollUntil(poll); err == nil { // want `nested retries: pollUntil, which retries`
			return nil
		}
	}
	return err
}
