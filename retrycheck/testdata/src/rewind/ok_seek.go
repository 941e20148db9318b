package rewind

import (
	"io"
	"net/http"
	"os"
	"time"
)

// The file is rewound before each attempt.
func seekBack(client *http.Client, url string, f *os.File) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		req, _ := http.NewRequest("PUT", url, f)
		resp, err := client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}
