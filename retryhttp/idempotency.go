package retryhttp

import (
	"crypto/rand"
	"encoding/hex"
)

// DefaultIdempotencyKeyHeader is the header that carries an idempotency key when
// Transport.IdempotencyKeyHeader is empty (draft-ietf-httpapi-idempotency-key-header).
const DefaultIdempotencyKeyHeader = "Idempotency-Key"

// NewIdempotencyKey returns a fresh random key: a version 4 UUID (RFC 9562) from
// crypto/rand, such as "3b241101-e2bb-4255-8caf-4136c566a962". It is safe for concurrent use.
func NewIdempotencyKey() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	hex.Encode(s[9:13], b[4:6])
	hex.Encode(s[14:18], b[6:8])
	hex.Encode(s[19:23], b[8:10])
	hex.Encode(s[24:], b[10:])
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
	return string(s[:])
}
