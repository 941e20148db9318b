package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/spf13/pflag"
)

// The flag values below implement pflag.Value. Each Set checks its input and, when it is
// bad, returns what is allowed; flagError (main.go) adds the flag's name and the value.

// durationValue is a Go duration (500ms, 2s, 1m30s) of at least min. With none set, the
// word "none" stores none (retry.NoLimit) and removes the bound.
type durationValue struct {
	d    *time.Duration
	min  time.Duration
	none *time.Duration
}

func (v durationValue) Set(s string) error {
	if v.none != nil && s == "none" {
		*v.d = *v.none
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < v.min {
		return fmt.Errorf("want %s", v.allowed())
	}
	*v.d = d
	return nil
}

func (v durationValue) allowed() string {
	s := "a Go duration such as 500ms, 2s or 1m30s"
	if v.min > 0 {
		s += ", greater than zero"
	} else {
		s += ", zero or more"
	}
	if v.none != nil {
		s += `, or "none" for no limit`
	}
	return s
}

func (v durationValue) String() string {
	if v.none != nil && *v.d == *v.none {
		return "none"
	}
	return v.d.String()
}

func (v durationValue) Type() string { return "DURATION" }

// intValue is a whole number in [min, max].
type intValue[T int | int64] struct {
	n        *T
	min, max T
}

func (v intValue[T]) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < int64(v.min) || n > int64(v.max) {
		return fmt.Errorf("want a whole number from %d to %d", v.min, v.max)
	}
	*v.n = T(n)
	return nil
}

func (v intValue[T]) String() string { return strconv.FormatInt(int64(*v.n), 10) }
func (v intValue[T]) Type() string   { return "N" }

// seedValue is an unsigned 64-bit seed; set records that one was given.
type seedValue struct {
	seed *uint64
	set  *bool
}

func (v seedValue) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(1<<64-1))
	}
	*v.seed, *v.set = n, true
	return nil
}

func (v seedValue) String() string {
	if !*v.set {
		return ""
	}
	return strconv.FormatUint(*v.seed, 10)
}

func (v seedValue) Type() string { return "N" }

// multiplierValue is a finite decimal number of at least 1 (backoff.Config.Multiplier).
type multiplierValue struct{ f *float64 }

func (v multiplierValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f < 1 {
		return fmt.Errorf("want a number of at least 1, such as 1.5 or 2")
	}
	*v.f = f
	return nil
}

func (v multiplierValue) String() string { return strconv.FormatFloat(*v.f, 'g', -1, 64) }
func (v multiplierValue) Type() string   { return "FACTOR" }

// rateValue is a finite number per second from 0 (the default of whoever reads it) to max;
// a max of +Inf bounds it only to finite numbers.
type rateValue struct {
	f   *float64
	max float64
}

func (v rateValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > v.max {
		if math.IsInf(v.max, 1) {
			return fmt.Errorf("want a number per second, 0 (the scenario's default) or more, such as 120")
		}
		return fmt.Errorf("want a number per second from 0 (the scenario's default) to %s, such as 120",
			strconv.FormatFloat(v.max, 'f', -1, 64))
	}
	*v.f = f
	return nil
}

func (v rateValue) String() string { return strconv.FormatFloat(*v.f, 'g', -1, 64) }
func (v rateValue) Type() string   { return "float" }

// choiceValue is one of a fixed list of names.
type choiceValue struct {
	s       *string
	choices []string
}

func (v choiceValue) Set(s string) error {
	for _, c := range v.choices {
		if s == c {
			*v.s = s
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(v.choices, ", "))
}

func (v choiceValue) String() string { return *v.s }
func (v choiceValue) Type() string   { return "NAME" }

// codeListValue is a comma-separated list of numbers in [min, max] (HTTP statuses, exit
// codes). The word named by word, when not empty, stores wordCodes instead: nil for "any"
// exit code, an empty list for "none" of the statuses, as the flag's help says.
type codeListValue struct {
	codes     *[]int
	min, max  int
	what      string // "HTTP statuses", "exit codes"
	example   string
	word      string
	wordCodes []int
}

func (v codeListValue) Set(s string) error {
	if v.word != "" && s == v.word {
		*v.codes = v.wordCodes
		return nil
	}
	var codes []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < v.min || n > v.max {
			return fmt.Errorf("want %s", v.allowed())
		}
		codes = append(codes, n)
	}
	*v.codes = codes
	return nil
}

func (v codeListValue) allowed() string {
	s := fmt.Sprintf("a comma-separated list of %s from %d to %d, such as %s", v.what, v.min, v.max, v.example)
	if v.word != "" {
		s += fmt.Sprintf(", or %q", v.word)
	}
	return s
}

func (v codeListValue) String() string {
	if v.word != "" && len(*v.codes) == 0 {
		return v.word
	}
	parts := make([]string, len(*v.codes))
	for i, n := range *v.codes {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func (v codeListValue) Type() string { return "CODES" }

// registerRetryOn registers --retry-on on fs: HTTP statuses, or none, stored in codes, which
// holds retry.DefaultRetryableStatuses until the flag is given.
func registerRetryOn(fs *pflag.FlagSet, codes *[]int, usage string) {
	*codes = append([]int(nil), retry.DefaultRetryableStatuses...)
	fs.Var(codeListValue{codes: codes, min: 100, max: 599, what: "HTTP statuses", example: "429,503",
		word: "none", wordCodes: []int{}}, "retry-on", usage)
}
