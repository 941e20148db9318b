package fleet

import (
	"context"
	"time"

	"github.com/retrykit/retry/breaker"
)

// Store is where a fleet's replicas meet: one [Exchange] per tick per fleet object, for all
// its keys. Implementations must be safe for concurrent use, must return when ctx ends, and
// must apply each exchange atomically (as one Redis script does), following the rules of
// [Op]. [MemoryStore] is the reference implementation.
type Store interface {
	// Exchange adds x's counts to the fleet's, applies each key's Op, and fills in the
	// fleet's totals and state (the fields marked "out"). On error the outputs are
	// undefined and the caller sends its counts again at the next exchange.
	Exchange(ctx context.Context, x *Exchange) error
}

// Exchange is one replica's tick for one fleet object.
type Exchange struct {
	// Group names the fleet object; all replicas using the same Group share its counts and
	// state. Keys of different groups never meet.
	Group string
	// Replica names this replica, unique in the fleet.
	Replica string
	// Window is how far back Total counts, in ten buckets of Window/10 by the store's clock.
	Window time.Duration
	// OpenTimeout is how long an OPEN decided by OpOpen or OpTrialFailure lasts, and how long
	// a trial election (OpTrial) holds.
	OpenTimeout time.Duration
	// Keys are this replica's keys, each with its counts and operation.
	Keys []Key
	// Replicas (out) is how many replicas made an exchange in the group within Window, this
	// one included.
	Replicas int
	// Opened (out) lists every key of the group that is OPEN or HALF_OPEN, asked for in Keys
	// or not, with its Name, State and OpenLeft: so that a replica refuses calls to a
	// destination the fleet has opened before its own first call there.
	Opened []Key
}

// Key is one key's part of an [Exchange]: a breaker's destination, or a budget.
type Key struct {
	// Name names the key within the group.
	Name string
	// Add is what this replica counted since its last exchange: calls and failures for a
	// breaker, requests and retries for a budget.
	Add [2]int64
	// Op is the state change asked for, applied after Add.
	Op Op
	// Total (out) is the fleet's counts over the window, Add included.
	Total [2]int64
	// State (out) is the fleet's state after Op: CLOSED, OPEN (until OpenLeft from now) or
	// HALF_OPEN (the open timeout ended; a trial call decides).
	State breaker.State
	// OpenLeft (out) is how long the fleet stays OPEN; meaningful with State OPEN.
	OpenLeft time.Duration
	// TrialWon (out) reports that this exchange's OpTrial elected this replica to make the
	// fleet's one trial call.
	TrialWon bool
}

// Op is a state change a replica asks of the store for one key.
type Op uint8

const (
	// OpNone changes nothing.
	OpNone Op = iota
	// OpOpen opens a CLOSED key for OpenTimeout; an OPEN or HALF_OPEN key is left as it is
	// (several replicas deciding at once open it once). The key is listed in
	// Exchange.Opened until it closes.
	OpOpen
	// OpTrial asks to be elected for a HALF_OPEN key's trial call: the first replica to ask
	// wins and holds the election for OpenTimeout (Redis SET NX PX); others, and any asker
	// when the key is not HALF_OPEN, lose.
	OpTrial
	// OpTrialSuccess reports a successful trial call: an OPEN or HALF_OPEN key closes, its
	// counts are forgotten and its election ends.
	OpTrialSuccess
	// OpTrialFailure reports a failed trial call: an OPEN or HALF_OPEN key opens again for
	// OpenTimeout and its election ends.
	OpTrialFailure
)
