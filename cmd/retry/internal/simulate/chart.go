package simulate

import (
	"fmt"
	"image/color"
	"os"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart layout. Viewers that lack the font the chart names (Liberation Serif) substitute a
// wider one (rsvg-convert takes DejaVu Serif, about a fifth wider), so text is kept short,
// small and away from every edge.
const (
	chartWidth   = 9 * vg.Inch
	panelHeight  = 2.3 * vg.Inch
	headerHeight = 0.75 * vg.Inch
	chartMargin  = 0.2 * vg.Inch
	// separateAxesRatio: when the longest series lasts more than this many times the
	// shortest, each panel gets its own time axis, so that short ones stay readable.
	separateAxesRatio = 4
)

// writeChart draws the load on the server over time as small multiples: one panel per
// policy, all with the same load axis, each with its time axis from 0, and the server's
// capacity as a dashed line when it has one. It saves the chart as SVG to path (created or
// truncated), whatever path's extension.
func writeChart(r *Report, path string) error {
	n := len(r.Load)
	cols := min(2, max(n, 1))
	rows := (n + cols - 1) / cols
	height := headerHeight + vg.Length(rows)*panelHeight + chartMargin
	canvas := vgsvg.NewWith(vgsvg.UseWH(chartWidth, height))
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	inner := draw.Crop(dc, chartMargin, -chartMargin, chartMargin, -chartMargin)

	// Every panel shares the load axis; time axes are shared unless lengths differ a lot.
	yMax := r.Capacity * 1.1
	shortest, longest := -1.0, 0.0
	for _, s := range r.Load {
		for _, v := range s.Rate {
			yMax = max(yMax, v*1.05)
		}
		d := s.active()
		longest = max(longest, d)
		if shortest < 0 || d < shortest {
			shortest = d
		}
	}
	separate := shortest > 0 && longest > separateAxesRatio*shortest

	title := fmt.Sprintf("retry simulate --scenario %s --seed %d", r.Scenario, r.Seed)
	caption := "requests reaching the server per second, one panel per policy"
	if n > 0 {
		caption = fmt.Sprintf("requests reaching the server per second, in steps of %v, one panel per policy",
			time.Duration(r.Load[0].Step*float64(time.Second)))
	}
	if r.Capacity > 0 {
		caption += fmt.Sprintf("; dashed: capacity %.0f/s", r.Capacity)
	}
	if separate {
		caption += "; time axes differ"
	}
	header := plot.New().Title.TextStyle // the plot package's default font and handler
	header.XAlign, header.YAlign = draw.XLeft, draw.YTop
	header.Font.Size = vg.Points(13)
	inner.FillText(header, vg.Point{X: inner.Min.X, Y: inner.Max.Y}, title)
	header.Font.Size = vg.Points(9.5)
	inner.FillText(header, vg.Point{X: inner.Min.X, Y: inner.Max.Y - vg.Points(20)}, caption)

	panels := draw.Crop(inner, 0, 0, 0, -(headerHeight - chartMargin))
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 0.3 * vg.Inch, PadY: 0.15 * vg.Inch}
	for i, s := range r.Load {
		p, err := panel(s, i, r.Capacity, yMax, longest, separate)
		if err != nil {
			return err
		}
		p.Draw(tiles.At(panels, i%cols, i/cols))
	}
	return saveSVG(canvas, path)
}

// panel is the plot of one policy's load, in the i-th color.
func panel(s Series, i int, capacity, yMax, longest float64, separate bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = s.Policy
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Title.Padding = vg.Points(3)
	p.X.Label.Text, p.Y.Label.Text = "time (s)", "requests/s"
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(8.5)
		a.Tick.Label.Font.Size = vg.Points(8)
		a.Min = 0
		a.Tick.Marker = shortTicks{}
	}
	p.X.Max, p.Y.Max = longest, yMax
	if separate {
		p.X.Max = s.active()
	}
	p.Add(plotter.NewGrid())
	pts := make(plotter.XYs, len(s.Rate))
	for k, v := range s.Rate {
		pts[k] = plotter.XY{X: (float64(k) + 0.5) * s.Step, Y: v}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("chart of %q: %w", s.Policy, err)
	}
	line.Color = plotutil.Color(i)
	line.Width = vg.Points(1.5)
	p.Add(line)
	if capacity > 0 {
		c := plotter.NewFunction(func(float64) float64 { return capacity })
		c.Color = color.Black
		c.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(c)
	}
	return p, nil
}

// shortTicks are the default ticks labelled without trailing zeros: 5000, not 5000.00.
type shortTicks struct{}

// Ticks implements plot.Ticker.
func (shortTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
		}
	}
	return ticks
}

// active is how long the series has load: up to the end of its last non-empty bucket, and
// at least one bucket.
func (s Series) active() float64 {
	last := 0
	for k, v := range s.Rate {
		if v > 0 {
			last = k
		}
	}
	return float64(last+1) * s.Step
}

// saveSVG writes canvas to path as SVG.
func saveSVG(canvas *vgsvg.Canvas, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot create the chart file: %w", err) // the error names the path
	}
	_, err = canvas.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the chart to %s: %w", path, err)
	}
	return nil
}
