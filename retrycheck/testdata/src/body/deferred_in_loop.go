package body

import (
	"net/http"
	"time"
)

func deferredInLoop(client *http.Client, req *http.Request) (int, error) {
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		resp, err = client.Do(req) // want `response body closed by a defer, which runs only when the function returns: every attempt's response stays open through the retries`
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return resp.StatusCode, nil
		}
		time.Sleep(time.Second)
	}
	return 0, err
}
