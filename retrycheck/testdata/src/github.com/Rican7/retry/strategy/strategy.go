// Package strategy is a stub of github.com/Rican7/retry/strategy for the analyzers' tests.
package strategy

import (
	"time"

	"github.com/Rican7/retry/backoff"
)

type Strategy func(attempt uint) bool

func Backoff(algorithm backoff.Algorithm) Strategy { return nil }
func Wait(durations ...time.Duration) Strategy     { return nil }
func Limit(attemptLimit uint) Strategy             { return nil }
