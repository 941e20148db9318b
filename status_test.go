package retry

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Issue 16 items 2 and 3, RFC 9110 section 15: the status rules of Policy.Classify.
func TestClassifyStatusByRFC9110(t *testing.T) {
	tests := []struct {
		statuses   []int
		status     int
		retryAfter bool
		want       Class
	}{
		{nil, 503, false, ClassRetryable},
		{nil, 520, false, ClassRetryable}, // unregistered: as 500
		{nil, 522, false, ClassRetryable},
		{nil, 524, false, ClassRetryable},
		{nil, 599, false, ClassRetryable},
		{nil, 509, false, ClassRetryable},
		{nil, 501, false, ClassPermanent}, // registered, not listed
		{nil, 505, false, ClassPermanent},
		{nil, 499, false, ClassPermanent}, // unregistered: as 400, not listed
		{[]int{400}, 499, false, ClassRetryable},
		{[]int{400}, 404, false, ClassPermanent},
		{[]int{503}, 520, false, ClassPermanent},
		{[]int{}, 520, false, ClassPermanent},
		{nil, 299, false, ClassSuccess},
		{nil, 600, false, ClassRetryable}, // outside 100-599: invalid, never a success
		{nil, 999, false, ClassRetryable},
		{nil, 99, false, ClassRetryable},
		{[]int{}, 999, false, ClassRetryable},
		{nil, 413, true, ClassRetryable}, // Content Too Large with Retry-After: temporary
		{nil, 413, false, ClassPermanent},
		{[]int{503}, 413, true, ClassPermanent}, // a list of one's own decides alone
		{[]int{413}, 413, false, ClassRetryable},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%v/retry-after=%v", tt.status, tt.statuses, tt.retryAfter), func(t *testing.T) {
			p := &Policy{RetryableStatuses: tt.statuses}
			if got := p.Classify(Outcome{Status: tt.status, HasRetryAfter: tt.retryAfter}); got != tt.want {
				t.Errorf("Classify = %v, want %v", got, tt.want)
			}
		})
	}
}

// Every status the registry lists is recognised, and the ones RFC 9110 section 15 leaves
// unassigned in the ranges the rule above relies on are not.
func TestRegisteredStatus(t *testing.T) {
	for _, s := range []int{100, 103, 200, 208, 226, 300, 308, 400, 418, 421, 426, 428, 429, 431, 451, 500, 508, 510, 511} {
		if !registeredStatus(s) {
			t.Errorf("%d is registered", s)
		}
	}
	for _, s := range []int{104, 209, 306, 309, 419, 420, 427, 430, 450, 499, 509, 512, 520, 599} {
		if registeredStatus(s) {
			t.Errorf("%d is not registered", s)
		}
	}
}

// Any status, any list: a status outside 100-599 is never a success; inside, a status is
// retried exactly when it is listed, or unregistered with its x00 listed, or a 413 with
// Retry-After under the default list; otherwise 400 and above are permanent.
func TestPropertyClassifyStatus(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		status := rapid.OneOf(rapid.IntRange(1, 1200), rapid.IntRange(100, 599)).Draw(t, "status")
		var list []int
		if rapid.Bool().Draw(t, "own list") {
			list = rapid.SliceOfN(rapid.IntRange(100, 599), 0, 8).Draw(t, "list")
		}
		retryAfter := rapid.Bool().Draw(t, "retry-after")
		got := (&Policy{RetryableStatuses: list}).Classify(Outcome{Status: status, HasRetryAfter: retryAfter})
		effective := list
		if list == nil {
			effective = DefaultRetryableStatuses
		}
		want := ClassSuccess
		switch {
		case status < 100 || status > 599, slices.Contains(effective, status),
			!registeredStatus(status) && slices.Contains(effective, status/100*100),
			list == nil && status == 413 && retryAfter:
			want = ClassRetryable
		case status >= 400:
			want = ClassPermanent
		}
		if got != want {
			t.Fatalf("status %d, list %v, Retry-After %v: %v, want %v", status, list, retryAfter, got, want)
		}
	})
}
