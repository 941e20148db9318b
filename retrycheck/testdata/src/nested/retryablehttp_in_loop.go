package nested

import (
	"net/http"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

func retryablehttpInLoop(url string) (*http.Response, error) {
	client := retryablehttp.NewClient()
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		resp, err = client.Get(url) // want `nested retries: retryablehttp.Client.Get at retryablehttp_in_loop.go:15 runs inside each attempt of a hand-written retry loop \(line 13\): 3 × 5 = 15 calls`
		if err == nil {
			return resp, nil
		}
		time.Sleep(2 * time.Second)
	}
	return nil, err
}
