package retryhttp

import (
	"strings"
	"unicode/utf8"
)

// This file reads Structured Field Lists (RFC 9651, which obsoletes RFC 8941), the syntax
// of the IETF RateLimit and RateLimit-Policy fields, without allocating: a member's name and
// parameters are substrings of the field value. A field that does not parse is malformed
// as a whole (RFC 9651 section 4.2: "fail parsing", and the field is ignored).

// sfList reads the members of a List (RFC 9651 section 4.2.1) one by one: see next.
type sfList struct {
	s       string
	i       int
	started bool
	bad     bool // the value is not a List: whatever next returned before is void
}

// sfMember is a member of a List: an Item or an Inner List, with its parameters.
type sfMember struct {
	// name is the member's bare item when it is a String (its content, escapes still in:
	// see sfUnescape) or a Token; named says it is one of them.
	name  string
	named bool
	// params is the member's parameters as written, each starting with ';', already
	// checked: read them with sfParam.
	params string
}

// sfKind is the type of a bare item (RFC 9651 section 3.3).
type sfKind uint8

const (
	sfInteger sfKind = iota + 1
	sfDecimal
	sfString
	sfToken
	sfBytes
	sfBoolean
	sfDate
	sfDisplayString
)

// sfBare is a bare item: its kind, its text (a String's content between the quotes,
// escapes still in; the other kinds as written) and an Integer's or a Date's value.
type sfBare struct {
	kind sfKind
	text string
	n    int64
}

// next returns the next member of the List; false at its end, or when the value turns out
// not to be a List (l.bad is then set, and the members returned before are void).
func (l *sfList) next() (m sfMember, ok bool) {
	if l.bad {
		return m, false
	}
	if !l.started {
		l.started = true
		for l.i < len(l.s) && l.s[l.i] == ' ' {
			l.i++
		}
	}
	if l.i >= len(l.s) {
		return m, false
	}
	if m, ok = l.member(); !ok {
		l.bad = true
		return sfMember{}, false
	}
	// What follows a member: optional whitespace, then the end or a comma and another one.
	l.skipOWS()
	if l.i < len(l.s) {
		if l.s[l.i] != ',' {
			l.bad = true
			return sfMember{}, false
		}
		l.i++
		l.skipOWS()
		if l.i >= len(l.s) { // a trailing comma
			l.bad = true
			return sfMember{}, false
		}
	}
	return m, true
}

func (l *sfList) skipOWS() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

func (l *sfList) skipSP() {
	for l.i < len(l.s) && l.s[l.i] == ' ' {
		l.i++
	}
}

// member parses an Item or an Inner List with its parameters (RFC 9651 section 4.2.1.1).
func (l *sfList) member() (m sfMember, ok bool) {
	if l.s[l.i] == '(' {
		l.i++
		for {
			l.skipSP()
			if l.i >= len(l.s) {
				return m, false
			}
			if l.s[l.i] == ')' {
				l.i++
				break
			}
			if _, ok := l.bare(); !ok || !l.parameters() {
				return m, false
			}
			if l.i >= len(l.s) || l.s[l.i] != ' ' && l.s[l.i] != ')' {
				return m, false
			}
		}
	} else {
		b, ok := l.bare()
		if !ok {
			return m, false
		}
		if b.kind == sfString || b.kind == sfToken {
			m.name, m.named = b.text, true
		}
	}
	start := l.i
	if !l.parameters() {
		return m, false
	}
	m.params = l.s[start:l.i]
	return m, true
}

// parameters parses the parameters that follow an item (RFC 9651 section 4.2.3.2).
func (l *sfList) parameters() bool {
	for l.i < len(l.s) && l.s[l.i] == ';' {
		l.i++
		l.skipSP()
		if _, ok := l.key(); !ok {
			return false
		}
		if l.i < len(l.s) && l.s[l.i] == '=' {
			l.i++
			if _, ok := l.bare(); !ok {
				return false
			}
		}
	}
	return true
}

// key parses a parameter's key: a lowercase letter or '*', then lowercase letters, digits,
// '_', '-', '.' and '*' (RFC 9651 section 4.2.3.3).
func (l *sfList) key() (string, bool) {
	start := l.i
	if l.i >= len(l.s) || !(isLower(l.s[l.i]) || l.s[l.i] == '*') {
		return "", false
	}
	for l.i++; l.i < len(l.s); l.i++ {
		c := l.s[l.i]
		if !isLower(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' && c != '*' {
			break
		}
	}
	return l.s[start:l.i], true
}

// bare parses a bare item (RFC 9651 section 4.2.3.1).
func (l *sfList) bare() (b sfBare, ok bool) {
	if l.i >= len(l.s) {
		return b, false
	}
	switch c := l.s[l.i]; {
	case c == '-' || isDigit(c):
		return l.number()
	case c == '"':
		return l.quoted()
	case c == '*' || isAlpha(c):
		start := l.i
		for l.i++; l.i < len(l.s) && (isTchar(l.s[l.i]) || l.s[l.i] == ':' || l.s[l.i] == '/'); l.i++ {
		}
		return sfBare{kind: sfToken, text: l.s[start:l.i]}, true
	case c == ':':
		start := l.i + 1
		end := strings.IndexByte(l.s[start:], ':')
		if end < 0 {
			return b, false
		}
		text := l.s[start : start+end]
		if !isBase64(text) {
			return b, false
		}
		l.i = start + end + 1
		return sfBare{kind: sfBytes, text: text}, true
	case c == '?':
		if l.i+1 >= len(l.s) || l.s[l.i+1] != '0' && l.s[l.i+1] != '1' {
			return b, false
		}
		l.i += 2
		return sfBare{kind: sfBoolean, text: l.s[l.i-1 : l.i]}, true
	case c == '@':
		l.i++
		if b, ok = l.number(); !ok || b.kind != sfInteger {
			return b, false
		}
		b.kind = sfDate
		return b, true
	case c == '%':
		return l.display()
	}
	return b, false
}

// number parses an Integer or a Decimal (RFC 9651 section 4.2.4): at most 15 digits, or 12
// before the point and 3 after it.
func (l *sfList) number() (b sfBare, ok bool) {
	start := l.i
	negative := l.i < len(l.s) && l.s[l.i] == '-'
	if negative {
		l.i++
	}
	digits := l.i
	if l.i >= len(l.s) || !isDigit(l.s[l.i]) {
		return b, false
	}
	point := -1
	for ; l.i < len(l.s); l.i++ {
		c := l.s[l.i]
		if c == '.' && point < 0 {
			if l.i-digits > 12 {
				return b, false
			}
			point = l.i
			continue
		}
		if !isDigit(c) {
			break
		}
	}
	if point < 0 {
		if l.i-digits > 15 {
			return b, false
		}
		var n int64
		for i := digits; i < l.i; i++ {
			n = n*10 + int64(l.s[i]-'0')
		}
		if negative {
			n = -n
		}
		return sfBare{kind: sfInteger, text: l.s[start:l.i], n: n}, true
	}
	if frac := l.i - point - 1; frac < 1 || frac > 3 {
		return b, false
	}
	return sfBare{kind: sfDecimal, text: l.s[start:l.i]}, true
}

// quoted parses a String (RFC 9651 section 4.2.5): printable ASCII between double quotes,
// with \" and \\ the only escapes.
func (l *sfList) quoted() (b sfBare, ok bool) {
	start := l.i + 1
	for l.i = start; l.i < len(l.s); l.i++ {
		switch c := l.s[l.i]; {
		case c == '\\':
			l.i++
			if l.i >= len(l.s) || l.s[l.i] != '"' && l.s[l.i] != '\\' {
				return b, false
			}
		case c == '"':
			l.i++
			return sfBare{kind: sfString, text: l.s[start : l.i-1]}, true
		case c < 0x20 || c > 0x7e:
			return b, false
		}
	}
	return b, false // no closing quote
}

// display parses a Display String (RFC 9651 section 4.2.10): %" then printable ASCII and
// lowercase %xx escapes that together make valid UTF-8, then ".
func (l *sfList) display() (b sfBare, ok bool) {
	if l.i+1 >= len(l.s) || l.s[l.i+1] != '"' {
		return b, false
	}
	start := l.i + 2
	var r [utf8.UTFMax]byte // the bytes of a multi-byte character so far
	n, need := 0, 0
	for l.i = start; l.i < len(l.s); l.i++ {
		c := l.s[l.i]
		switch {
		case c < 0x20 || c > 0x7e:
			return b, false
		case c == '"' && need == 0:
			l.i++
			return sfBare{kind: sfDisplayString, text: l.s[start : l.i-1]}, true
		case c == '%':
			if l.i+2 >= len(l.s) || !isLowerHex(l.s[l.i+1]) || !isLowerHex(l.s[l.i+2]) {
				return b, false
			}
			c = unhex(l.s[l.i+1])<<4 | unhex(l.s[l.i+2])
			l.i += 2
		}
		switch {
		case need == 0 && c < utf8.RuneSelf:
		case need == 0:
			switch {
			case c >= 0xc2 && c <= 0xdf:
				need = 1
			case c >= 0xe0 && c <= 0xef:
				need = 2
			case c >= 0xf0 && c <= 0xf4:
				need = 3
			default:
				return b, false
			}
			r[0], n = c, 1
		default:
			r[n], n, need = c, n+1, need-1
			if need == 0 && !utf8.Valid(r[:n]) {
				return b, false
			}
		}
	}
	return b, false
}

// sfParam returns the last parameter named key in params, which sfList.member has checked
// (RFC 9651 section 4.2.3.2: a later one overrides an earlier one). A key without a value
// is the Boolean true.
func sfParam(params, key string) (v sfBare, ok bool) {
	l := sfList{s: params}
	for l.i < len(l.s) && l.s[l.i] == ';' {
		l.i++
		l.skipSP()
		k, _ := l.key()
		b := sfBare{kind: sfBoolean, text: "1"}
		if l.i < len(l.s) && l.s[l.i] == '=' {
			l.i++
			b, _ = l.bare()
		}
		if k == key {
			v, ok = b, true
		}
	}
	return v, ok
}

// sfUnescape returns a String's content with its escapes (\" and \\) resolved; it
// allocates only when there are any.
func sfUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isBase64 reports whether s is base64 (RFC 4648 section 4) that decodes, its "=" padding
// optional, as RFC 9651 section 4.2.7 asks of a Byte Sequence.
func isBase64(s string) bool {
	data := strings.TrimRight(s, "=")
	pad := len(s) - len(data)
	if pad > 2 || pad > 0 && len(s)%4 != 0 || len(data)%4 == 1 {
		return false
	}
	for i := 0; i < len(data); i++ {
		if c := data[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' {
			return false
		}
	}
	return true
}

func isLower(c byte) bool    { return c >= 'a' && c <= 'z' }
func isAlpha(c byte) bool    { return isLower(c) || c >= 'A' && c <= 'Z' }
func isLowerHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c - 'a' + 10
}

// isTchar reports whether c may appear in a token (RFC 9110 section 5.6.2).
func isTchar(c byte) bool {
	return isAlpha(c) || isDigit(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
