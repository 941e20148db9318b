package write

import (
	"net/http"
	"time"
)

// The method is not known here: nothing is reported.
func methodUnknown(client *http.Client, method, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest(method, url, nil)
		var resp *http.Response
		resp, err = client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
