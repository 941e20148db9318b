// Package backoff is a stub of github.com/Rican7/retry/backoff for the analyzers' tests.
package backoff

import "time"

type Algorithm func(attempt uint) time.Duration

func Linear(factor time.Duration) Algorithm { return nil }
