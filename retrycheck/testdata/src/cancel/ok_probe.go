package cancel

import (
	"net/http"
	"time"
)

// A readiness probe: it only reads the status and closes the body; any answer but 200
// from a server coming up is worth asking again.
func waitReady(client *http.Client, url string) bool {
	for i := 0; i < 50; i++ {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}
