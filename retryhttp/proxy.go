package retryhttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// ProxyConnectError is the error of an attempt whose proxy answered the CONNECT request of
// an https:// URL with a status other than 200, as reported by [CheckProxyConnect]. The
// request itself never reached the origin server. The Transport classifies the proxy's
// status like any status: a status in the policy's RetryableStatuses (by default 408, 429,
// 500, 502, 503, 504) is retried, for writes too, after the proxy's Retry-After if it sent
// one; any other (407 Proxy Authentication Required, 403, ...) stops the loop at once with
// retry.ReasonNonRetryableError.
type ProxyConnectError struct {
	// Status is the proxy's status code, such as 407.
	Status int
	// Proxy is the proxy's URL, redacted as RedactURL writes it (no password).
	Proxy string
	// RetryAfter is the wait the proxy asked for with Retry-After, counted from when its
	// answer arrived; meaningful only when HasRetryAfter is true.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// RetryAfterFrom names the header RetryAfter came from, in lower case ("retry-after",
	// "retry-after-ms", ...); "" without a wait.
	RetryAfterFrom string
}

// Error says which proxy refused the tunnel and with which status, as "retryhttp: proxy
// http://proxy.example:3128 answered CONNECT with 407 Proxy Authentication Required".
func (e *ProxyConnectError) Error() string {
	return fmt.Sprintf("retryhttp: proxy %s answered CONNECT with %d %s", e.Proxy, e.Status, http.StatusText(e.Status))
}

// CheckProxyConnect has the signature of http.Transport.OnProxyConnectResponse: set it
// there on the base transport of a [Transport] so that a proxy's refusal of a CONNECT
// tunnel is classified by its status. It returns a *ProxyConnectError for any status other
// than 200, and nil for 200. Without it, net/http reports such a refusal as an error holding
// only the proxy's reason phrase, which the Transport can only treat as a transport error,
// retrying even a 407. A plain-HTTP proxy needs no hook: its statuses are the response's.
// It is safe for concurrent use.
func CheckProxyConnect(_ context.Context, proxy *url.URL, _ *http.Request, resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	e := &ProxyConnectError{Status: resp.StatusCode, Proxy: RedactURL(proxy)}
	e.RetryAfter, e.RetryAfterFrom, e.HasRetryAfter = responseWait(resp.Header, time.Now())
	return e
}

// proxyRefusal returns the *ProxyConnectError in err, or nil.
func proxyRefusal(err error) *ProxyConnectError {
	var e *ProxyConnectError
	if errors.As(err, &e) {
		return e
	}
	return nil
}
