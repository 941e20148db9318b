package retryhttp

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Redacted replaces every secret in a record, a log line or an error string.
const Redacted = "REDACTED"

// minSecretLen is the shortest secret value searched for inside error strings: shorter
// values would rewrite unrelated words. A URL's secrets are redacted whatever their length.
const minSecretLen = 4

// SensitiveHeaders are the request headers whose values never appear in a record, a log or
// an error of this package, matched case-insensitively. Bodies never appear at all. Treat it
// as read-only.
var SensitiveHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"}

// SecretParams are the URL query parameters whose values [RedactURL] replaces, matched
// case-insensitively. Treat it as read-only.
var SecretParams = []string{"token", "key", "api_key", "apikey", "access_token", "refresh_token",
	"id_token", "client_secret", "signature", "sig", "password", "secret", "x-amz-signature",
	"x-amz-credential", "x-amz-security-token", "x-goog-signature", "x-goog-credential"}

// RedactURL returns u as a string fit for a record or a log: the userinfo (user and password)
// becomes "REDACTED", so does the value of every query parameter named in [SecretParams],
// and the fragment is dropped (clients never send it, and OAuth puts tokens there). Other
// parts and the order of parameters are kept. RedactURL(nil) is "". It is safe for
// concurrent use.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	r := *u
	if r.User != nil {
		r.User = url.User(Redacted)
	}
	r.RawQuery = redactQuery(u.RawQuery)
	r.Fragment, r.RawFragment = "", ""
	return r.String()
}

func redactQuery(q string) string {
	if q == "" {
		return q
	}
	var b strings.Builder
	for q != "" {
		// Split on & and on ;, which many servers still accept as a separator.
		end := strings.IndexAny(q, "&;")
		if end < 0 {
			end = len(q)
		}
		part := q[:end]
		if k, _, _ := strings.Cut(part, "="); isSecretParam(k) {
			part = k + "=" + Redacted
		}
		b.WriteString(part)
		if end < len(q) {
			b.WriteByte(q[end])
			end++
		}
		q = q[end:]
	}
	return b.String()
}

func isSecretParam(raw string) bool {
	name, err := url.QueryUnescape(raw)
	if err != nil {
		name = raw
	}
	return slices.ContainsFunc(SecretParams, func(s string) bool { return strings.EqualFold(s, name) })
}

// RedactError returns err with the URL of any *url.Error in its chain redacted by
// [RedactURL] inside the message: http.Client wraps every failure in a *url.Error whose
// message embeds the request URL, query secrets included. The result unwraps to err, so
// errors.Is and errors.As still reach the *retry.Error and the cause. RedactError(nil) is nil.
// Errors from the Transport's own attempts are already redacted.
func RedactError(err error) error {
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) {
		return err
	}
	safe := Redacted
	if u, perr := url.Parse(ue.URL); perr == nil {
		safe = RedactURL(u)
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), ue.URL, safe), err: err}
}

// redactedError carries a redacted message and unwraps to the original error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactFor returns err with every secret of req removed from its message: the URL in its
// raw and password-stripped forms, and the values of the userinfo password, secret query
// parameters and sensitive headers. It returns err itself when the message holds none.
func redactFor(err error, req *http.Request) error {
	msg := err.Error()
	safe := strings.NewReplacer(secretPairs(req)...).Replace(msg)
	if safe == msg {
		return err
	}
	return &redactedError{msg: safe, err: err}
}

// secretPairs lists old, new pairs for a strings.Replacer: first the request URL in its raw
// and password-stripped forms (replaced by the redacted URL), then the secret values, longest
// first, so a URL is replaced whole before any of its parts.
func secretPairs(req *http.Request) []string {
	var pairs, secrets []string
	add := func(s string) {
		if len(s) >= minSecretLen {
			secrets = append(secrets, s)
		}
	}
	if u := req.URL; u != nil {
		safe := RedactURL(u)
		pairs = append(pairs, u.String(), safe, u.Redacted(), safe)
		if p, ok := u.User.Password(); ok {
			add(p)
			add(url.QueryEscape(p))
		}
		for _, part := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
			if k, v, _ := strings.Cut(part, "="); isSecretParam(k) {
				add(v)
				if dv, err := url.QueryUnescape(v); err == nil {
					add(dv)
				}
			}
		}
	}
	for _, name := range SensitiveHeaders {
		for _, v := range req.Header.Values(name) {
			add(v)
			if _, token, ok := strings.Cut(v, " "); ok {
				add(token) // "Bearer TOKEN": the token alone
			}
		}
	}
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, s := range secrets {
		pairs = append(pairs, s, Redacted)
	}
	return pairs
}
