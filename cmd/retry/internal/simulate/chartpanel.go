package simulate

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// panel is the chart of one policy's load over time.
type panel struct {
	series   Series
	color    color.Color
	capacity float64 // requests per second, drawn dashed; 0: none; at most yMax
	xMax     float64 // seconds, the end of the time axis (above 0)
	yMax     float64 // requests per second, the top of the load axis (above 0)
}

// Panel layout, in points.
const (
	tickLength vg.Length = 4
	textGap    vg.Length = 3 // between a tick and its label, and between labels
)

// Line styles: gonum/plot's defaults for axes and grids, and a thicker line for the load.
var (
	axisLine = draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	gridLine = draw.LineStyle{Color: color.Gray{Y: 128}, Width: vg.Points(0.25)}
)

// draw draws p on c: the policy's name above, the load axis at the left from 0 to yMax, the
// time axis below from 0 to xMax, a grid at their labelled ticks, the load as a line (the
// middle of each bucket, clipped to the axes), and over it the capacity as a dashed black line.
func (p panel) draw(c draw.Canvas, text typesetter) {
	title := text.style(10, draw.XCenter, draw.YTop)
	axisLabel := text.style(8.5, draw.XCenter, draw.YBottom)
	xTickLabel := text.style(8, draw.XCenter, draw.YTop)
	yTickLabel := text.style(8, draw.XRight, draw.YCenter)
	xTicks, yTicks := axisTicks(p.xMax, 6), axisTicks(p.yMax, 5)

	// The data area: c less the title above, the time axis below and the load axis at the
	// left; at the right, room for the last time label, centered on its tick. The load labels
	// end before their ticks by the room a substitute font takes.
	var yTickWidth vg.Length
	for _, t := range yTicks {
		yTickWidth = max(yTickWidth, yTickLabel.Width(t.label))
	}
	yTickRoom := yTickWidth*(substituteWidth-1) + textGap
	left := axisLabel.Height("requests/s") + textGap + yTickWidth + yTickRoom + tickLength
	bottom := axisLabel.Height("time (s)") + textGap + xTickLabel.Height("0") + textGap + tickLength
	top := title.Height(p.series.Policy) + textGap
	right := xTickLabel.Width(xTicks[len(xTicks)-1].label) * (substituteWidth - 0.5)
	area := draw.Crop(c, left, -right, bottom, -top)

	// A long name is set smaller, within the panel; the data area stays where its neighbours' is.
	c.FillText(fit(title, p.series.Policy, c.Size().X/2), vg.Point{X: c.Center().X, Y: c.Max.Y}, p.series.Policy)
	for _, t := range xTicks {
		x := area.X(t.value / p.xMax)
		c.StrokeLine2(gridLine, x, area.Min.Y, x, area.Max.Y)
		c.StrokeLine2(axisLine, x, area.Min.Y-tickLength, x, area.Min.Y)
		c.FillText(xTickLabel, vg.Point{X: x, Y: area.Min.Y - tickLength - textGap}, t.label)
	}
	for _, t := range yTicks {
		y := area.Y(t.value / p.yMax)
		c.StrokeLine2(gridLine, area.Min.X, y, area.Max.X, y)
		c.StrokeLine2(axisLine, area.Min.X-tickLength, y, area.Min.X, y)
		c.FillText(yTickLabel, vg.Point{X: area.Min.X - tickLength - yTickRoom, Y: y}, t.label)
	}
	c.StrokeLine2(axisLine, area.Min.X, area.Min.Y, area.Max.X, area.Min.Y)
	c.StrokeLine2(axisLine, area.Min.X, area.Min.Y, area.Min.X, area.Max.Y)
	c.FillText(axisLabel, vg.Point{X: area.Center().X, Y: c.Min.Y}, "time (s)")
	yAxisLabel := axisLabel
	yAxisLabel.Rotation, yAxisLabel.YAlign = math.Pi/2, draw.YTop
	c.FillText(yAxisLabel, vg.Point{X: c.Min.X, Y: area.Center().Y}, "requests/s")

	load := make([]vg.Point, len(p.series.Rate))
	for k, v := range p.series.Rate {
		load[k] = vg.Point{X: area.X((float64(k) + 0.5) * p.series.Step / p.xMax), Y: area.Y(v / p.yMax)}
	}
	area.StrokeLines(draw.LineStyle{Color: p.color, Width: vg.Points(1.5)}, area.ClipLinesXY(load)...)
	if p.capacity > 0 {
		dashed := draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		y := area.Y(p.capacity / p.yMax)
		area.StrokeLine2(dashed, area.Min.X, y, area.Max.X, y)
	}
}

// seriesColor is the color of the i-th policy's load: gonum/plot's plotutil.SoftColors, in
// turn.
func seriesColor(i int) color.Color {
	soft := [...]color.RGBA{
		{241, 90, 96, 255},
		{122, 195, 106, 255},
		{90, 155, 212, 255},
		{250, 167, 91, 255},
		{158, 103, 171, 255},
		{206, 112, 88, 255},
		{215, 127, 180, 255},
	}
	return soft[i%len(soft)]
}
