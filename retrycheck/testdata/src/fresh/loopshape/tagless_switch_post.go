// Fresh case (issue 36, loops not recognised): a POST retried after a transport error by
// a loop whose success exit is a switch case.
package loopshape

import (
	"bytes"
	"fmt"
	"net/http"
	"time"
)

func sendEvent(url string, payload []byte) error {
	var err error
	for tries := 0; tries < 3; tries++ {
		var resp *http.Response
		resp, err = http.Post(url, "application/json", bytes.NewReader(payload)) // want `POST sent again by a hand-written retry loop after a transport error`
		switch {
		case err == nil && resp.StatusCode == http.StatusAccepted:
			resp.Body.Close()
			return nil
		case err == nil && resp.StatusCode < 500:
			resp.Body.Close()
			return fmt.Errorf("event rejected: %s", resp.Status)
		case err == nil:
			resp.Body.Close()
		}
		time.Sleep(500 * time.Millisecond)
	}
	return err
}
