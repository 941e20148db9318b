package unbounded

import (
	"log"
	"math/rand"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type stream interface {
	Send(msg string) error
}

// A benchmark's streaming send loop: it sends until the stream fails, and leaves (or
// exits) on every failure, the cases of its switch on the error's code that do not list
// codes.OK; it never goes round after one (grpc's benchmark, issue 36).
func sendForever(s stream, maxSleep int) {
	for {
		if maxSleep > 0 {
			time.Sleep(time.Duration(rand.Intn(maxSleep)))
		}
		err := s.Send("response")
		switch status.Code(err) {
		case codes.Unavailable, codes.Canceled:
			return
		case codes.OK:
		default:
			log.Fatalf("server send error: %v", err)
		}
	}
}
