package sleep

import (
	"context"
	"errors"
	"time"
)

// Not reported: a pause of a millisecond between re-reads (cos-go-sdk's chunk download,
// issue 36) delays cancellation by too little to matter, however many there are.
func reread(ctx context.Context, read func(context.Context) error, tries int) error {
	for tries > 0 {
		err := read(ctx)
		if err == nil {
			return nil
		}
		tries--
		time.Sleep(time.Millisecond)
	}
	return errors.New("read failed")
}
