package unbounded

import (
	"errors"
	"io"
	"time"
)

type sender interface {
	Send(msg string) error
}

// Not a retry loop: it waits only after a send that succeeded, and sends until the
// stream ends (grpc's tests, issue 36).
func sendUntilEOF(s sender) error {
	for {
		if err := s.Send("ping"); err == nil {
			time.Sleep(50 * time.Millisecond)
		} else if errors.Is(err, io.EOF) {
			return nil
		} else {
			return err
		}
	}
}
