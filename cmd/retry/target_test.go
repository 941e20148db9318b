package main

import (
	"strings"
	"testing"
)

// FuzzParseTargetHidesSecrets: whatever surrounds them, the user info, a secret query value
// and the fragment of a URL argument never appear in parseTarget's error.
func FuzzParseTargetHidesSecrets(f *testing.F) {
	for _, s := range [][2]string{
		{"http://", "127.0.0.1:bad/"}, {"http://", "127.0.0.1/%zz"}, {"", "127.0.0.1:8080"},
		{"ftp://", "example.com/"}, {"http:/", "x/"}, {"", "x://y"}, {"http://", "[::1/"}, {"", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, head, rest string) {
		if strings.ContainsAny(head+rest, "@?#") || strings.Contains(strings.ToUpper(head+rest), "SEKRIT") {
			return // the fuzzed parts would move or fake the secret ones
		}
		raw := head + "user:SEKRIT42-u@" + rest + "?token=SEKRIT42-q#SEKRIT42-f"
		if _, err := parseTarget(raw); err != nil && strings.Contains(strings.ToUpper(err.Error()), "SEKRIT") {
			t.Errorf("parseTarget(%q): %v", raw, err)
		}
	})
}
