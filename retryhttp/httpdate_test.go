package retryhttp

import (
	"net/http"
	"testing"
	"time"
)

// Issue 16 item 4: IMF-fixdate's common near-misses are read, and nothing looser.
func TestParseHTTPDateNearMisses(t *testing.T) {
	want := time.Date(2019, 6, 3, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{
		"Mon, 03 Jun 2019 12:00:00 GMT", // IMF-fixdate itself
		"Mon, 3 Jun 2019 12:00:00 GMT",  // a one-digit day
		"Mon, 3 Jun 2019 12:00:00 UTC",  // and UTC (urllib3's test)
		"Mon, 03 Jun 2019 12:00:00 UTC",
		"Mon, 03 Jun 2019 12:00:00 +0000",
		"Mon, 3 Jun 2019 12:00:00 +0000",
	} {
		if got, err := parseHTTPDate(v); err != nil || !got.Equal(want) {
			t.Errorf("parseHTTPDate(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{
		"Mon, 3 Jun 2019 12:00:00 PST",   // another zone
		"Mon, 3 Jun 2019 12:00:00 +0100", // another offset
		"Mon, 3 Jun 2019 12:00:00 -0000",
		"Mon, 3 Jun 2019 12:00:00 utc",
		"Mon, 3 Jun 19 12:00:00 UTC",     // a two-digit year
		"Mon 3 Jun 2019 12:00:00 UTC",    // no comma
		"Mon, 3 Jun 2019 12:00 UTC",      // no seconds
		"Mon,  3 Jun 2019 12:00:00 UTC",  // two spaces
		"Mon, 3 jun 2019 12:00:00 UTC",   // the month in lower case
		"Mon, 3 Jun 2019 2:00:00 UTC",    // a one-digit hour
		"Mon, 3 Jun 2019 12:00:00.5 UTC", // fractional seconds
		"Xyz, 3 Jun 2019 12:00:00 UTC",   // no such day
		"Mon, 003 Jun 2019 12:00:00 UTC", // a three-digit day
		"Mon, 32 Jun 2019 12:00:00 UTC",  // no such date
		"Mon, 3 Jun 2019 12:00:00 UTC UTC",
		"Mon, 3 Jun 2019 12:00:00 GMT+0000",
		"3 Jun 2019 12:00:00 UTC",
	} {
		if got, err := parseHTTPDate(v); err == nil {
			t.Errorf("parseHTTPDate(%q) = %v, want an error", v, got)
		}
	}
}

// Whatever parseHTTPDate reads that http.ParseTime does not is exactly a near-miss of the
// IMF-fixdate of the time it returns: the same text with a one- or two-digit day and the
// zone GMT, UTC or +0000 (the day name is not checked against the date, as http.ParseTime
// does not check it).
func FuzzParseHTTPDate(f *testing.F) {
	for _, s := range []string{"Mon, 3 Jun 2019 12:00:00 UTC", "Mon, 03 Jun 2019 12:00:00 +0000", "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Mon, 3 jun 2019 2:00:00.5 UTC", "Mon,  3 Jun 2019 12:00:00 UTC"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := parseHTTPDate(v)
		if err != nil {
			return
		}
		if _, strictErr := http.ParseTime(v); strictErr == nil {
			return
		}
		if len(v) < 5 {
			t.Fatalf("parseHTTPDate(%q) = %v", v, got)
		}
		rest := got.Format(" Jan 2006 15:04:05 ")
		for _, day := range []string{got.Format("2"), got.Format("02")} {
			for _, zone := range []string{"GMT", "UTC", "+0000"} {
				if v == v[:5]+day+rest+zone {
					return
				}
			}
		}
		t.Fatalf("parseHTTPDate(%q) = %v: not a near-miss of its IMF-fixdate", v, got)
	})
}
