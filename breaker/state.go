package breaker

import "strconv"

// State is a circuit breaker's state.
type State uint8

const (
	// StateClosed: calls run and their failures are counted.
	StateClosed State = iota
	// StateOpen: calls are refused at once, without running, until the open time ends.
	StateOpen
	// StateHalfOpen: a limited number of trial calls run to check recovery; all others are
	// refused at once.
	StateHalfOpen
)

// String returns "CLOSED", "OPEN" or "HALF_OPEN".
func (s State) String() string {
	switch s {
	case StateClosed:
		return "CLOSED"
	case StateOpen:
		return "OPEN"
	case StateHalfOpen:
		return "HALF_OPEN"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}
