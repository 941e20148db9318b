package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/retrykit/retry"
)

// JSON records keep a URL's & as it is: no \u0026 for an operator to decode.
func TestJSONRecordKeepsAmpersands(t *testing.T) {
	var buf bytes.Buffer
	r := &recorder{w: &buf, json: true}
	r.decision(retry.Decision{Attempt: 1, Method: "GET", URL: "http://127.0.0.1/x?a=1&b=2", Reason: retry.ReasonSuccess, Class: retry.ClassSuccess})
	want := `{"attempt":1,"method":"GET","url":"http://127.0.0.1/x?a=1&b=2","elapsed_ms":0,"decision":"stop","reason":"success","outcome":"success"}` + "\n"
	if got := buf.String(); got != want || strings.Contains(got, `\u0026`) {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
}
