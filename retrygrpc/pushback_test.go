package retrygrpc

import (
	"log/slog"
	"math"
	"strconv"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"pgregory.net/rapid"
)

func TestServerPushback(t *testing.T) {
	info := func(d *durationpb.Duration) *status.Status {
		st, err := status.New(codes.Unavailable, "x").WithDetails(&errdetails.RetryInfo{RetryDelay: d})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	noRetry := func(key, value string) pushback { return pushback{noRetry: true, why: slog.String(key, value)} }
	for _, tt := range []struct {
		name    string
		trailer []string
		st      *status.Status
		want    pushback
	}{
		{"none", nil, status.New(codes.Unavailable, "x"), pushback{}},
		{"trailer 200", []string{"200"}, nil, pushback{wait: 200 * time.Millisecond, from: PushbackTrailer, has: true}},
		{"trailer 0", []string{"0"}, nil, pushback{from: PushbackTrailer, has: true}},
		{"trailer largest", []string{"2147483647"}, nil, pushback{wait: 2147483647 * time.Millisecond, from: PushbackTrailer, has: true}},
		{"trailer -1", []string{"-1"}, nil, noRetry(keyPushback, "-1")},
		{"trailer smallest", []string{"-2147483648"}, nil, noRetry(keyPushback, "-2147483648")},
		// Issue 23 item 2: gRFC A6's form only. 007 was read as 7 ms, 2147483648 as 24.8 days.
		{"trailer leading zeros", []string{"007"}, nil, noRetry(keyPushback, "007")},
		{"trailer past int32", []string{"2147483648"}, nil, noRetry(keyPushback, "2147483648")},
		{"trailer below int32", []string{"-2147483649"}, nil, noRetry(keyPushback, "-2147483649")},
		{"trailer -0", []string{"-0"}, nil, noRetry(keyPushback, "-0")},
		{"trailer +5", []string{"+5"}, nil, noRetry(keyPushback, "+5")},
		{"trailer 1.5", []string{"1.5"}, nil, noRetry(keyPushback, "1.5")},
		{"trailer empty", []string{""}, nil, noRetry(keyPushback, "")},
		{"trailer malformed", []string{"2s"}, nil, noRetry(keyPushback, "malformed")},
		{"trailer with a space", []string{" 5"}, nil, noRetry(keyPushback, "malformed")},
		{"trailer twice", []string{"1", "2"}, nil, noRetry(keyPushback, "1,2")},
		{"trailer too large", []string{"9223372036854775807"}, nil, noRetry(keyPushback, "9223372036854775807")},
		{"RetryInfo 5s", nil, info(durationpb.New(5 * time.Second)), pushback{wait: 5 * time.Second, from: "retry-info", has: true}},
		{"RetryInfo negative", nil, info(durationpb.New(-time.Second)), noRetry(keyRetryInfoDelay, "negative")},
		{"RetryInfo invalid", nil, info(&durationpb.Duration{Seconds: 1, Nanos: -5}), noRetry(keyRetryInfoDelay, "invalid")},
		{"RetryInfo without delay", nil, info(nil), pushback{}},
		{"both: the longer", []string{"300"}, info(durationpb.New(time.Second)), pushback{wait: time.Second, from: "retry-info", has: true}},
		{"both: the longer trailer", []string{"3000"}, info(durationpb.New(time.Second)), pushback{wait: 3 * time.Second, from: PushbackTrailer, has: true}},
		{"both: one malformed", []string{"x"}, info(durationpb.New(time.Second)), noRetry(keyPushback, "malformed")},
	} {
		var md metadata.MD
		if tt.trailer != nil {
			md = metadata.MD{PushbackTrailer: tt.trailer}
		}
		got := serverPushback(md, tt.st)
		if got.wait != tt.want.wait || got.from != tt.want.from || got.has != tt.want.has || got.noRetry != tt.want.noRetry ||
			!got.why.Equal(tt.want.why) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// checkPushbackValue checks what serverPushback makes of one trailer value: a wait exactly
// when the value is a non-negative int32 written as strconv writes it (gRFC A6: no sign but
// "-", no unnecessary leading zeros), and otherwise a request not to retry that the record
// names.
func checkPushbackValue(t interface{ Errorf(string, ...any) }, value string) {
	got := serverPushback(metadata.MD{PushbackTrailer: {value}}, nil)
	n, err := strconv.ParseInt(value, 10, 32)
	canonical := err == nil && strconv.FormatInt(n, 10) == value
	valid := canonical && n >= 0
	switch {
	case got.noRetry == valid || got.has != valid:
		t.Errorf("%q: %+v, want a wait %v", value, got, valid)
	case valid && (got.wait != time.Duration(n)*time.Millisecond || got.from != PushbackTrailer):
		t.Errorf("%q: wait %v from %q, want %d ms from the trailer", value, got.wait, got.from, n)
	case !valid && got.why.Key != keyPushback:
		t.Errorf("%q: the stop names %+v, want %s", value, got.why, keyPushback)
	}
	if ms, ok := parsePushback(value); ok != canonical || ok && int64(ms) != n {
		t.Errorf("parsePushback(%q) = %d, %v; want %d, %v", value, ms, ok, n, canonical)
	}
}

// The trailer's parser against strconv (issue 23 item 2).
func FuzzPushbackTrailer(f *testing.F) {
	for _, s := range []string{"200", "-1", "", "0", "007", "-0", "00", "1e3", " 5", "+5", "1.5",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "9223372036854", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) { checkPushbackValue(t, value) })
}

// Every int32, written as a server writes it, is read back exactly (a wait from 0, a request
// not to retry below); the same digits with a leading zero, a plus sign or one past the
// range ask not to retry.
func TestPushbackProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.Int32().Draw(rt, "ms")
		s := strconv.FormatInt(int64(n), 10)
		checkPushbackValue(rt, s)
		checkPushbackValue(rt, "0"+s)
		checkPushbackValue(rt, "+"+s)
		if ms, ok := parsePushback(s); !ok || ms != n {
			rt.Errorf("parsePushback(%q) = %d, %v; want %d", s, ms, ok, n)
		}
		beyond := int64(math.MaxInt32) + 1 + int64(rapid.Uint32().Draw(rt, "beyond"))
		for _, v := range []string{strconv.FormatInt(beyond, 10), strconv.FormatInt(-beyond-1, 10)} {
			if _, ok := parsePushback(v); ok {
				rt.Errorf("parsePushback(%q) accepted a value outside int32", v)
			}
		}
	})
}
