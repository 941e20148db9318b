package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

var runs atomic.Int64

// TestOnce runs the program as `metrics -once -requests 3`: three requests of three
// attempts each (503, 429, 200) and one 404; it must end by itself and show exact counts in
// both exports.
func TestOnce(t *testing.T) {
	var out bytes.Buffer
	// expvar names are process-wide: a fresh one per run keeps -count=N working.
	name := fmt.Sprintf("retry_test_%d", runs.Add(1))
	if err := run(context.Background(), []string{"-once", "-requests", "3", "-expvar", name}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		`"attempts": 10,`, `"retries": 6,`, `"successes_after_retry": 3,`,
		`"non_retryable_status": 1,`, `"success": 3`,
		`"Name": "retry.attempts"`, `"Name": "retry.stops"`, `"Name": "retry.wait.duration"`,
		`"Name": "retry.attempt.duration"`, `"Value": "retry_after"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	if t.Failed() {
		t.Log(s)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-requests", "0"}, {"-addr", "0.0.0.0:8080"}, {"-addr", "example.com:80"}} {
		if err := run(context.Background(), args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
