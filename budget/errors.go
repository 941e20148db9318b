package budget

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by every error of [NewRatio], [NewTokenBucket] and [NewGroup].
var ErrInvalidConfig = errors.New("budget: invalid config")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}
