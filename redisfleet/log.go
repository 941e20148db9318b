package redisfleet

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// SetLogger sends go-redis's own log lines (a failed dial, a connection dropped with data
// unread, ...) to l at level Warn, each line's text as the message, instead of to stderr.
// go-redis has one logger per process (redis.SetLogger), so this sets it for every go-redis
// client of the process, the fleet's and any other. A nil l means slog.Default() at the time
// of each line. Safe for concurrent use.
func SetLogger(l *slog.Logger) { redis.SetLogger(slogLogger{l}) }

// slogLogger is go-redis's Logging interface over a slog.Logger.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Printf(ctx context.Context, format string, args ...any) {
	l := s.l
	if l == nil {
		l = slog.Default()
	}
	l.Log(ctx, slog.LevelWarn, fmt.Sprintf(format, args...))
}
