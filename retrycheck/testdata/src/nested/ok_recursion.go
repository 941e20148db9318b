package nested

import "time"

type session struct{ open func() error }

// reconnect's loop calls open, which may call reconnect again on a failure: the loop
// reaches only itself, which is recursion, not a retry inside a retry.
func (s *session) reconnect() {
	for i := 0; i < 5; i++ {
		if err := s.openAndWatch(); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

func (s *session) openAndWatch() error {
	if err := s.open(); err != nil {
		s.reconnect()
		return err
	}
	return nil
}
