package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// What the attempts of retry run read on standard input (--stdin).
const (
	// stdinFirst: retry's own standard input, shared by the attempts, so the first reads it
	// and later ones see what is left; none when it is a terminal. The default.
	stdinFirst = "first"
	// stdinReplay: all of it, given to every attempt: a regular file read again from where
	// it began, anything else read whole (at most maxReplayedStdin bytes) before the first.
	stdinReplay = "replay"
	// stdinNone: nothing (/dev/null), for a command that must not wait on an open stdin.
	stdinNone = "none"
)

var stdinModes = []string{stdinFirst, stdinReplay, stdinNone}

// maxReplayedStdin is the most standard input --stdin replay keeps in memory: 16 MiB.
const maxReplayedStdin = 16 << 20

// stdinSource gives each attempt of retry run its standard input, as --stdin says.
type stdinSource struct {
	mode string
	in   io.Reader // retry's standard input

	file   *os.File // replay of a regular file: read again from offset
	offset int64
	buf    []byte // replay of anything else
}

// prepare readies a replay before the first attempt: it notes where a regular file begins,
// or reads anything else whole, until ctx ends (the overall deadline, a signal). Its error
// is an *exitError: exit 2 when the input is larger than maxReplayedStdin, 124 when the
// deadline passed first. A read cut short by ctx is left to finish on its own: the process
// exits at once.
func (s *stdinSource) prepare(ctx context.Context, timeout string) error {
	if s.mode != stdinReplay {
		return nil
	}
	if f, ok := s.in.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if s.offset, err = f.Seek(0, io.SeekCurrent); err == nil {
				s.file = f
				return nil
			}
		}
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(s.in, maxReplayedStdin+1))
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		switch {
		case r.err != nil:
			return exit(exitUsage, fmt.Errorf("--stdin replay: reading standard input: %w", r.err))
		case len(r.b) > maxReplayedStdin:
			return exit(exitUsage, errors.New("--stdin replay: standard input is larger than 16 MiB, the most it keeps to give every attempt; "+
				"nothing was run: use --stdin first (the attempts share it), or redirect it from a file, which is read again whatever its size"))
		}
		s.buf = r.b
		return nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return exit(exitDeadline, fmt.Errorf("--stdin replay: standard input did not end within --timeout %s, and it is read whole before the first attempt; nothing was run", timeout))
		}
		return exit(exitFailed, ctx.Err()) // a signal: the caller exits 128+N instead
	}
}

// attempt returns what the next attempt reads: nil for nothing (exec gives /dev/null).
func (s *stdinSource) attempt() (io.Reader, error) {
	switch {
	case s.mode == stdinNone:
		return nil, nil
	case s.mode == stdinFirst:
		return commandStdin(s.in), nil
	case s.file != nil:
		if _, err := s.file.Seek(s.offset, io.SeekStart); err != nil {
			return nil, fmt.Errorf("--stdin replay: rewinding standard input: %w", err)
		}
		return s.file, nil
	}
	return bytes.NewReader(s.buf), nil
}
