package rewind

import (
	"io"
	"net/http"

	"github.com/avast/retry-go/v4"
)

func postReaderInClosure(url string, payload io.Reader) error {
	return retry.Do(func() error {
		resp, err := http.Post(url, "application/octet-stream", payload) // want `body payload is read to its end by the first attempt of retry-go Do: later attempts send it empty`
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}
