package simulate

import (
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// writeChart draws the load on the server over time, one line per policy, and the
// server's capacity as a dashed line when it has one, and saves it as SVG to path (created
// or truncated), whatever path's extension.
func writeChart(r *Report, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("retry simulate --scenario %s --seed %d", r.Scenario, r.Seed)
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "requests reaching the server per second"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for i, s := range r.Load {
		pts := make(plotter.XYs, len(s.Rate))
		for k, v := range s.Rate {
			pts[k] = plotter.XY{X: (float64(k) + 0.5) * s.Step, Y: v}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("simulate: chart of %q: %w", s.Policy, err)
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(s.Policy, line)
	}
	if r.Capacity > 0 {
		capacity := plotter.NewFunction(func(float64) float64 { return r.Capacity })
		capacity.Color = color.Black
		capacity.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(capacity)
		p.Legend.Add(fmt.Sprintf("capacity (%.0f/s)", r.Capacity), capacity)
	}
	// SVG whatever path's extension: plot.Save would pick the format from it.
	svg, err := p.WriterTo(8*vg.Inch, 4.5*vg.Inch, "svg")
	if err != nil {
		return fmt.Errorf("simulate: drawing the chart: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot create the chart file: %w", err) // the error names the path
	}
	_, err = svg.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the chart to %s: %w", path, err)
	}
	return nil
}
