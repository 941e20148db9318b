package hedge

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by every error of [New] and [NewGroup].
var ErrInvalidConfig = errors.New("hedge: invalid config")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}
