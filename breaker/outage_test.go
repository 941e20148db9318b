package breaker

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// outageRun is what a breaker did in one outage: the requests that reached the sick service,
// and when the first call succeeded after it recovered.
type outageRun struct {
	sick          int           // calls admitted while the service was down
	openedAt      time.Duration // the first opening
	firstSuccess  time.Duration // the first success's end, from the outage's start
	afterRecovery time.Duration // firstSuccess - the outage's length
}

// The client of the outage measurements: a call starts every outageGap (concurrently), each
// admitted call takes outageLatency; the service fails every call (503, with a Retry-After of
// retryAfter when positive) for the outage's length, from t = 0, and succeeds afterwards.
const (
	outageGap     = 100 * time.Millisecond
	outageLatency = 50 * time.Millisecond
)

// runOutage plays an outage of length outage against a breaker made with cfg, on synctest's
// clock, until the first success after the recovery.
func runOutage(t *testing.T, cfg Config, outage, retryAfter time.Duration) outageRun {
	var r outageRun
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		cfg.OnStateChange = func(_, to State, at time.Time) {
			mu.Lock()
			if to == StateOpen && r.openedAt == 0 {
				r.openedAt = at.Sub(start)
			}
			mu.Unlock()
		}
		b, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for done := false; !done; {
			mu.Lock()
			done = r.firstSuccess != 0
			mu.Unlock()
			if token, admitted, _ := b.Allow(); admitted {
				sent := time.Since(start)
				down := sent < outage
				if down {
					mu.Lock()
					r.sick++
					mu.Unlock()
				}
				wg.Go(func() {
					time.Sleep(outageLatency)
					if down {
						b.DoneRetryAfter(token, fail, retryAfter)
						return
					}
					mu.Lock()
					if r.firstSuccess == 0 {
						r.firstSuccess = time.Since(start)
					}
					mu.Unlock()
					b.Done(token, ok)
				})
			}
			time.Sleep(outageGap)
		}
		wg.Wait()
	})
	r.afterRecovery = r.firstSuccess - outage
	return r
}

// Issue 32 item 5, measured: requests that reach a sick service and refusals after it
// recovers, for outages of 30 s (the target: no more than 3 requests, the first
// success within 1 s of recovery), 31 s ("today a 31 s outage costs 60 s of refusals"),
// 90 s and 10 min, under the defaults and under the alternatives weighed for them. Each cell
// gives the requests, the refusal time after recovery (first success − recovery), and their
// means over the 30 outages one second apart from that length on, since an outage of exactly
// 90 s or 10 min ends just as a trial of the fixed 30 s comes. The defaults' exact rows are
// asserted; `go test ./breaker -run OutageTable -v` prints the table the README and the
// package documentation quote.
func TestOutageTable(t *testing.T) {
	outages := []time.Duration{30 * time.Second, 31 * time.Second, 90 * time.Second, 10 * time.Minute}
	rows := []struct {
		name       string
		cfg        Config
		retryAfter time.Duration
	}{
		{"defaults (30 s, fixed), 503 without Retry-After", Config{}, 0},
		{"OpenTimeoutMultiplier 1.5", Config{OpenTimeoutMultiplier: 1.5}, 0},
		{"OpenTimeoutMultiplier 2", Config{OpenTimeoutMultiplier: 2}, 0},
		{"defaults, Retry-After: 1", Config{}, time.Second},
		{"MinOpenTimeout 1 s, Retry-After: 1", Config{MinOpenTimeout: time.Second}, time.Second},
		{"MinOpenTimeout 1 s, multiplier 2, Retry-After: 1", Config{MinOpenTimeout: time.Second, OpenTimeoutMultiplier: 2}, time.Second},
		{"defaults, Retry-After: 31", Config{}, 31 * time.Second},
	}
	var table strings.Builder
	table.WriteString("| breaker, the outage's 503s |")
	for _, o := range outages {
		fmt.Fprintf(&table, " %v outage |", o)
	}
	fmt.Fprintf(&table, "\n|---|%s\n", strings.Repeat("---|", len(outages)))
	var defaults []outageRun
	for i, row := range rows {
		fmt.Fprintf(&table, "| %s |", row.name)
		for _, outage := range outages {
			r := runOutage(t, row.cfg, outage, row.retryAfter)
			if i == 0 {
				defaults = append(defaults, r)
			}
			var sick int
			var after time.Duration
			const spread = 30
			for k := range spread {
				m := runOutage(t, row.cfg, outage+time.Duration(k)*time.Second, row.retryAfter)
				sick, after = sick+m.sick, after+m.afterRecovery
			}
			fmt.Fprintf(&table, " %d, %.1f s (mean %.1f, %.1f s) |", r.sick, r.afterRecovery.Seconds(), float64(sick)/spread,
				(after / spread).Seconds())
		}
		table.WriteString("\n")
	}
	t.Log("\n" + table.String())
	// The defaults: 3 failures open the breaker at 250 ms (the third call's end); its trial
	// calls start 30 s after each opening (plus up to a gap), and end outageLatency later.
	for i, want := range []outageRun{
		{sick: 3, firstSuccess: 30*time.Second + 350*time.Millisecond},
		{sick: 4, firstSuccess: 60*time.Second + 450*time.Millisecond},
		{sick: 5, firstSuccess: 90*time.Second + 550*time.Millisecond},
		{sick: 22, firstSuccess: 10*time.Minute + 2250*time.Millisecond},
	} {
		if r := defaults[i]; r.sick != want.sick || r.firstSuccess != want.firstSuccess {
			t.Errorf("defaults, %v outage: %d requests, first success at %v; want %d, %v", outages[i], r.sick, r.firstSuccess,
				want.sick, want.firstSuccess)
		}
	}
}
