package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/retrykit/retry/retryhttp"
)

// notShown stands for an argument that a message leaves out because it may hold a secret.
const notShown = "(not shown: it may hold a secret)"

// parseHeader splits --header argument h, the n-th (from 1), into its name and value, both
// trimmed. Its error says what is wrong without the value, which may be a secret: it shows
// the name when the name is valid, else only h's position and the character at fault.
func parseHeader(h string, n int) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	hidden := fmt.Sprintf("--header #%d %s is invalid", n, notShown)
	switch {
	case !ok:
		return "", "", fmt.Errorf("%s: no ':' between name and value; want 'Name: value'", hidden)
	case name == "":
		return "", "", fmt.Errorf("%s: the name is empty; want 'Name: value'", hidden)
	}
	if i := strings.IndexFunc(name, notTokenChar); i >= 0 {
		c, _ := utf8.DecodeRuneInString(name[i:])
		return "", "", fmt.Errorf("%s: the name holds %q; want a name of letters, digits and !#$%%&'*+-.^_`|~", hidden, c)
	}
	if i := strings.IndexAny(value, "\r\n\x00"); i >= 0 {
		return "", "", fmt.Errorf("--header %q is invalid: the value holds %q; a header value cannot hold CR, LF or NUL",
			name+": "+retryhttp.Redacted, rune(value[i]))
	}
	return name, value, nil
}

// notTokenChar reports whether c cannot be in an HTTP field name (RFC 9110 section 5.1: a
// token).
func notTokenChar(c rune) bool {
	return c <= ' ' || c >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c)
}
