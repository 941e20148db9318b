// Package codes is a stub of google.golang.org/grpc/codes.
package codes

type Code uint32

const (
	OK          Code = 0
	Canceled    Code = 1
	Unavailable Code = 14
)
