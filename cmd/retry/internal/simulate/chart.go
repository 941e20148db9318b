package simulate

import (
	"fmt"
	"image/color"
	"os"
	"time"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The chart is drawn on gonum's SVG canvas (vgsvg) and measured with one embedded face
// (chartfont.go), without gonum's plot package: importing that package links the twelve
// Liberation faces of its default font collection and registers its PNG, JPEG, TIFF, PDF,
// EPS and LaTeX canvases, 6 MB of the retry binary (issue 34). So chartpanel.go draws the
// axes that package would.

// Chart layout. Viewers that lack the font the chart names (Liberation Serif) substitute a
// wider one (substituteWidth), so text is kept short, small and away from every edge.
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
	text, err := newTypesetter()
	if err != nil {
		return err
	}
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
	yMax := max(r.Capacity*1.1, 1)
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
	inner.FillText(text.style(13, draw.XLeft, draw.YTop), vg.Point{X: inner.Min.X, Y: inner.Max.Y}, title)
	inner.FillText(fit(text.style(9.5, draw.XLeft, draw.YTop), caption, inner.Size().X), vg.Point{X: inner.Min.X, Y: inner.Max.Y - vg.Points(20)}, caption)

	panels := draw.Crop(inner, 0, 0, 0, -(headerHeight - chartMargin))
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 0.3 * vg.Inch, PadY: 0.15 * vg.Inch}
	for i, s := range r.Load {
		xMax := longest
		if separate {
			xMax = s.active()
		}
		p := panel{series: s, color: seriesColor(i), capacity: r.Capacity, xMax: xMax, yMax: yMax}
		p.draw(tiles.At(panels, i%cols, i/cols), text)
	}
	return saveSVG(canvas, path)
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
