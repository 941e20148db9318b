package retryhttp_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// cannedTransport answers every request with the same response, allocating nothing.
type cannedTransport struct{ resp http.Response }

func (c *cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.resp.Body, c.resp.Request = http.NoBody, r
	return &c.resp, nil
}

// What the Transport allocates on a GET that succeeds at once, beside its base transport's
// (issue 34: at most 3 allocations more than plain net/http): without time limits, the call
// and the request copy that carries the attempt's context; with the default 30 s Timeout,
// the loop's deadline context too (context.WithDeadline: 4). A change that adds one fails
// here, where a benchmark would only show it.
func TestAllocationsOfAGET(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *retry.Policy
		want float64
	}{
		{"no time limits", &retry.Policy{Timeout: retry.NoLimit}, 2},
		{"the default policy", nil, 6},
	} {
		tr := &retryhttp.Transport{Base: &cannedTransport{resp: http.Response{StatusCode: 200, Header: http.Header{}}}, Policy: c.p}
		req, _ := http.NewRequest(http.MethodGet, "http://example.test/x", nil)
		get := func() {
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		get() // the destination's gates, budget and key, made once
		if n := testing.AllocsPerRun(200, get); n != c.want {
			t.Errorf("%s: %v allocations a GET, want %v", c.name, n, c.want)
		}
	}
}
