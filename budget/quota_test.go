package budget

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/retrykit/retry"
)

// A Quota with the zero config is the default budget: 20 retries, one back per success.
func TestQuotaDefaults(t *testing.T) {
	q, err := NewQuota(QuotaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	granted := 0
	for q.AllowRetry() {
		granted++
	}
	if granted != DefaultQuotaRetries {
		t.Fatalf("%d retries granted from full, want %d", granted, DefaultQuotaRetries)
	}
	q.Done(false, retry.ResultFailure)
	q.Done(true, retry.ResultIgnored)
	if q.AllowRetry() {
		t.Fatal("a failure or an ignored result gave a retry back")
	}
	q.Done(true, retry.ResultSuccess)
	if got := q.Retries(); got != 1 || !q.AllowRetry() {
		t.Errorf("%v retries after a success, want 1", got)
	}
}

// Bad settings are refused with the field, its value and what is allowed.
func TestQuotaConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  QuotaConfig
		want string
	}{
		{QuotaConfig{Retries: -1}, "Retries -1 out of range: must be from 1 to 1048576"},
		{QuotaConfig{Retries: 1 << 21}, "Retries 2097152 out of range"},
		{QuotaConfig{Refill: 0.0001}, "Refill 0.0001 out of range: must be from 0.001 to 1.048576e+06"},
		{QuotaConfig{Refill: -2}, "Refill -2 out of range"},
	} {
		_, err := NewQuota(tc.cfg)
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewQuota(%+v) = %v; want ErrInvalidConfig with %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := NewGroup(GroupConfig{Quota: &QuotaConfig{}, TokenBucket: &TokenBucketConfig{}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Quota and TokenBucket both set: %v, want ErrInvalidConfig", err)
	}
	if _, err := NewGroup(GroupConfig{Quota: &QuotaConfig{}, Ratio: RatioConfig{Ratio: 0.2}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Quota and Ratio both set: %v, want ErrInvalidConfig", err)
	}
	if _, err := NewGroup(GroupConfig{Quota: &QuotaConfig{Retries: -3}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("an invalid Quota in a group: %v, want ErrInvalidConfig", err)
	}
}

// A group with a Quota config gives each destination a Quota of its own; one made outside a
// testing/synctest bubble works inside it, as a retry loop's budget.
func TestGroupOfQuotas(t *testing.T) {
	g, err := NewGroup(GroupConfig{Quota: &QuotaConfig{Retries: 2}})
	if err != nil {
		t.Fatal(err)
	}
	sick, healthy := g.Budget("http://sick.test:80"), g.Budget("http://healthy.test:80")
	if _, ok := sick.(*Quota); !ok {
		t.Fatalf("budget is %T, want *Quota", sick)
	}
	synctest.Test(t, func(t *testing.T) {
		for call := range 3 {
			attempts := 0
			err := retry.Do(context.Background(), &retry.Policy{Budget: sick, Backoff: retry.DefaultBackoff},
				func(context.Context) error { attempts++; return errors.New("down") })
			if want := []int{3, 1, 1}[call]; attempts != want {
				t.Errorf("call %d to the sick host: %d attempts (%v), want %d", call, attempts, err, want)
			}
		}
		if !healthy.AllowRetry() {
			t.Error("the sick host's failures spent the healthy host's quota")
		}
	})
}
