package backoff_test

import (
	"fmt"
	"time"

	"github.com/retrykit/retry/backoff"
)

// Exponential ceilings from 0.5 s doubling to an 8 s cap, and a full jitter draw under each,
// reproducible with a fixed seed.
func Example_fullJitter() {
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

// The schedule of Google's client libraries: waits of 1, 2, 4, 8, 16 s, each plus up to 1000
// random milliseconds, for n = 0 to 4, then the error is unrecoverable: about 31 to 36 s of
// waiting in all.
func Example_additiveJitter() {
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

// Base × 2^n × a factor in [0.5, 1.5): proportional jitter.
func Example_proportionalJitter() {
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

// Constant and linear schedules.
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

// A multiplier other than 2, as gRPC's connection backoff uses: ceilings from 1 s growing by
// 1.6 a retry up to a 120 s cap, each wait then drawn within ±20 % of its ceiling.
func ExampleConfig_multiplier() {
	s, err := backoff.New(backoff.Config{Base: time.Second, Multiplier: 1.6, Max: 120 * time.Second,
		Jitter: backoff.ProportionalJitter, FactorMin: 0.8, FactorMax: 1.2})
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	for _, n := range []int{0, 1, 2, 3, 10, 11} {
		low, high := s.Bounds(n, 0)
		fmt.Printf("retry %2d: ceiling %v, wait in [%v, %v]\n", n, s.Ceiling(n), low, high)
	}
	// Output:
	// exponential base=1s multiplier=1.6 max=2m0s jitter=proportional factor=[0.8,1.2]
	// retry  0: ceiling 1s, wait in [800ms, 1.2s]
	// retry  1: ceiling 1.6s, wait in [1.28s, 1.92s]
	// retry  2: ceiling 2.56s, wait in [2.048s, 3.072s]
	// retry  3: ceiling 4.096s, wait in [3.2768s, 4.9152s]
	// retry 10: ceiling 1m49.951162778s, wait in [1m27.960930223s, 2m11.941395333s]
	// retry 11: ceiling 2m0s, wait in [1m36s, 2m24s]
}
