package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/retrykit/retry/retryhttp"
)

const wantAbsoluteURL = "want an absolute http:// or https:// URL"

// parseTarget parses retry http's URL argument: an absolute http:// or https:// URL. Its
// error says what is wrong without the user info, query values or fragment, which may hold
// secrets. It shows the URL as rawURL's redacted text even when the URL parses: that hides
// every query value, where retryhttp.RedactURL hides those of SecretParams, and whatever
// precedes an '@', which RedactURL keeps in the path or the opaque part of a URL without a
// host ("user:pw@host" parses as scheme "user").
func parseTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	r := splitRawURL(raw)
	switch {
	case r.head == "" && !r.hasUser:
		// No scheme ("example.com", "127.0.0.1:8080/x"): whatever else the parser says
		// ("first path segment in URL cannot contain colon"), the scheme is what is missing.
		return nil, fmt.Errorf("URL %q is invalid: %s", r.text(0), wantAbsoluteURL)
	case err != nil:
		return nil, fmt.Errorf("URL %q is invalid: %s", r.text(0), r.problem())
	case u.Host == "" || u.Scheme == "":
		return nil, fmt.Errorf("URL %q is invalid: %s", r.text(0), wantAbsoluteURL)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("URL %q is invalid: scheme %q is not supported; %s", r.text(0), u.Scheme, wantAbsoluteURL)
	}
	return u, nil
}

// rawURL is a URL argument split by its delimiters alone, without parsing it, so that the
// parts that may hold secrets can be left out of a message even when it does not parse.
type rawURL struct {
	head     string // the scheme and "://", when it starts with them
	user     string // the user info: everything before the last '@' ahead of the query
	rest     string // host, port and path
	query    string
	fragment string

	hasUser, hasQuery, hasFragment bool
}

// urlPart is a part of a URL that may hold a secret; text shows those it is given.
type urlPart uint8

const (
	userPart urlPart = 1 << iota
	queryPart
	fragmentPart
)

var urlPartNames = []struct {
	part urlPart
	name string
}{{userPart, "user info"}, {queryPart, "query"}, {fragmentPart, "fragment"}}

func splitRawURL(s string) rawURL {
	var r rawURL
	s, r.fragment, r.hasFragment = strings.Cut(s, "#")
	s, r.query, r.hasQuery = strings.Cut(s, "?")
	if i := strings.Index(s, "://"); i > 0 && isScheme(s[:i]) {
		r.head, s = s[:i+3], s[i+3:]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		r.user, r.hasUser, s = s[:i], true, s[i+1:]
	}
	r.rest = s
	return r
}

// text returns the URL with the parts of show as they are and the others hidden: the user
// info as REDACTED, every query value as REDACTED (names kept), the fragment left out.
func (r rawURL) text(show urlPart) string {
	var b strings.Builder
	b.WriteString(r.head)
	if r.hasUser {
		b.WriteString(pick(show&userPart != 0, r.user, retryhttp.Redacted) + "@")
	}
	b.WriteString(r.rest)
	if r.hasQuery {
		b.WriteString("?" + pick(show&queryPart != 0, r.query, redactQueryValues(r.query)))
	}
	if r.hasFragment && show&fragmentPart != 0 {
		b.WriteString("#" + r.fragment)
	}
	return b.String()
}

// problem says why the URL does not parse. When the redacted text does not parse either,
// its parse error says why (it holds no secret); otherwise it names the hidden part that
// does not parse, without showing it.
func (r rawURL) problem() string {
	if _, err := url.Parse(r.text(0)); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return strings.TrimPrefix(err.Error(), "net/url: ")
	}
	for _, p := range urlPartNames {
		if _, err := url.Parse(r.text(p.part)); err != nil {
			what := "is malformed"
			if errors.As(err, new(url.EscapeError)) {
				what = "has a bad %-escape"
			}
			return fmt.Sprintf("the %s %s (not shown: it may hold a secret)", p.name, what)
		}
	}
	return "it does not parse (the parts not shown may hold a secret)"
}

// redactQueryValues replaces the value of every parameter of query q with REDACTED, and a
// parameter without a name with REDACTED whole.
func redactQueryValues(q string) string {
	parts := strings.Split(q, "&")
	for i, part := range parts {
		if name, _, ok := strings.Cut(part, "="); ok {
			parts[i] = name + "=" + retryhttp.Redacted
		} else if part != "" {
			parts[i] = retryhttp.Redacted
		}
	}
	return strings.Join(parts, "&")
}

// isScheme reports whether s is a URL scheme (RFC 3986 section 3.1): a letter, then
// letters, digits, '+', '-' and '.'.
func isScheme(s string) bool {
	for i, c := range s {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || strings.ContainsRune("+-.", c))) {
			return false
		}
	}
	return s != ""
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
