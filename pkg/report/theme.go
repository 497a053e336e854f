package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Theme fixes the fonts, sizes and colours of every figure of a report,
// so that all figures of one report look alike. The zero value is not
// useful; start from [DefaultTheme].
type Theme struct {
	Typeface, Variant string // a font of gonum/plot's cache, e.g. Liberation Sans

	TitleSize  vg.Length // panel titles
	LabelSize  vg.Length // axis labels
	TickSize   vg.Length // tick labels and legends
	PointLabel vg.Length // item names in the map

	PanelWidth, PanelHeight vg.Length // one panel of a tiled figure
	MapSize                 vg.Length // the square t-SNE map
	DPI                     int       // PNG resolution

	LineWidth   vg.Length
	GlyphRadius vg.Length
	// Palette colours splits, classes and kernels in order (cycled).
	Palette []color.Color
	// Highlight marks chosen values (the chosen β).
	Highlight color.Color
}

// DefaultTheme is the theme of reports written by mkpoe: Liberation Sans,
// 11 pt titles, 10 pt labels, 9 pt ticks, 150 dpi PNGs, and the Tableau 10
// palette (distinct for colour-blind readers in its first colours).
func DefaultTheme() Theme {
	return Theme{
		Typeface: "Liberation", Variant: "Sans",
		TitleSize: 11, LabelSize: 10, TickSize: 9, PointLabel: 6.5,
		PanelWidth: 4 * vg.Inch, PanelHeight: 2.6 * vg.Inch, MapSize: 7 * vg.Inch,
		DPI:       150,
		LineWidth: 1.2, GlyphRadius: 2.2,
		Palette: []color.Color{
			rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x76b7b2), rgb(0x59a14f),
			rgb(0xedc948), rgb(0xb07aa1), rgb(0xff9da7), rgb(0x9c755f), rgb(0xbab0ac),
		},
		Highlight: rgb(0xd62728),
	}
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// Color returns the i-th palette colour (cycled).
func (th Theme) Color(i int) color.Color { return th.Palette[i%len(th.Palette)] }

func (th Theme) font(size vg.Length) font.Font {
	return font.Font{Typeface: font.Typeface(th.Typeface), Variant: font.Variant(th.Variant), Size: size}
}

// newPlot returns a plot with the theme's fonts and the given texts.
func (th Theme) newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = th.font(th.TitleSize)
	p.Title.Padding = 4
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = th.font(th.LabelSize)
		a.Tick.Label.Font = th.font(th.TickSize)
		a.Padding = 2
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.TextStyle.Font = th.font(th.TickSize)
	p.Legend.Top = true
	return p
}

func (th Theme) line(i int) draw.LineStyle {
	return draw.LineStyle{Color: th.Color(i), Width: th.LineWidth}
}
