package simulate

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestChartDrawsEveryPanel: the chart, drawn with gonum's SVG canvas alone since issue 34,
// has the title and caption, and per policy its name, labelled axes from 0, its load in its
// own color, and the capacity dashed.
func TestChartDrawsEveryPanel(t *testing.T) {
	rates := []float64{10, 40, 30, 20, 10, 10, 10, 10, 10, 5}
	r := &Report{Scenario: "outage", Seed: 7, Capacity: 50, Load: []Series{
		{Policy: "first", Step: 1, Rate: rates},
		{Policy: "second", Step: 1, Rate: rates},
		{Policy: "third", Step: 1, Rate: rates},
	}}
	path := filepath.Join(t.TempDir(), "chart.svg")
	if err := writeChart(r, path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(data)

	var texts []string
	for _, m := range regexp.MustCompile(`>([^<>]*)</text>`).FindAllStringSubmatch(svg, -1) {
		texts = append(texts, m[1])
	}
	want := []string{"retry simulate --scenario outage --seed 7",
		"requests reaching the server per second, in steps of 1s, one panel per policy; dashed: capacity 50/s"}
	for _, policy := range []string{"first", "second", "third"} {
		// Time from 0 to 10 s in steps of 2 s; load to 55/s (the capacity and a tenth) in 20s.
		want = append(want, policy, "0", "2", "4", "6", "8", "10", "0", "20", "40", "time (s)", "requests/s")
	}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("the chart's text is\n%q\nwant\n%q", texts, want)
	}
	for style, count := range map[string]int{
		"stroke:#F15A60;stroke-width:1.5":            1, // each policy's load, in gonum's soft colors
		"stroke:#7AC36A;stroke-width:1.5":            1,
		"stroke:#5A9BD4;stroke-width:1.5":            1,
		"stroke:#000000;stroke-dasharray:4,3":        3, // the capacity
		"font-family:Liberation Serif;":              len(want),
		"fill:none;stroke:#808080;stroke-width:0.25": 3 * (6 + 3), // a grid line at every tick
	} {
		if got := strings.Count(svg, style); got != count {
			t.Errorf("%d elements styled %q, want %d", got, style, count)
		}
	}
}
