package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// hoverPoints is an invisible plotter that records where its points land
// on the canvas when the plot is drawn, so that [Figure.HoverSVG] can lay
// a titled, transparent circle over each. gonum's SVG backend cannot write
// <title> elements itself; positions taken from the plot's own data
// transform (rather than matched against the drawn glyphs) stay right
// whatever the other plotters draw.
type hoverPoints struct {
	xys    plotter.XYs
	titles []string
	radius vg.Length
	at     []vg.Point // canvas positions, filled by Plot
}

// Plot records the canvas positions of the points; it draws nothing.
func (h *hoverPoints) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	h.at = h.at[:0]
	for _, p := range h.xys {
		h.at = append(h.at, vg.Point{X: trX(p.X), Y: trY(p.Y)})
	}
}

// HoverSVG writes the figure as SVG, as [Figure.Render] does, with a
// tooltip per point for figures that name their points (the map): a
// transparent circle over each point holding a <title> with the point's
// name, class and whether it is held out, in the points' order (training
// items, then held-out items). In every figure the font family gets
// fallbacks (Arial's metrics, then sans-serif).
func (f *Figure) HoverSVG(w io.Writer) error {
	var b bytes.Buffer
	if err := f.Render(&b, "svg", 0); err != nil {
		return err
	}
	// gonum names one font family; add metric-compatible fallbacks for
	// viewers without Liberation Sans (DejaVu Sans, a common default, is
	// wider).
	svg := bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"))
	if f.hover == nil {
		_, err := w.Write(svg)
		return err
	}
	h := f.hover
	if len(h.at) != len(h.xys) {
		return fmt.Errorf("report: %s: the hover points were not drawn", f.Name)
	}
	end := bytes.LastIndex(svg, []byte("</svg>"))
	if end < 0 {
		return fmt.Errorf("report: %s: the SVG backend wrote no </svg>", f.Name)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	var g bytes.Buffer
	// vgsvg's viewBox is in points with y pointing down; canvas y points up.
	g.WriteString(`<g class="hover" fill="#000" fill-opacity="0">` + "\n")
	for i, p := range h.at {
		fmt.Fprintf(&g, `<circle cx="%s" cy="%s" r="%s"><title>`, num(p.X.Points()), num((f.Height - p.Y).Points()), num(h.radius.Points()))
		if err := xml.EscapeText(&g, []byte(h.titles[i])); err != nil {
			return err
		}
		g.WriteString("</title></circle>\n")
	}
	g.WriteString("</g>\n")
	for _, part := range [][]byte{svg[:end], g.Bytes(), svg[end:]} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}
