package cancel

import (
	"io"
	"net/http"
	"strings"
)

// A 404 is retried only when its body says the service is not there yet (eventual
// consistency right after creation): the body decides, which the analysis cannot read.
func isRetryableLag(rsp *http.Response, lagging func(method, body string) bool) bool {
	switch rsp.StatusCode {
	case http.StatusNotFound:
		b, _ := io.ReadAll(rsp.Body)
		if lagging(rsp.Request.Method, string(b)) {
			return true
		}
	case http.StatusServiceUnavailable:
		return true
	}
	return strings.HasPrefix(rsp.Status, "5")
}
