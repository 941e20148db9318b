package sleep

import (
	"context"
	"errors"
	"time"
)

type watcher interface {
	Watch(ctx context.Context) error
}

type backend struct {
	ctx context.Context
	kv  watcher
}

// The backend's context, held in a field, ends its work; the sleep ignores it (kine's
// watch loop, issue 36).
func (b *backend) rewatch() error {
	for {
		err := b.kv.Watch(b.ctx)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) {
			return err
		}
		time.Sleep(2 * time.Second) // want `time.Sleep between attempts ignores cancellation of b.ctx`
	}
}

type session struct {
	ctx context.Context
	kv  watcher
}

func newSession(ctx context.Context, kv watcher) *session {
	s := &session{ctx: context.TODO(), kv: kv}
	if ctx != nil {
		s.ctx = ctx
	}
	return s
}

// The session's context is TODO() unless its caller gives one: reported.
func (s *session) rewatch() error {
	for {
		err := s.kv.Watch(s.ctx)
		if err == nil {
			return nil
		}
		time.Sleep(2 * time.Second) // want `time.Sleep between attempts ignores cancellation of s.ctx`
	}
}
