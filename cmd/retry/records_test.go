package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// JSON records keep a URL's & as it is: no \u0026 for an operator to decode.
func TestJSONRecordKeepsAmpersands(t *testing.T) {
	var buf bytes.Buffer
	r := &recorder{w: &buf, json: true}
	start := time.Now()
	l, err := retry.NewLoop(nil, start, time.Time{}, false, slog.String("method", "GET"), slog.String("url", "http://127.0.0.1/x?a=1&b=2"))
	if err != nil {
		t.Fatal(err)
	}
	l.Next(start)
	d := l.Done(start, retry.Outcome{}, nil)
	d.HasDeadline = false // for a stable line
	r.decision(context.Background(), d)
	want := `{"attempt":1,"method":"GET","url":"http://127.0.0.1/x?a=1&b=2","elapsed_ms":0,"decision":"stop","reason":"success","outcome":"success"}` + "\n"
	if got := buf.String(); got != want || strings.Contains(got, `\u0026`) {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
}
