package simulate

import (
	"math"
	"strconv"
)

// tick is a labelled value on an axis of the chart.
type tick struct {
	value float64
	label string // the value's shortest decimal form: 5000, 2.5, 0.3
}

// axisTicks returns the ticks of an axis from 0 to top (above 0): 0 and every multiple of
// one step up to top, the step being the least of 1, 2 or 5 times a power of ten that gives
// at most want steps up to top. With want at least 3, that step is at most top.
func axisTicks(top float64, want int) []tick {
	exponent := int(math.Floor(math.Log10(top / float64(want))))
	multiplier := 10
	for _, m := range []int{1, 2, 5} {
		if top/(float64(m)*math.Pow10(exponent)) <= float64(want) {
			multiplier = m
			break
		}
	}
	var ticks []tick
	for i := 0; ; i++ {
		// i×multiplier×10^exponent, computed so that it is the double nearest that decimal
		// (3 steps of 0.1 give 0.3, not 0.30000000000000004).
		v := float64(i*multiplier) * math.Pow10(exponent)
		if exponent < 0 {
			v = float64(i*multiplier) / math.Pow10(-exponent)
		}
		if v > top {
			return ticks
		}
		ticks = append(ticks, tick{value: v, label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
}
