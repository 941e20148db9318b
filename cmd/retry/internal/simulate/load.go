package simulate

import (
	"slices"
	"time"
)

// load counts requests reaching the server in buckets of step, for the chart and for peak
// rates.
type load struct {
	step   time.Duration
	counts []float64
}

func newLoad(step time.Duration) *load { return &load{step: step} }

// add counts one request at virtual time t.
func (l *load) add(t time.Duration) {
	k := int(t / l.step)
	for len(l.counts) <= k {
		l.counts = append(l.counts, 0)
	}
	l.counts[k]++
}

// series returns the mean rate per second in each bucket, counts divided by runs.
func (l *load) series(policy string, runs int) Series {
	s := Series{Policy: policy, Step: l.step.Seconds(), Rate: make([]float64, len(l.counts))}
	for k, c := range l.counts {
		s.Rate[k] = c / float64(runs) / l.step.Seconds()
	}
	return s
}

func sortDurations(d []time.Duration) { slices.Sort(d) }
