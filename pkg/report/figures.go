package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// Figure is a tiled figure: Panels[r][c] (nil tiles stay blank), drawn at
// Width × Height.
type Figure struct {
	Name    string // file stem, e.g. "fig-validation"
	Title   string // short title for reports
	Caption string // what the figure shows
	Panels  [][]*plot.Plot
	Width   vg.Length
	Height  vg.Length
	// row and split locate the model of a weights or map figure
	// (Summary.Rows index, outer split) for the notebook's code cells.
	row, split int
	// hover, if set, names the figure's points for [Figure.HoverSVG].
	hover *hoverPoints
}

// Render draws the figure as "png" (at dpi) or "svg" to w.
func (f *Figure) Render(w io.Writer, format string, dpi int) error {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(f.Width, f.Height)
	default:
		return fmt.Errorf("report: figure format must be png or svg, got %q", format)
	}
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: 0, Y: f.Height}, {X: f.Width, Y: f.Height}, {X: f.Width, Y: 0}})
	rows := len(f.Panels)
	cols := 0
	if rows > 0 {
		cols = len(f.Panels[0])
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 5,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	canvases := plot.Align(f.Panels, tiles, dc)
	for r := range f.Panels {
		for col, p := range f.Panels[r] {
			if p != nil {
				p.Draw(canvases[r][col])
			}
		}
	}
	_, err := c.WriteTo(w)
	return err
}

// grid arranges panels in rows of at most cols, padding with nil.
func grid(panels []*plot.Plot, cols int) [][]*plot.Plot {
	if len(panels) < cols {
		cols = len(panels)
	}
	var out [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, panels[i:min(i+cols, len(panels))])
		out = append(out, row)
	}
	return out
}

// ---- Figure: diagonal weights (paper Fig. 5, fig:diagmkl) ----

// WeightSeries returns, per kernel block of a diagonal model, the
// diagonal of W⁽ᵖ⁾: entry i is the weight of training item i (McFee &
// Lanckriet 2011, Sec. 4.2 and Fig. 5 of the LaTeX source, fig:diagmkl).
// It returns an error for a model that is not diagonal.
func WeightSeries(m *mkpoe.Model) ([][]float64, error) {
	if m.Mode != mkpoe.Diag {
		return nil, fmt.Errorf("report: weight figure needs a diagonal model, got mode %s", m.Mode)
	}
	out := make([][]float64, m.Blocks())
	for p := range out {
		w := m.Metric(p)
		n := w.SymmetricDim()
		out[p] = make([]float64, n)
		for i := 0; i < n; i++ {
			out[p][i] = w.At(i, i)
		}
	}
	return out, nil
}

// WeightsFigure draws the diagonal weights of a diagonal K4 model as in
// the paper's Fig. 5 (fig:diagmkl): one bar panel per kernel, stacked,
// training index on the x axis, one shared y scale.
func WeightsFigure(row *results.Row, split int, m *mkpoe.Model, th Theme) (*Figure, error) {
	ws, err := WeightSeries(m)
	if err != nil {
		return nil, err
	}
	maxW := 0.0
	for _, w := range ws {
		for _, v := range w {
			maxW = math.Max(maxW, v)
		}
	}
	if maxW == 0 {
		maxW = 1
	}
	var panels []*plot.Plot
	for p, w := range ws {
		name := fmt.Sprintf("kernel %d", p+1)
		if p < len(row.Kernels) && len(row.Kernels) == len(ws) {
			name = row.Kernels[p]
		}
		sum, nnz := 0.0, 0
		for _, v := range w {
			sum += v
			if v > 1e-9*maxW {
				nnz++
			}
		}
		pl := th.newPlot(fmt.Sprintf("%s   (trace %.3g, %d of %d non-zero)", name, sum, nnz, len(w)), "", "weight")
		if p == len(ws)-1 {
			pl.X.Label.Text = "training item index"
		}
		bars, err := plotter.NewBarChart(plotter.Values(w), barWidth(th.PanelWidth*1.6, len(w)))
		if err != nil {
			return nil, fmt.Errorf("report: weights of %s: %w", name, err)
		}
		bars.Color = th.Color(p)
		bars.LineStyle.Width = 0
		bars.Offset = 0
		pl.Add(bars)
		pl.X.Min, pl.X.Max = -0.5, float64(len(w))-0.5
		pl.Y.Min, pl.Y.Max = 0, maxW*1.05
		panels = append(panels, pl)
	}
	h := th.PanelHeight * 0.75 * vg.Length(len(panels))
	return &Figure{
		Name:  fmt.Sprintf("fig-weights-%s-s%02d", slug(row.Label), split),
		Title: fmt.Sprintf("Learned diagonal weights: %s, split %d", row.Label, split),
		Caption: fmt.Sprintf("Diagonal of each kernel's learned W⁽ᵖ⁾ for row %q (outer split %d, β = %g), as in the paper's Fig. 5 (fig:diagmkl): "+
			"one panel per kernel, training items on the x axis (in the order of items.json), one shared y scale.", row.Label, split, m.Beta),
		Panels: grid(panels, 1), Width: th.PanelWidth * 1.6, Height: h + vg.Inch*0.3,
	}, nil
}

// barWidth is the width of one of n bars that fill a panel of width w.
func barWidth(w vg.Length, n int) vg.Length {
	bw := w * 0.85 / vg.Length(max(n, 1))
	return max(bw, 0.3)
}

// ---- Figure: validation accuracy against β ----

// ValidationSeries returns the β sweep of a learned row: the grid, per
// outer split the mean inner-CV validation accuracy per β, and per split
// the index of the chosen β in the grid (-1 if it is not in the grid).
func ValidationSeries(s *results.Summary, row *results.Row) (betas []float64, curves [][]float64, chosen []int) {
	betas = s.BetaGrid
	curves = row.ValCurve
	for sp := range row.ValCurve {
		c := -1
		picked := row.Beta
		if s.BetaRelative {
			picked = row.BetaMultiple // the grid holds multiples of β_min
		}
		if sp < len(picked) {
			for b, v := range s.BetaGrid {
				if v == picked[sp] {
					c = b
				}
			}
		}
		chosen = append(chosen, c)
	}
	return betas, curves, chosen
}

// ValidationBand returns the spread of a learned row's validation curve on
// outer split sp across its inner folds as the figures draw it: per β of
// the grid, the lowest and highest fold's validation accuracy
// (results.Row.ValFoldMin, ValFoldMax). Both are nil when the summary does
// not record them (summaries written before they were), or for a split
// out of range.
func ValidationBand(row *results.Row, sp int) (lo, hi []float64) {
	if sp < 0 || sp >= len(row.ValFoldMin) || sp >= len(row.ValFoldMax) {
		return nil, nil
	}
	return row.ValFoldMin[sp], row.ValFoldMax[sp]
}

// bandPolygon returns the polygon between lo and hi over x (the β with
// both limits finite, in grid order), filled with c at low opacity, or nil
// if fewer than two such β exist.
func bandPolygon(x, lo, hi []float64, c color.Color) (*plotter.Polygon, error) {
	var upper, lower plotter.XYs
	for b := range x {
		if b >= len(lo) || b >= len(hi) {
			break
		}
		if math.IsNaN(lo[b]) || math.IsNaN(hi[b]) || math.IsInf(lo[b], 0) || math.IsInf(hi[b], 0) {
			continue
		}
		upper = append(upper, plotter.XY{X: x[b], Y: hi[b]})
		lower = append(lower, plotter.XY{X: x[b], Y: lo[b]})
	}
	if len(upper) < 2 {
		return nil, nil
	}
	ring := append(plotter.XYs{}, upper...)
	for i := len(lower) - 1; i >= 0; i-- {
		ring = append(ring, lower[i])
	}
	pg, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	r, g, b, _ := c.RGBA()
	pg.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x38}
	pg.LineStyle.Width = 0
	return pg, nil
}

// ValidationFigure draws, per learned row, the mean inner-CV validation
// accuracy against β (log x axis), one line per outer split, shaded
// between the lowest and highest inner fold's accuracy (ValidationBand)
// where the summary records it, the chosen β ringed. It returns nil if no
// row has a β sweep.
func ValidationFigure(s *results.Summary, th Theme) (*Figure, error) {
	var panels []*plot.Plot
	zeroMarked, banded := false, false
	for i := range s.Rows {
		row := &s.Rows[i]
		betas, curves, chosen := ValidationSeries(s, row)
		if len(curves) == 0 {
			continue
		}
		xLabel := "β"
		if s.BetaRelative {
			xLabel = "β / β_min (β_min of each training set)"
		}
		pl := th.newPlot(row.Label, xLabel, "validation accuracy")
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = logTicks{}
		// Bands first, under every line.
		for sp := range curves {
			lo, hi := ValidationBand(row, sp)
			pg, err := bandPolygon(betas, lo, hi, th.Color(sp))
			if err != nil {
				return nil, err
			}
			if pg != nil {
				pl.Add(pg)
				banded = true
			}
		}
		for sp, c := range curves {
			xys := finiteXYs(betas, c)
			if len(xys) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			l.LineStyle = th.line(sp)
			pts.GlyphStyle = draw.GlyphStyle{Color: th.Color(sp), Radius: th.GlyphRadius, Shape: draw.CircleGlyph{}}
			pl.Add(l, pts)
			if len(curves) > 1 {
				pl.Legend.Add(fmt.Sprintf("split %d", sp), l, pts)
			}
			if sp < len(row.ValZeroFolds) {
				var zero plotter.XYs
				for b, k := range row.ValZeroFolds[sp] {
					if k > 0 && b < len(c) && !math.IsNaN(c[b]) {
						zero = append(zero, plotter.XY{X: betas[b], Y: c[b]})
					}
				}
				if len(zero) > 0 {
					mark, err := plotter.NewScatter(zero)
					if err != nil {
						return nil, err
					}
					mark.GlyphStyle = draw.GlyphStyle{Color: th.Color(sp), Radius: th.GlyphRadius * 2, Shape: draw.CrossGlyph{}}
					pl.Add(mark)
					zeroMarked = true
				}
			}
			if b := chosen[sp]; b >= 0 && !math.IsNaN(c[b]) {
				mark, err := plotter.NewScatter(plotter.XYs{{X: betas[b], Y: c[b]}})
				if err != nil {
					return nil, err
				}
				mark.GlyphStyle = draw.GlyphStyle{Color: th.Highlight, Radius: th.GlyphRadius * 2.6, Shape: draw.RingGlyph{}}
				pl.Add(mark)
			}
		}
		padY(pl)
		padLogX(pl)
		if len(curves) > 1 {
			// Headroom for the legend (top right) above the curves.
			pl.Y.Max += (pl.Y.Max - pl.Y.Min) * 0.09 * float64(len(curves))
			pl.Y.Tick.Marker = accuracyTicks{}
		}
		panels = append(panels, pl)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	g := grid(panels, 2)
	caption := fmt.Sprintf("Mean validation accuracy over %d inner folds against β (log scale) for each learned row; one line per outer split; "+
		"the β chosen for the refit is ringed in red (ties go to the smallest β).", s.InnerFolds)
	if banded {
		caption += fmt.Sprintf(" The shaded band around each line spans the lowest to the highest validation accuracy among the %d inner folds (min–max, not a standard deviation).", s.InnerFolds)
	}
	if zeroMarked {
		caption += " A cross marks β where the fit of some inner folds was W = 0 (the trace regulariser outweighs the hinge losses): " +
			"every distance ties there, so those folds score 0 under the paper's tie rule (ties count as errors, Appendix C), which pulls the mean down."
	}
	return &Figure{
		Name:    "fig-validation",
		Title:   "Validation accuracy against β",
		Caption: caption,
		Panels:  g, Width: th.PanelWidth * vg.Length(len(g[0])), Height: th.PanelHeight * vg.Length(len(g)),
	}, nil
}

// padY widens a plot's y range by 5% each side so that marks at the
// extremes are not clipped, and makes a flat range visible.
func padY(pl *plot.Plot) {
	lo, hi := pl.Y.Min, pl.Y.Max
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return
	}
	d := (hi - lo) * 0.08
	if d == 0 {
		d = math.Max(math.Abs(hi)*0.05, 0.01)
	}
	pl.Y.Min, pl.Y.Max = lo-d, hi+d
}

// padLogX gives a log-scaled x axis whose data sit at one value (a grid
// of one β, a trace of one iteration) a range of a factor of 2 each side:
// gonum widens a flat range by ±1, which reaches 0 on a log scale when
// the value is 1 and panics there.
func padLogX(pl *plot.Plot) {
	if x := pl.X.Min; x == pl.X.Max && x > 0 && !math.IsInf(x, 0) {
		pl.X.Min, pl.X.Max = x/2, x*2
	}
}

func finiteXYs(x, y []float64) plotter.XYs {
	var out plotter.XYs
	for i := range y {
		if i < len(x) && !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) && !math.IsNaN(x[i]) {
			out = append(out, plotter.XY{X: x[i], Y: y[i]})
		}
	}
	return out
}

// ---- Figure: objective per iteration ----

// ObjectiveSeries returns the solver's objective after each iteration of
// the final refit of a learned row, per outer split (nil where the model
// is missing or holds no trace).
func ObjectiveSeries(run *Run, row *results.Row) [][]float64 {
	var out [][]float64
	for sp := range row.Models {
		var tr []float64
		if m := run.model(row, sp); m != nil {
			tr = m.Stats.Trace
		}
		out = append(out, tr)
	}
	return out
}

// ObjectiveFigure draws, per learned row, the objective of Alg. 4 after
// each solver iteration of the final refits, one line per outer split; the
// iteration axis is logarithmic, and so is the objective axis when every
// value is positive and they span a decade or more. It returns nil if
// no model holds a trace.
func ObjectiveFigure(run *Run, th Theme) (*Figure, error) {
	var panels []*plot.Plot
	for i := range run.Summary.Rows {
		row := &run.Summary.Rows[i]
		traces := ObjectiveSeries(run, row)
		positive, any := true, false
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, tr := range traces {
			for _, v := range tr {
				any = true
				positive = positive && v > 0
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if !any {
			continue
		}
		title := row.Label
		if m := run.model(row, 0); m != nil {
			title += fmt.Sprintf(" (β = %g)", m.Beta)
		}
		pl := th.newPlot(title, "iteration", "objective")
		// Iterations on a log axis: accelerated runs take thousands of
		// steps, and the interesting descent is in the first few.
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = logTicks{}
		if positive && hi/lo >= 10 {
			pl.Y.Scale = plot.LogScale{}
			pl.Y.Tick.Marker = logTicks{}
		}
		for sp, tr := range traces {
			xys := finiteXYs(thinLog(tr, 1500))
			if len(xys) == 0 {
				continue
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.LineStyle = th.line(sp)
			pl.Add(l)
			if len(traces) > 1 {
				pl.Legend.Add(fmt.Sprintf("split %d", sp), l)
			}
		}
		padLogX(pl)
		panels = append(panels, pl)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	g := grid(panels, 2)
	return &Figure{
		Name:    "fig-objective",
		Title:   "Solver objective per iteration",
		Caption: "Objective of the final refit (per outer split) after each solver iteration, as recorded in the model files (objective_trace).",
		Panels:  g, Width: th.PanelWidth * vg.Length(len(g[0])), Height: th.PanelHeight * vg.Length(len(g)),
	}, nil
}

// thinLog returns iterations 1..len(y) and their values, keeping at most
// about m points spaced evenly on a log axis (every point if len(y) ≤ m),
// plus the last: a 100 000-iteration trace would otherwise make a
// megabytes-large SVG of points closer than a pixel.
func thinLog(y []float64, m int) (x, v []float64) {
	n := len(y)
	last := -1
	for k := 0; k < m && n > 0; k++ {
		i := k
		if n > m {
			i = int(math.Round(math.Exp(float64(k)/float64(m-1)*math.Log(float64(n))))) - 1
		}
		if i <= last || i >= n {
			continue
		}
		x, v = append(x, float64(i+1)), append(v, y[i])
		last = i
	}
	if n > 0 && last != n-1 {
		x, v = append(x, float64(n)), append(v, y[n-1])
	}
	return x, v
}

// logTicks marks 1, 2 and 5 times powers of ten on a log axis (labelled
// when the axis spans at most two decades, else only powers of ten),
// so that even a short range gets labels; gonum's LogTicks labels powers
// of ten only.
type logTicks struct{}

// decadeLabel writes 10^e compactly: 0.01 … 1000 in full, else 1e4, 1e-3.
func decadeLabel(e float64) string {
	if e >= -2 && e <= 3 {
		return strconv.FormatFloat(math.Pow(10, e), 'g', -1, 64)
	}
	return fmt.Sprintf("1e%d", int(e))
}

// accuracyTicks are the default ticks without those above 1: the headroom
// above 1 holds the legend, not data.
type accuracyTicks struct{}

// Ticks implements plot.Ticker.
func (accuracyTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value <= 1+1e-9 {
			out = append(out, t)
		}
	}
	return out
}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	few := math.Log10(hi/lo) <= 2
	first, last := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	// At most about 5 labelled decades, so that labels never run together.
	stride := math.Max(1, math.Ceil((last-first+1)/5))
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			switch {
			case m == 1 && math.Mod(e-first, stride) == 0:
				t.Label = decadeLabel(e)
			case few && (m == 2 || m == 5):
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		for i := range ticks {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 3, 64)
		}
	}
	return ticks
}

// ---- Figure: t-SNE map (paper Fig. 6, fig:embedding) ----

// MapData is a 2-D map of a model's embedding: the training items, then
// the held-out (out-of-sample) items if their embedding is known.
type MapData struct {
	X, Y   []float64
	Items  []int    // global item indices (items.json), nil if unknown
	Names  []string // item names (empty strings if unknown)
	Labels []int    // class labels, nil if the data set has none
	// LabelNames name the labels (items.json label_names), nil if unknown.
	LabelNames []string
	Held       []bool // true for held-out items, embedded out of sample
	KL         float64
	// Of is the number of items the map stands for: len(X), or more when
	// it maps an evenly spaced subset of them (MaxMapPoints).
	Of int
}

// MaxMapPoints bounds the points of the map: exact t-SNE holds three n×n
// matrices and costs O(n²) per iteration (2.4 GB resident at 10⁴ items),
// so a larger embedding is mapped on an evenly spaced subset
// of this many of its items (mapSubset), in their order.
const MaxMapPoints = 2000

// mapSubset returns the indices of the points MapSeries maps out of n:
// all of them up to MaxMapPoints, else MaxMapPoints evenly spaced ones
// (⌊k·n/MaxMapPoints⌋), so that training and held-out items keep their
// proportions.
func mapSubset(n int) []int {
	m := min(n, MaxMapPoints)
	keep := make([]int, m)
	for k := range keep {
		keep[k] = k * n / m
	}
	return keep
}

// MapSeries maps the embedding of model m (split s) to the plane by [TSNE]
// with the given settings: the training items (the model's Train rows,
// items.json splits[s].train) and, if held is not nil, the held-out items
// embedded out of sample (rows in the order of splits[s].test). items may
// be nil (no names, no labels). Above MaxMapPoints items it maps an
// evenly spaced subset (mapSubset; MapData.Of counts them all).
func MapSeries(m *mkpoe.Model, held *mat.Dense, items *results.Items, split int, set *TSNESettings) (*MapData, error) {
	n := m.N
	x := mat.Matrix(m.Train)
	t := 0
	if held != nil {
		if _, c := held.Dims(); c != m.Dim() {
			return nil, fmt.Errorf("report: held-out embedding has %d columns, the model %d", c, m.Dim())
		}
		t, _ = held.Dims()
		var all mat.Dense
		all.Stack(m.Train, held)
		x = &all
	}
	keep := mapSubset(n + t)
	if len(keep) < n+t {
		_, d := x.Dims()
		sub := mat.NewDense(len(keep), d, nil)
		for k, i := range keep {
			for j := 0; j < d; j++ {
				sub.Set(k, j, x.At(i, j))
			}
		}
		x = sub
	}
	res, err := TSNE(x, set)
	if err != nil {
		return nil, err
	}
	np := len(keep)
	md := &MapData{X: make([]float64, np), Y: make([]float64, np), Names: make([]string, np), Held: make([]bool, np), KL: res.KL, Of: n + t}
	var ids []int
	if items != nil && split < len(items.Splits) && len(items.Splits[split].Train) == n {
		ids = items.Splits[split].Train
		if t > 0 {
			if len(items.Splits[split].Test) != t {
				return nil, fmt.Errorf("report: %d held-out rows but split %d has %d test items", t, split, len(items.Splits[split].Test))
			}
			ids = append(append([]int(nil), ids...), items.Splits[split].Test...)
		}
		if len(items.Labels) > 0 {
			md.Labels = make([]int, np)
			md.LabelNames = items.LabelNames
		}
		md.Items = make([]int, np)
	}
	for k, i := range keep {
		md.X[k], md.Y[k] = res.Y.At(k, 0), res.Y.At(k, 1)
		md.Held[k] = i >= n
		if ids != nil {
			g := ids[i]
			md.Items[k] = g
			if g < len(items.Names) {
				md.Names[k] = items.Names[g]
			}
			if md.Labels != nil && g < len(items.Labels) {
				md.Labels[k] = items.Labels[g]
			}
		}
	}
	return md, nil
}

// mapRow picks the model for the map: split 0 of the best-scoring K4 row,
// else of the best-scoring learned row. It returns -1 if there is none.
func mapRow(run *Run) int {
	best := -1
	for pass := 0; pass < 2 && best < 0; pass++ {
		for i := range run.Summary.Rows {
			r := &run.Summary.Rows[i]
			if !r.Learned() || run.model(r, 0) == nil || (pass == 0 && r.Method != "k4") {
				continue
			}
			if best < 0 || r.Mean > run.Summary.Rows[best].Mean {
				best = i
			}
		}
	}
	return best
}

// maxMapClasses is the most entries the map's class legend has: with more
// classes, the largest maxMapClasses−1 keep a colour each and the rest
// share one grey "other" entry, so that colours stay tellable apart.
const maxMapClasses = 10

// mapClass is one colour of the map: a class, or the classes lumped as
// "other", and the points (indices into md) it colours.
type mapClass struct {
	Name   string
	Points []int
}

// className names class label l of md: its entry in md.LabelNames, else
// "class l".
func (md *MapData) className(l int) string {
	if l >= 0 && l < len(md.LabelNames) && md.LabelNames[l] != "" {
		return md.LabelNames[l]
	}
	return fmt.Sprintf("class %d", l)
}

// mapClasses groups the points of md by class label for colouring: one
// group per label in increasing order, or, for more than maxMapClasses
// labels, the maxMapClasses−1 largest (ties: the smaller label) largest
// first, then "other (N classes)". Without labels there is one unnamed
// group.
func mapClasses(md *MapData) []mapClass {
	if md.Labels == nil {
		all := make([]int, len(md.X))
		for i := range all {
			all[i] = i
		}
		return []mapClass{{Points: all}}
	}
	byLabel := map[int][]int{}
	for i := range md.X {
		byLabel[md.Labels[i]] = append(byLabel[md.Labels[i]], i)
	}
	keys := make([]int, 0, len(byLabel))
	for l := range byLabel {
		keys = append(keys, l)
	}
	sort.Ints(keys)
	if len(keys) > maxMapClasses {
		sort.SliceStable(keys, func(a, b int) bool { return len(byLabel[keys[a]]) > len(byLabel[keys[b]]) })
	}
	var out []mapClass
	for k, l := range keys {
		if len(keys) > maxMapClasses && k == maxMapClasses-1 {
			var rest []int
			for _, l := range keys[k:] {
				rest = append(rest, byLabel[l]...)
			}
			sort.Ints(rest)
			out = append(out, mapClass{Name: fmt.Sprintf("other (%d classes)", len(keys)-k), Points: rest})
			break
		}
		out = append(out, mapClass{Name: md.className(l), Points: byLabel[l]})
	}
	return out
}

// MapFigure draws a MapData: points coloured by class label (one colour
// per class, at most maxMapClasses, named in a legend), held-out items
// marked with a red +, and item names beside a subset of points chosen so
// that no two names overlap. The SVG of [Figure.HoverSVG] names every
// point in a <title> (a tooltip on hover).
func MapFigure(row *results.Row, split int, md *MapData, th Theme) (*Figure, error) {
	what := "training items"
	for _, h := range md.Held {
		if h {
			what = "training and held-out items"
			break
		}
	}
	pl := th.newPlot(fmt.Sprintf("t-SNE map of the learned space: %s, split %d (%s)", row.Label, split, what), "", "")
	pl.HideAxes()
	// Up to 11 entries: spaced so that a wider fallback font (an SVG viewed
	// without Liberation Sans) does not run them together.
	pl.Legend.Padding = th.TickSize * 0.2
	var held plotter.XYs
	for i := range md.X {
		if md.Held != nil && md.Held[i] {
			held = append(held, plotter.XY{X: md.X[i], Y: md.Y[i]})
		}
	}
	classes := mapClasses(md)
	for k, c := range classes {
		var xys plotter.XYs
		for _, i := range c.Points {
			xys = append(xys, plotter.XY{X: md.X[i], Y: md.Y[i]})
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: th.Color(k), Radius: th.GlyphRadius * 1.3, Shape: draw.CircleGlyph{}}
		pl.Add(sc)
		if md.Labels != nil {
			pl.Legend.Add(c.Name, sc)
		}
	}
	if len(held) > 0 {
		// Out-of-sample points as a red +, as in the paper's Fig. 6.
		sc, err := plotter.NewScatter(held)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, Radius: th.GlyphRadius * 2.2, Shape: draw.PlusGlyph{}}
		pl.Add(sc)
		pl.Legend.Add("held-out (out of sample)", sc)
	}
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = mapRange(md, len(classes))
	if md.Labels != nil || len(held) > 0 {
		// The legend goes in the corner with the fewest points.
		pl.Legend.Left, pl.Legend.Top = emptiestCorner(md, pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max)
	}
	chosen := LabelSubset(md, th, th.MapSize, th.MapSize, pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max)
	if len(chosen) > 0 {
		var xys plotter.XYs
		var names []string
		for _, i := range chosen {
			xys = append(xys, plotter.XY{X: md.X[i], Y: md.Y[i]})
			names = append(names, md.Names[i])
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].Font = th.font(th.PointLabel)
			lab.TextStyle[i].Color = color.Gray{Y: 0x30}
			lab.TextStyle[i].YAlign = draw.YCenter
		}
		lab.Offset = vg.Point{X: th.GlyphRadius * 2}
		pl.Add(lab)
	}
	hover := &hoverPoints{radius: th.GlyphRadius * 2.2}
	for i := range md.X {
		hover.xys = append(hover.xys, plotter.XY{X: md.X[i], Y: md.Y[i]})
		hover.titles = append(hover.titles, md.pointTitle(i))
	}
	pl.Add(hover)
	colours := "Colours are class labels where the data set has them"
	if len(md.LabelNames) > 0 {
		colours = "Colours are the items' classes, named as items.json names them (aset400: each artist's main genre, see docs/datasets.md)"
	}
	if md.Labels != nil && len(classes) == maxMapClasses && strings.HasPrefix(classes[len(classes)-1].Name, "other (") {
		colours += fmt.Sprintf("; the %d largest classes have a colour each, the rest are grey (other)", maxMapClasses-1)
	}
	return &Figure{
		Name:  "fig-map",
		Title: "t-SNE map of the learned space",
		Caption: fmt.Sprintf("Exact t-SNE (seeded, KL = %.3f) of the learned embedding of row %q, outer split %d, in the manner of the paper's Fig. 6 (fig:embedding)%s. "+
			"%s; %d of %d items are named (a subset chosen so that names do not overlap). "+
			"Held-out items, embedded out of sample from their kernel rows against the training items, are marked with a red +.", md.KL, row.Label, split, mapOf(md), colours, len(chosen), len(md.X)),
		Panels: [][]*plot.Plot{{pl}}, Width: th.MapSize, Height: th.MapSize,
		hover: hover,
	}, nil
}

// mapOf says, for a map of a subset of its items, how many it shows.
func mapOf(md *MapData) string {
	if md.Of <= len(md.X) {
		return ""
	}
	return fmt.Sprintf(", on an evenly spaced subset of %d of its %d items (t-SNE costs n² per step)", len(md.X), md.Of)
}

// pointTitle is the hover text of point i of md: its name (else "item g"
// or "point i"), its class and whether it is held out.
func (md *MapData) pointTitle(i int) string {
	t := strings.TrimSpace(md.Names[i])
	if t == "" && md.Items != nil {
		t = fmt.Sprintf("item %d", md.Items[i])
	} else if t == "" {
		t = fmt.Sprintf("point %d", i)
	}
	var extra []string
	if md.Labels != nil {
		extra = append(extra, md.className(md.Labels[i]))
	}
	if md.Held != nil && md.Held[i] {
		extra = append(extra, "held out")
	}
	if len(extra) > 0 {
		t += " (" + strings.Join(extra, ", ") + ")"
	}
	return t
}

// mapRange is the data range [xmin,xmax]×[ymin,ymax] of the map of md
// with classes distinct labels: the points' range padded by 4%, with room
// for names at the right and, for more than 6 classes, for the legend.
func mapRange(md *MapData, classes int) (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = minMax(md.X)
	ymin, ymax = minMax(md.Y)
	dx, dy := (xmax-xmin)*0.04, (ymax-ymin)*0.04
	right := dx * 4
	if md.Labels != nil && classes > 6 {
		right = (xmax - xmin) * 0.45 // a tall, wide legend: keep it clear of the points
	}
	return xmin - dx, xmax + right, ymin - dy, ymax + dy
}

// mapNamed returns the points of md that [MapFigure] names (see
// [LabelSubset]), in increasing order.
func mapNamed(md *MapData, th Theme) []int {
	xmin, xmax, ymin, ymax := mapRange(md, len(mapClasses(md)))
	return LabelSubset(md, th, th.MapSize, th.MapSize, xmin, xmax, ymin, ymax)
}

// emptiestCorner returns the corner of the data range [xmin,xmax]×[ymin,ymax]
// whose box of 40% width and 35% height holds the fewest points (ties: top
// right, then top left, bottom right, bottom left).
func emptiestCorner(md *MapData, xmin, xmax, ymin, ymax float64) (left, top bool) {
	best := -1
	for _, c := range [][2]bool{{false, true}, {true, true}, {false, false}, {true, false}} {
		n := 0
		for i := range md.X {
			inX := md.X[i] > xmax-0.4*(xmax-xmin)
			if c[0] {
				inX = md.X[i] < xmin+0.4*(xmax-xmin)
			}
			inY := md.Y[i] > ymax-0.35*(ymax-ymin)
			if !c[1] {
				inY = md.Y[i] < ymin+0.35*(ymax-ymin)
			}
			if inX && inY {
				n++
			}
		}
		if best < 0 || n < best {
			best, left, top = n, c[0], c[1]
		}
	}
	return left, top
}

func minMax(x []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	return lo, hi
}

// LabelSubset chooses which points of md to name so that no two names
// overlap on a w×h plot of the data range [xmin,xmax]×[ymin,ymax]: points
// are visited farthest-first from the centre of the map (spreading the
// names), and a name is kept if its estimated box (0.55 em per character,
// beside the point) stays clear of every kept name and within the plot.
func LabelSubset(md *MapData, th Theme, w, h vg.Length, xmin, xmax, ymin, ymax float64) []int {
	n := len(md.X)
	sx := float64(w) / (xmax - xmin) // points per data unit
	sy := float64(h) / (ymax - ymin)
	em := float64(th.PointLabel)
	type box struct{ x0, x1, y0, y1 float64 }
	var kept []box
	var out []int
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	cx, cy := 0.0, 0.0
	for i := 0; i < n; i++ {
		cx += md.X[i] / float64(n)
		cy += md.Y[i] / float64(n)
	}
	dist := func(i int) float64 { return math.Hypot((md.X[i]-cx)*sx, (md.Y[i]-cy)*sy) }
	sort.SliceStable(order, func(a, b int) bool { return dist(order[a]) > dist(order[b]) })
	for _, i := range order {
		name := md.Names[i]
		if strings.TrimSpace(name) == "" {
			continue
		}
		x0 := (md.X[i]-xmin)*sx + 2*float64(th.GlyphRadius)
		y0 := (md.Y[i] - ymin) * sy
		b := box{x0, x0 + 0.55*em*float64(len([]rune(name))), y0 - 0.6*em, y0 + 0.6*em}
		if b.x1 > float64(w) || b.y0 < 0 || b.y1 > float64(h) {
			continue
		}
		clear := true
		for _, k := range kept {
			if b.x0 < k.x1+2 && k.x0 < b.x1+2 && b.y0 < k.y1+1 && k.y0 < b.y1+1 {
				clear = false
				break
			}
		}
		if clear {
			kept = append(kept, b)
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}

// slug turns a label into a file-name part: lower case letters, digits
// and '-'.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
