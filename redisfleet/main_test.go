package redisfleet

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv("REDISFLEET_LOG_CHILD") == "1" {
		// TestGoRedisLogsGoToSlog's child: its plain go-redis client's dial probe
		// (internal/pool's tryDial) outlives Close by up to a second, which is go-redis's.
		os.Exit(m.Run())
	}
	goleak.VerifyTestMain(m)
}
