package simulate

import (
	"fmt"
	"image/color"

	"codeberg.org/go-fonts/liberation/liberationserifregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chartFont is the one face of the chart's text: Liberation Serif regular, embedded (about
// 0.4 MB) so that text is measured the same everywhere. The SVG names it; a viewer without it
// substitutes another serif face.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Serif"}

// substituteWidth is how much wider than chartFont a viewer without it may set text: rsvg-convert
// takes DejaVu Serif, about a fifth wider. The SVG places each string by its start, so the chart
// leaves room for this width after every string that could run into something.
const substituteWidth = 1.25

// fit returns sty, its size lowered if need be so that txt, drawn at a point with room to its
// right, ends within that room even when set substituteWidth times as wide (text aligned
// XLeft or XCenter on the point).
func fit(sty text.Style, txt string, room vg.Length) text.Style {
	if reach := sty.Width(txt) * (substituteWidth + vg.Length(sty.XAlign)); reach > room {
		sty.Font.Size *= room / reach
	}
	return sty
}

// typesetter makes the chart's text styles, all measured with chartFont.
type typesetter struct {
	handler text.Handler
}

// newTypesetter parses chartFont's embedded face.
func newTypesetter() (typesetter, error) {
	face, err := opentype.Parse(liberationserifregular.TTF)
	if err != nil {
		return typesetter{}, fmt.Errorf("the chart's font: %w", err)
	}
	fonts := font.NewCache(font.Collection{{Font: chartFont, Face: face}})
	return typesetter{handler: text.Plain{Fonts: fonts}}, nil
}

// style is black chartFont text of size points, aligned on the point it is drawn at by x and y.
func (t typesetter) style(size float64, x draw.XAlignment, y draw.YAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(chartFont, vg.Points(size)),
		XAlign:  x,
		YAlign:  y,
		Handler: t.handler,
	}
}
