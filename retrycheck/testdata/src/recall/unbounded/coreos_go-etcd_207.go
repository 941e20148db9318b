// Seeded from https://github.com/coreos/go-etcd/pull/207: go-etcd retried forever when no
// machine of the cluster could be connected.
package unbounded

import (
	"net/http"
	"time"
)

func sendRequest(client *http.Client, machines []string, path string) (*http.Response, error) {
	for attempt := 0; ; attempt++ { // want `retry loop has no attempt bound, no deadline and no context check`
		resp, err := client.Get(machines[attempt%len(machines)] + path)
		if err == nil {
			return resp, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}
