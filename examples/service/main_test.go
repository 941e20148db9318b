package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The -once run prints both checkouts, the counts of the scripted upstreams and the metrics.
func TestRunOnce(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-once"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"== checkout 1: 201 {\"order\":\"o-1\",\"price\":\"12.50\",\"sku\":\"a\",\"stock\":7}\n",
		"== checkout 2: 201 {\"order\":\"o-1\",\"price\":\"12.50\",\"sku\":\"a\",\"stock\":7}\n",
		"== pricing requests 3; orders requests 3, orders created 1\n",
		`"Name": "retry.stops"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// -addr must be a loopback address.
func TestRunRejectsOtherAddresses(t *testing.T) {
	err := run(context.Background(), []string{"-addr", "0.0.0.0:8080"}, new(bytes.Buffer))
	if err == nil || err.Error() != `-addr "0.0.0.0:8080" is not a loopback address and port: use 127.0.0.1:PORT` {
		t.Errorf("err = %v", err)
	}
}
