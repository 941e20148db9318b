package budget

import (
	"errors"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

func requests(b retry.RetryBudget, n int, r retry.Result) {
	for range n {
		b.Done(false, r)
	}
}

func allowed(b retry.RetryBudget, n int) int {
	k := 0
	for range n {
		if b.AllowRetry() {
			k++
		}
	}
	return k
}

func TestRatioAllowsShareOfRequestsPlusFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 10% of requests, floor 0.5 retries a second over 10 s = 5 retries per window.
		b, _ := NewRatio(RatioConfig{MinRetriesPerSecond: 0.5})
		if got := allowed(b, 10); got != 5 {
			t.Fatalf("quiet client: %d retries allowed, want the floor's 5", got)
		}
		requests(b, 100, retry.ResultSuccess)
		if got := allowed(b, 20); got != 10 {
			t.Fatalf("after 100 requests: %d more retries, want 10 (15 in all)", got)
		}
		time.Sleep(9 * time.Second)
		if b.AllowRetry() {
			t.Fatal("retry allowed at 9 s: the window still holds 15 retries")
		}
		time.Sleep(time.Second) // all of it slides out
		if got := allowed(b, 10); got != 5 {
			t.Fatalf("after the window: %d retries allowed, want 5", got)
		}
	})
}

func TestRatioWindowSlidesByBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := NewRatio(RatioConfig{Ratio: 0.5, MinRetriesPerSecond: retry.None, Window: time.Second})
		requests(b, 4, retry.ResultFailure) // t = 0: bucket 0
		time.Sleep(500 * time.Millisecond)
		requests(b, 2, retry.ResultFailure) // bucket 5
		if got := allowed(b, 5); got != 3 {
			t.Fatalf("%d allowed, want 3 (half of 6)", got)
		}
		time.Sleep(500 * time.Millisecond) // bucket 10: bucket 0 (4 requests) leaves
		if got := allowed(b, 5); got != 0 {
			t.Fatalf("%d allowed, want 0 (3 retries > half of 2)", got)
		}
		requests(b, 4, retry.ResultSuccess)
		if got := allowed(b, 5); got != 0 {
			t.Fatalf("%d allowed, want 0 (3 retries = half of 6)", got)
		}
		requests(b, 2, retry.ResultIgnored)
		if got := allowed(b, 5); got != 1 {
			t.Fatalf("%d allowed, want 1 (4 retries = half of 8)", got)
		}
	})
}

func TestZeroRatioIsDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b Ratio
		if got := allowed(&b, 20); got != 10 { // floor: 1 a second for 10 s
			t.Fatalf("%d allowed, want 10", got)
		}
	})
}

func TestTokenBucketFollowsA6(t *testing.T) {
	b, _ := NewTokenBucket(TokenBucketConfig{MaxTokens: 4, TokenRatio: 0.5})
	if b.Tokens() != 4 || !b.AllowRetry() {
		t.Fatalf("starts with %v tokens", b.Tokens())
	}
	requests(b, 1, retry.ResultFailure) // 3 > 2
	if !b.AllowRetry() || b.Tokens() != 3 {
		t.Fatalf("%v tokens", b.Tokens())
	}
	requests(b, 1, retry.ResultFailure) // 2, not above half
	if b.AllowRetry() {
		t.Fatal("retry allowed with exactly half the tokens")
	}
	requests(b, 1, retry.ResultIgnored)
	requests(b, 1, retry.ResultSuccess) // 2.5
	if !b.AllowRetry() || b.Tokens() != 2.5 {
		t.Fatalf("%v tokens", b.Tokens())
	}
	requests(b, 10, retry.ResultFailure)
	if b.Tokens() != 0 {
		t.Fatalf("%v tokens, want 0 (never negative)", b.Tokens())
	}
	requests(b, 100, retry.ResultSuccess)
	if b.Tokens() != 4 {
		t.Fatalf("%v tokens, want 4 (never above MaxTokens)", b.Tokens())
	}
	var zero TokenBucket
	if zero.AllowRetry() {
		t.Error("the zero TokenBucket allowed a retry")
	}
}

func TestTokenBucketThousandths(t *testing.T) {
	for in, want := range map[float64]int64{0.1: 100, 0.3: 300, 0.0015: 1, 1.2345: 1234, 1000: 1000000} {
		if got := thousandths(in); got != want {
			t.Errorf("thousandths(%v) = %d, want %d", in, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{ratioConfigError(RatioConfig{Ratio: 1.5}), "Ratio 1.5 out of range: must be in (0, 1]"},
		{ratioConfigError(RatioConfig{Ratio: math.NaN()}), "Ratio NaN out of range"},
		{ratioConfigError(RatioConfig{MinRetriesPerSecond: -2}), "MinRetriesPerSecond -2 out of range"},
		{ratioConfigError(RatioConfig{MinRetriesPerSecond: math.Inf(1)}), "MinRetriesPerSecond +Inf out of range"},
		{ratioConfigError(RatioConfig{Window: time.Millisecond}), "Window 1ms out of range: must be at least 10ms"},
		{tokenConfigError(TokenBucketConfig{MaxTokens: 1001}), "MaxTokens 1001 out of range: must be in [0.001, 1000]"},
		{tokenConfigError(TokenBucketConfig{MaxTokens: 0.0004}), "MaxTokens 0.0004 out of range: must be in [0.001, 1000]"},
		{tokenConfigError(TokenBucketConfig{MaxTokens: -1}), "MaxTokens -1 out of range"},
		{tokenConfigError(TokenBucketConfig{TokenRatio: 0.0001}), "TokenRatio 0.0001 out of range: must be in [0.001, 1000]"},
	} {
		if tc.err == nil || !errors.Is(tc.err, ErrInvalidConfig) || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want an ErrInvalidConfig containing %q", tc.err, tc.want)
		}
	}
	for _, cfg := range []RatioConfig{{}, {Ratio: 1, MinRetriesPerSecond: retry.None, Window: MinWindow}} {
		if b, err := NewRatio(cfg); err != nil || b == nil {
			t.Errorf("NewRatio(%+v) = %v", cfg, err)
		}
	}
	for _, cfg := range []TokenBucketConfig{{}, {MaxTokens: 1000, TokenRatio: 1000}, {MaxTokens: 0.5, TokenRatio: 0.001}} {
		if b, err := NewTokenBucket(cfg); err != nil || b == nil {
			t.Errorf("NewTokenBucket(%+v) = %v", cfg, err)
		}
	}
}

func ratioConfigError(c RatioConfig) error {
	b, err := NewRatio(c)
	if b != nil {
		return nil
	}
	return err
}

func tokenConfigError(c TokenBucketConfig) error {
	b, err := NewTokenBucket(c)
	if b != nil {
		return nil
	}
	return err
}

// The exchanges a transport re-sent by itself count as requests and as retries already made
// (issue 15 item 3): with ratio 0.5 and no floor, 4 requests allow 2 retries; one retry and
// one re-send leave none.
func TestRatioCountsResends(t *testing.T) {
	b, err := NewRatio(RatioConfig{Ratio: 0.5, MinRetriesPerSecond: retry.None})
	if err != nil {
		t.Fatal(err)
	}
	var _ retry.ResendCounter = b
	for range 4 {
		b.Done(false, retry.ResultSuccess)
	}
	if !b.AllowRetry() {
		t.Fatal("the first retry of 4 requests was refused")
	}
	b.Resent(0) // counts nothing
	b.Resent(1) // 5 requests, 2 retries: a third would pass 2.5
	if b.AllowRetry() {
		t.Error("a retry was allowed beside a retry and a re-send within 5 requests at ratio 0.5")
	}
}
