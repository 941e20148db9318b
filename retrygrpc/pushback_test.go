package retrygrpc

import (
	"strconv"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

func TestServerPushback(t *testing.T) {
	info := func(d *durationpb.Duration) *status.Status {
		st, err := status.New(codes.Unavailable, "x").WithDetails(&errdetails.RetryInfo{RetryDelay: d})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	for _, tt := range []struct {
		name    string
		trailer []string
		st      *status.Status
		want    pushback
	}{
		{"none", nil, status.New(codes.Unavailable, "x"), pushback{}},
		{"trailer 200", []string{"200"}, nil, pushback{wait: 200 * time.Millisecond, from: PushbackTrailer, has: true}},
		{"trailer 0", []string{"0"}, nil, pushback{from: PushbackTrailer, has: true}},
		{"trailer -1", []string{"-1"}, nil, pushback{noRetry: true}},
		{"trailer malformed", []string{"2s"}, nil, pushback{noRetry: true}},
		{"trailer twice", []string{"1", "2"}, nil, pushback{noRetry: true}},
		{"trailer too large", []string{"9223372036854775807"}, nil, pushback{noRetry: true}},
		{"RetryInfo 5s", nil, info(durationpb.New(5 * time.Second)), pushback{wait: 5 * time.Second, from: "retry-info", has: true}},
		{"RetryInfo negative", nil, info(durationpb.New(-time.Second)), pushback{noRetry: true}},
		{"RetryInfo invalid", nil, info(&durationpb.Duration{Seconds: 1, Nanos: -5}), pushback{noRetry: true}},
		{"RetryInfo without delay", nil, info(nil), pushback{}},
		{"both: the longer", []string{"300"}, info(durationpb.New(time.Second)), pushback{wait: time.Second, from: "retry-info", has: true}},
		{"both: the longer trailer", []string{"3000"}, info(durationpb.New(time.Second)), pushback{wait: 3 * time.Second, from: PushbackTrailer, has: true}},
		{"both: one malformed", []string{"x"}, info(durationpb.New(time.Second)), pushback{noRetry: true}},
	} {
		var md metadata.MD
		if tt.trailer != nil {
			md = metadata.MD{PushbackTrailer: tt.trailer}
		}
		if got := serverPushback(md, tt.st); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// The trailer's parser: a value is a wait exactly when it is a non-negative count of
// milliseconds that fits a Duration; anything else asks not to retry.
func FuzzPushbackTrailer(f *testing.F) {
	for _, s := range []string{"200", "-1", "", "0", "1e3", " 5", "+5", "9223372036854"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		got := serverPushback(metadata.MD{PushbackTrailer: {value}}, nil)
		ms, err := strconv.ParseInt(value, 10, 64)
		valid := err == nil && ms >= 0 && ms <= int64(time.Duration(1<<63-1)/time.Millisecond)
		if got.noRetry == valid || got.has != valid || (valid && got.wait != time.Duration(ms)*time.Millisecond) {
			t.Errorf("%q: %+v", value, got)
		}
	})
}
