package retryhttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxBodyPrefix is how much of the body of a response of status 400 or more the Transport
// reads to learn why it failed (see judgeBody): 8 KiB, within the 64 KiB (maxDrain) it
// reads anyway to drain a response it does not return.
const maxBodyPrefix = 8 << 10

// readPrefix reads up to limit bytes of resp's body, for at most maxDrainTime, and returns
// them; the body then gives them again before the rest, so that its reader gets it whole
// and unchanged. A body that ends within them is closed and replaced by its bytes, as
// preload does. A body that breaks, or that is still short of limit after maxDrainTime (a
// trickle must not hold the attempt: it is closed), gives the bytes that came and then an
// error saying so.
func readPrefix(resp *http.Response, limit int64) []byte {
	body := resp.Body
	if body == nil || body == http.NoBody {
		return nil
	}
	t := time.AfterFunc(maxDrainTime, func() { body.Close() })
	buf, err := io.ReadAll(io.LimitReader(body, limit))
	late := !t.Stop()
	switch {
	case err == nil && int64(len(buf)) < limit: // the whole body
		body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(buf))
	case late:
		body.Close()
		err = fmt.Errorf("retryhttp: the response body (status %d) gave %d bytes within %v; the Transport closed it", resp.StatusCode, len(buf), maxDrainTime)
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(buf), failingReader{err}))
	case err != nil:
		body.Close()
		err = fmt.Errorf("retryhttp: reading the response body (status %d) after %d bytes: %w", resp.StatusCode, len(buf), err)
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(buf), failingReader{err}))
	default:
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), body), body}
	}
	return buf
}
