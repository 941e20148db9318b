package main

import (
	"errors"
	"testing"
)

// A --fleet error that quotes the password (go-redis's AUTH failures may) shows REDACTED in
// its place, as every URL the command shows does, and is unchanged without a password.
func TestRedactTextHidesThePassword(t *testing.T) {
	err := errors.New(`dial: AUTH s3cret failed for s3cret`)
	if got, want := redactText(err, "redis://app:s3cret@127.0.0.1:6379/0"), "dial: AUTH REDACTED failed for REDACTED"; got != want {
		t.Errorf("redactText = %q, want %q", got, want)
	}
	if got, want := redactText(err, "redis://127.0.0.1:6379/0"), err.Error(); got != want {
		t.Errorf("redactText without a password = %q, want %q", got, want)
	}
	// A short password (here "1") is not looked for in the rest of the text, where its
	// REDACTED holes ("dial tcp REDACTED27.0.0.REDACTED:REDACTED") would tell it; it is
	// still hidden in a URL.
	short := errors.New(`dial tcp 127.0.0.1:1: connect: connection refused (redis://:1@127.0.0.1:1/0)`)
	if got, want := redactText(short, "redis://:1@127.0.0.1:1/0"), `dial tcp 127.0.0.1:1: connect: connection refused (redis://:REDACTED@127.0.0.1:1/0)`; got != want {
		t.Errorf("redactText with a short password = %q, want %q", got, want)
	}
}
