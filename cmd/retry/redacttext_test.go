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
}
