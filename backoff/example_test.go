package backoff_test

import (
	"fmt"
	"time"

	"github.com/retrykit/retry/backoff"
)

// Seed 004: exponential ceilings from 0.5 s doubling to an 8 s cap (SPEC R1.3), and a full
// jitter draw under each, reproducible with a fixed seed (SPEC R1.5).
func Example_seed004() {
	s, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: 500 * time.Millisecond,
		Max: 8 * time.Second, Jitter: backoff.FullJitter})
	if err != nil {
		panic(err)
	}
	fmt.Print("ceilings:")
	for n := range 6 {
		fmt.Printf(" %.2f", s.Ceiling(n).Seconds())
	}
	fmt.Print("\ndelays  :")
	for _, wait := range s.Schedule(6, backoff.NewSource(1)) {
		fmt.Printf(" %.2f", wait.Seconds())
	}
	fmt.Println()
	// Output:
	// ceilings: 0.50 1.00 2.00 4.00 8.00 8.00
	// delays  : 0.28 0.75 1.94 1.78 3.55 6.10
}

// Seeds 000/001, the Google-style schedule (SPEC R1.6): waits of 1, 2, 4, 8, 16 s, each plus
// up to 1000 random milliseconds, for n = 0 to 4, then the error is unrecoverable: about
// 31 to 36 s of waiting in all.
func Example_seed000() {
	s, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: time.Second,
		Max: 16 * time.Second, Jitter: backoff.AdditiveJitter})
	if err != nil {
		panic(err)
	}
	var total time.Duration
	for n, wait := range s.Schedule(5, backoff.NewSource(1)) {
		fmt.Printf("n=%d wait=%v = %v + %v\n", n, wait, s.Ceiling(n), wait-s.Ceiling(n))
		total += wait
	}
	fmt.Println("total:", total)
	// Output:
	// n=0 wait=1.567s = 1s + 567ms
	// n=1 wait=2.746s = 2s + 746ms
	// n=2 wait=4.971s = 4s + 971ms
	// n=3 wait=8.444s = 8s + 444ms
	// n=4 wait=16.444s = 16s + 444ms
	// total: 34.172s
}

// Seed 003: base × 2^n × a factor in [0.5, 1.5) (its Kotlin example).
func Example_seed003() {
	s, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: time.Second,
		Max: time.Minute, Jitter: backoff.ProportionalJitter})
	if err != nil {
		panic(err)
	}
	for n := range 4 {
		low, high := s.Bounds(n, 0)
		fmt.Printf("retry %d: [%v, %v)\n", n, low, high)
	}
	// Output:
	// retry 0: [500ms, 1.5s)
	// retry 1: [1s, 3s)
	// retry 2: [2s, 6s)
	// retry 3: [4s, 12s)
}

// Constant and linear schedules (SPEC R1.1, R1.2).
func ExampleNew() {
	constant, _ := backoff.New(backoff.Config{Kind: backoff.Constant, Base: 2 * time.Second, Jitter: backoff.NoJitter})
	linear, _ := backoff.New(backoff.Config{Kind: backoff.Linear, Base: time.Second, Max: time.Minute, Jitter: backoff.NoJitter})
	fmt.Println(constant.Schedule(3, nil))
	fmt.Println(linear.Schedule(3, nil))
	_, err := backoff.New(backoff.Config{Base: time.Second, Max: 500 * time.Millisecond})
	fmt.Println(err)
	// Output:
	// [2s 2s 2s]
	// [1s 2s 3s]
	// backoff: Max 500ms is below Base 1s: the cap must be at least the base
}
