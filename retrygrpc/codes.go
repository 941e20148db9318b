package retrygrpc

import (
	"fmt"

	"google.golang.org/grpc/codes"
)

// codeNames are the canonical names of the status codes (grpc/doc/statuscodes.md), as the
// decision record's grpc_code writes them; codes.Code.String gives Go-style names instead.
var codeNames = [...]string{
	codes.OK: "OK", codes.Canceled: "CANCELLED", codes.Unknown: "UNKNOWN",
	codes.InvalidArgument: "INVALID_ARGUMENT", codes.DeadlineExceeded: "DEADLINE_EXCEEDED",
	codes.NotFound: "NOT_FOUND", codes.AlreadyExists: "ALREADY_EXISTS",
	codes.PermissionDenied: "PERMISSION_DENIED", codes.ResourceExhausted: "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION", codes.Aborted: "ABORTED",
	codes.OutOfRange: "OUT_OF_RANGE", codes.Unimplemented: "UNIMPLEMENTED",
	codes.Internal: "INTERNAL", codes.Unavailable: "UNAVAILABLE", codes.DataLoss: "DATA_LOSS",
	codes.Unauthenticated: "UNAUTHENTICATED",
}

// CodeName returns the canonical name of c, as in the decision record's grpc_code and in
// gRPC service configs: "UNAVAILABLE", "RESOURCE_EXHAUSTED"; "CODE(n)" for a code gRPC does
// not define. It is safe for concurrent use.
func CodeName(c codes.Code) string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE(%d)", uint32(c))
}

// codeSet is a set of the 17 status codes, one bit each.
type codeSet uint32

func (s codeSet) has(c codes.Code) bool { return c < 32 && s&(1<<c) != 0 }

// Default code sets (AIP-194): UNAVAILABLE is retried on any answer; RESOURCE_EXHAUSTED only
// when the server asks for a wait.
const (
	defaultCodes         = codeSet(1 << codes.Unavailable)
	defaultPushbackCodes = codeSet(1 << codes.ResourceExhausted)
)

// newCodeSet returns the set of cs, or an error naming a code that may not be retried:
// OK is a success, CANCELLED is the caller giving up, and a code above 16 is not gRPC's.
func newCodeSet(option string, cs []codes.Code) (codeSet, error) {
	var s codeSet
	for _, c := range cs {
		switch {
		case c == codes.OK || c == codes.Canceled:
			return 0, fmt.Errorf("retrygrpc: %s(%s): %s is never retried: use codes from UNKNOWN to UNAUTHENTICATED but CANCELLED", option, CodeName(c), CodeName(c))
		case int(c) >= len(codeNames):
			return 0, fmt.Errorf("retrygrpc: %s(%s): not a gRPC status code: use codes 2 (UNKNOWN) to 16 (UNAUTHENTICATED)", option, CodeName(c))
		}
		s |= 1 << c
	}
	return s, nil
}
