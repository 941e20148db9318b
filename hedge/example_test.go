package hedge_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/hedge"
	"github.com/retrykit/retry/retryhttp"
)

// One Hedger per destination: each host's delay follows its own latencies, and its own 2 %
// budget bounds its hedges.
func ExampleGroup() {
	hedges, err := hedge.NewGroup(hedge.GroupConfig{MaxKeys: 256})
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: &retryhttp.Transport{
		Policy: &retry.Policy{Timeout: 5 * time.Second},
		Hedges: hedges, // GETs, PUTs, DELETEs and keyed POSTs that are slow get a hedge
	}}
	_ = client
	h := hedges.Hedger("https://api.example.com:443").(*hedge.Hedger)
	fmt.Println("until 667 latencies are in, hedge after", h.Delay())
	// Output: until 667 latencies are in, hedge after 1s
}

// A fixed delay, two hedges an attempt, and no hedge budget of its own: the policy's retry
// budget, which counts every hedge as a retry, is then the only bound on the extra load.
func ExampleNew() {
	h, err := hedge.New(hedge.Config{Delay: 30 * time.Millisecond, MaxHedges: 2, Budget: retry.None})
	if err != nil {
		panic(err)
	}
	delay, hedges := h.Attempt()
	fmt.Println(delay, hedges)
	// Output: 30ms 2
}
