// Seeded from https://github.com/clarkzjw/starlink_exporter/pull/65: the retry of the gRPC
// connection at start-up had no maximum and could loop forever on a persistent failure.
package unbounded

import (
	"log"
	"time"
)

type exporter struct{}

func newExporter(address string) (*exporter, error) { return &exporter{}, nil }

func connect(address string) *exporter {
	retryDelay := 1
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		exporterClient, err := newExporter(address)
		if err == nil {
			return exporterClient
		}
		log.Printf("could not start exporter: %v; retrying in %ds", err, retryDelay)
		time.Sleep(time.Duration(retryDelay) * time.Second)
		retryDelay *= 2
	}
}
