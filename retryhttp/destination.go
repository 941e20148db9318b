package retryhttp

import (
	"hash/maphash"
	"net/url"
	"sync/atomic"

	"github.com/retrykit/retry/breaker"
)

// destinationKeys remembers the destination keys (breaker.Key) of the URLs seen most
// recently, so that a request to a host seen before finds its breaker, budget and rate gate
// without building the key's string anew: a cache of destinationSlots entries, each slot
// holding the last scheme and host hashed to it.
var destinationKeys struct {
	seed  maphash.Seed
	slots [destinationSlots]atomic.Pointer[destination]
}

// destinationSlots is the size of the destination key cache.
const destinationSlots = 64

// destination is one entry of the destination key cache.
type destination struct {
	scheme, host, key string
}

func init() { destinationKeys.seed = maphash.MakeSeed() }

// destinationKey returns breaker.Key(u), from the cache when u's scheme and host are there.
func destinationKey(u *url.URL) string {
	var h maphash.Hash
	h.SetSeed(destinationKeys.seed)
	h.WriteString(u.Scheme)
	h.WriteString(u.Host)
	slot := &destinationKeys.slots[h.Sum64()%destinationSlots]
	if d := slot.Load(); d != nil && d.host == u.Host && d.scheme == u.Scheme {
		return d.key
	}
	key := breaker.Key(u)
	slot.Store(&destination{scheme: u.Scheme, host: u.Host, key: key})
	return key
}
