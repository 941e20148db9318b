package main

import (
	"errors"
	"testing"
)

// A --fleet error that quotes the URL (net/url's do) shows REDACTED in place of its
// password, typed or escaped, and is unchanged without a password. The password is not
// looked for elsewhere: a search of the whole text mangled words and addresses that
// equal it, and told it by the holes ("dial tcp REDACTED27.0.0.REDACTED:REDACTED" for
// ":1@", "connect: REDACTED refused" for ":connection@").
func TestRedactTextHidesThePassword(t *testing.T) {
	for _, c := range []struct{ raw, text, want string }{
		{"redis://app:s3cret@127.0.0.1:6379/0", `parse "redis://app:s3cret@127.0.0.1:bad/0": invalid port`, `parse "redis://app:REDACTED@127.0.0.1:bad/0": invalid port`},
		{"redis://:p%40ss@127.0.0.1:6379/0", `parse "redis://:p%40ss@h:x": invalid port`, `parse "redis://:REDACTED@h:x": invalid port`},
		{"redis://127.0.0.1:6379/0", `dial: AUTH failed`, `dial: AUTH failed`},
		{"redis://:1@127.0.0.1:1/0", `dial tcp 127.0.0.1:1: connect: connection refused`, `dial tcp 127.0.0.1:1: connect: connection refused`},
		{"redis://:connection@127.0.0.1:1/0", `dial tcp 127.0.0.1:1: connect: connection refused`, `dial tcp 127.0.0.1:1: connect: connection refused`},
		{"redis://:6379@127.0.0.1:6379/0", `dial tcp 127.0.0.1:6379: connect: connection refused`, `dial tcp 127.0.0.1:6379: connect: connection refused`},
	} {
		if got := redactText(errors.New(c.text), c.raw); got != c.want {
			t.Errorf("redactText(%q, %s) = %q, want %q", c.text, c.raw, got, c.want)
		}
	}
}
