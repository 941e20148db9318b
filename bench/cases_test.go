package bench

import "testing"

// benchCases runs each case as a sub-benchmark lib=NAME, on one goroutine or, with
// parallel, on GOMAXPROCS goroutines sharing what the case shares.
func benchCases(b *testing.B, cases []doCase, parallel bool) {
	for _, c := range cases {
		b.Run("lib="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			if !parallel {
				for b.Loop() {
					if err := c.do(); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := c.do(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
