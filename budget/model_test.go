package budget

import (
	"fmt"
	"math"
	"math/big"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"pgregory.net/rapid"
)

type budgetOp struct {
	kind   int // 0 AllowRetry, 1 Done, 2 sleep
	retry  bool
	result retry.Result
	sleep  time.Duration
}

func (o budgetOp) String() string {
	switch o.kind {
	case 0:
		return "allow"
	case 1:
		return fmt.Sprintf("done(%v, %v)", o.retry, o.result)
	}
	return fmt.Sprintf("sleep(%v)", o.sleep)
}

func drawOps(rt *rapid.T) []budgetOp {
	return rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) budgetOp {
		return budgetOp{
			kind:   rapid.IntRange(0, 2).Draw(rt, "kind"),
			retry:  rapid.Bool().Draw(rt, "retry"),
			result: retry.Result(rapid.IntRange(0, 2).Draw(rt, "result")),
			sleep:  time.Duration(rapid.IntRange(1, 60).Draw(rt, "sleep")) * 13 * time.Millisecond,
		}
	}), 40, 300).Draw(rt, "ops")
}

// ratioModel keeps every event with its time and counts those whose bucket is one of the
// last ten, in exact rational arithmetic.
type ratioModel struct {
	ratio, floor *big.Rat
	window       time.Duration
	epoch        time.Time
	events       []ratioEvent
}

type ratioEvent struct {
	at    time.Time
	retry bool // a retry allowed; otherwise a request
}

func (m *ratioModel) count(now time.Time) (requests, retries int64) {
	width := m.window / buckets
	for _, e := range m.events {
		if e.at.Sub(m.epoch)/width > now.Sub(m.epoch)/width-buckets {
			if e.retry {
				retries++
			} else {
				requests++
			}
		}
	}
	return requests, retries
}

func (m *ratioModel) allow(now time.Time) bool {
	requests, retries := m.count(now)
	limit := new(big.Rat).Mul(m.ratio, big.NewRat(requests, 1))
	if big.NewRat(retries+1, 1).Cmp(limit.Add(limit, m.floor)) > 0 {
		return false
	}
	m.events = append(m.events, ratioEvent{now, true})
	return true
}

// TestRatioModel checks a Ratio against the model on random sequences of requests, retries
// asked for and clock steps, under synctest's clock.
func TestRatioModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cfg := RatioConfig{
			Ratio:  float64(rapid.IntRange(1, 100).Draw(rt, "ratioPercent")) / 100,
			Window: time.Duration(rapid.IntRange(1, 20).Draw(rt, "window")) * 100 * time.Millisecond,
		}
		floor := new(big.Rat)
		switch k := rapid.IntRange(-1, 4).Draw(rt, "floorHalves"); k {
		case -1:
			cfg.MinRetriesPerSecond = retry.None
		case 0:
			floor.Mul(big.NewRat(1, 1), big.NewRat(int64(cfg.Window/time.Millisecond), 1000))
		default:
			cfg.MinRetriesPerSecond = float64(k) / 2
			floor.Mul(big.NewRat(int64(k), 2), big.NewRat(int64(cfg.Window/time.Millisecond), 1000))
		}
		ratio := big.NewRat(int64(math.Round(cfg.Ratio*100)), 100) // the decimal the user wrote
		ops := drawOps(rt)
		var msg string
		synctest.Test(t, func(t *testing.T) {
			b, _ := NewRatio(cfg)
			m := &ratioModel{ratio: ratio, floor: floor, window: cfg.Window, epoch: time.Now()}
			for i, o := range ops {
				now := time.Now()
				switch o.kind {
				case 0:
					if got, want := b.AllowRetry(), m.allow(now); got != want {
						msg = fmt.Sprintf("step %d %v at %v: AllowRetry = %v, model %v", i, o, now.Sub(m.epoch), got, want)
						return
					}
				case 1:
					b.Done(o.retry, o.result)
					m.events = append(m.events, ratioEvent{now, false})
				case 2:
					time.Sleep(o.sleep)
				}
			}
		})
		if msg != "" {
			rt.Fatal(msg)
		}
	})
}

// TestTokenBucketModel checks a TokenBucket against gRFC A6's rules in exact rational
// arithmetic.
func TestTokenBucketModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		maxTokens := rapid.IntRange(1, 20).Draw(rt, "maxTokens")
		ratioMilli := rapid.IntRange(1, 3000).Draw(rt, "ratioThousandths")
		b, err := NewTokenBucket(TokenBucketConfig{MaxTokens: float64(maxTokens), TokenRatio: float64(ratioMilli) / 1000})
		if err != nil {
			rt.Fatal(err)
		}
		max := big.NewRat(int64(maxTokens), 1)
		half := big.NewRat(int64(maxTokens), 2)
		gain := big.NewRat(int64(ratioMilli), 1000)
		tokens := new(big.Rat).Set(max)
		for i, o := range drawOps(rt) {
			switch o.kind {
			case 0:
				if got, want := b.AllowRetry(), tokens.Cmp(half) > 0; got != want {
					rt.Fatalf("step %d: AllowRetry = %v with %v tokens, model %v", i, got, tokens.FloatString(3), want)
				}
			case 1:
				b.Done(o.retry, o.result)
				switch o.result {
				case retry.ResultFailure:
					if tokens.Sub(tokens, big.NewRat(1, 1)); tokens.Sign() < 0 {
						tokens.SetInt64(0)
					}
				case retry.ResultSuccess:
					if tokens.Add(tokens, gain); tokens.Cmp(max) > 0 {
						tokens.Set(max)
					}
				}
			}
			if got, _ := new(big.Rat).SetFloat64(b.Tokens()).Float64(); got != mustFloat(tokens) {
				rt.Fatalf("step %d %v: %v tokens, model %v", i, o, b.Tokens(), tokens.FloatString(3))
			}
		}
	})
}

func mustFloat(r *big.Rat) float64 { f, _ := r.Float64(); return f }
