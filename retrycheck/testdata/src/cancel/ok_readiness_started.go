package cancel

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"testing"
	"time"

	retry "github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
)

// Readiness waits on a server the code itself started (issue 36's second survey: kratos
// twice, dendrite): any answer but the 200 awaited, a 404 before its routes are up, is
// worth asking again. None is reported.

// A test helper (it is given a *testing.T) waits for the server the test started, in a
// library loop's attempt, logging the body of each answer.
func waitToComeAlive(t *testing.T, publicURL string) {
	err := retry.Do(func() error {
		res, err := http.Get(publicURL + "/health/ready")
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Logf("%s", body)
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("expected status code 200 but got: %d", res.StatusCode)
		}
		return nil
	}, retry.Attempts(60))
	if err != nil {
		t.Fatal(err)
	}
}

// A function that starts a process and waits, in backoff.Retry's attempt, for its API.
func runMailServer(port int) (string, error) {
	cmd := exec.Command("mailhog", "-api-bind-addr", fmt.Sprintf("127.0.0.1:%d", port))
	if err := cmd.Start(); err != nil {
		return "", err
	}
	api := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := backoff.Retry(func() error {
		res, err := http.Get(api + "/api/v2/messages")
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("expected status code 200 but got: %d", res.StatusCode)
		}
		return nil
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 15)); err != nil {
		return "", err
	}
	return api, nil
}

type containers interface {
	ContainerStart(ctx context.Context, id string) error
}

// A tool starts a container and waits, in a hand-written loop, for it to answer.
func runImage(docker containers, id, versionsURL string) (url string, err error) {
	ctx := context.Background()
	err = docker.ContainerStart(ctx, id)
	if err != nil {
		return "", fmt.Errorf("failed to ContainerStart: %s", err)
	}
	var lastErr error
	for i := 0; i < 500; i++ {
		var res *http.Response
		res, err = http.Get(versionsURL)
		if err != nil {
			lastErr = fmt.Errorf("GET %s => error: %s", versionsURL, err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if res.StatusCode != 200 {
			lastErr = fmt.Errorf("GET %s => HTTP %s", versionsURL, res.Status)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		lastErr = nil
		break
	}
	return versionsURL, lastErr
}
