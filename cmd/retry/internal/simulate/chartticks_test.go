package simulate

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The chart draws its own axes since it stopped importing gonum's plot package (issue 34).
func TestAxisTicksExamples(t *testing.T) {
	tests := []struct {
		top  float64
		want int
		got  []string
	}{
		{60, 6, []string{"0", "10", "20", "30", "40", "50", "60"}},
		{62.9, 6, []string{"0", "20", "40", "60"}},
		{315, 5, []string{"0", "100", "200", "300"}},
		{21000, 5, []string{"0", "5000", "10000", "15000", "20000"}},
		{5.6, 6, []string{"0", "1", "2", "3", "4", "5"}},
		{2.25, 6, []string{"0", "0.5", "1", "1.5", "2"}},
		{0.35, 6, []string{"0", "0.1", "0.2", "0.3"}},
		{1, 5, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
	}
	for _, tt := range tests {
		var labels []string
		for _, tick := range axisTicks(tt.top, tt.want) {
			labels = append(labels, tick.label)
		}
		if !reflect.DeepEqual(labels, tt.got) {
			t.Errorf("axisTicks(%v, %d) = %q, want %q", tt.top, tt.want, labels, tt.got)
		}
	}
}

// TestAxisTicksProperties: from 0 to at most top in equal steps of 1, 2 or 5 times a power of
// ten, at most want of them and, with the next smaller such step, more than want; each label
// is the shortest decimal of its value, with no more decimals than the step.
func TestAxisTicksProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		top := rapid.Float64Range(1e-3, 1e7).Draw(t, "top")
		want := rapid.IntRange(3, 10).Draw(t, "want")
		ticks := axisTicks(top, want)
		if len(ticks) < 2 || ticks[0].value != 0 {
			t.Fatalf("ticks %v: want 0 and at least one step", ticks)
		}
		step := ticks[1].value
		last := ticks[len(ticks)-1].value
		if last > top || last+step <= top*(1-1e-12) {
			t.Fatalf("last tick %v, step %v: want the last multiple of the step up to %v", last, step, top)
		}
		if len(ticks)-1 > want {
			t.Fatalf("%d steps, want at most %d", len(ticks)-1, want)
		}
		exponent := math.Floor(math.Log10(step) + 1e-9)
		mantissa := math.Round(step / math.Pow10(int(exponent)))
		if mantissa != 1 && mantissa != 2 && mantissa != 5 {
			t.Fatalf("step %v is %v×10^%v, want 1, 2 or 5 times a power of ten", step, mantissa, exponent)
		}
		smaller := map[float64]float64{1: 0.5, 2: 1, 5: 2}[mantissa] * math.Pow10(int(exponent))
		if top/smaller <= float64(want)*(1-1e-12) {
			t.Fatalf("step %v, but %v gives %v steps, at most %d", step, smaller, top/smaller, want)
		}
		for i, tick := range ticks {
			if math.Abs(tick.value-float64(i)*step) > step*1e-9 {
				t.Fatalf("tick %d is %v, want %d×%v", i, tick.value, i, step)
			}
			if tick.label != strconv.FormatFloat(tick.value, 'f', -1, 64) {
				t.Fatalf("tick %v labelled %q", tick.value, tick.label)
			}
			if _, decimals, _ := strings.Cut(tick.label, "."); len(decimals) > max(0, -int(exponent)) {
				t.Fatalf("tick %d labelled %q, a step of %v: a rounding error shows", i, tick.label, step)
			}
		}
	})
}
