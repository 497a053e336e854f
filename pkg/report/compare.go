package report

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// CompareFormats are the output formats of [Comparison.Files], in the
// order they are written.
var CompareFormats = []string{"md", "html", "png", "svg", "csv"}

// Names of the files a comparison writes.
const (
	CompareMarkdown = "compare.md"
	CompareHTML     = "compare.html"
	CompareCSV      = "compare.csv"
	// CompareFigure is the stem of the overlaid validation figure
	// (compare-validation.png, .svg).
	CompareFigure = "compare-validation"
)

// CompareRun is one run of a comparison: the name its columns, legend
// entries and CSV lines carry, where it was read from, the loaded run
// directory and the problems the caller found in it (for example rejected
// task files), which the comparison lists prefixed with Name.
type CompareRun struct {
	Name     string
	Source   string
	Run      *Run
	Warnings []string
}

// Comparison sets several runs side by side: their rows matched by label,
// their claims matched by text, and one validation figure overlaying them.
// Run 0 is the reference: every difference is run k − run 0.
type Comparison struct {
	Runs   []CompareRun
	Rows   []CompareRow
	Claims []CompareClaim
	// Warnings: the runs differ in config or build, or mix absolute and
	// relative β grids; then each run's own warnings (its CompareRun
	// Warnings and its summary's), prefixed with the run's name.
	Warnings []string
	// Notes name the rows that some runs lack.
	Notes  []string
	Theme  Theme
	Figure *Figure // nil when no run has a learned row with a validation curve
	PNG    []byte  // Figure rendered as PNG
}

// CompareRow is one row label of a comparison: Rows[k] is the row of run k
// with that label (matched case-insensitively, as claims match rows), nil
// when run k lacks it. Label is the spelling of the first run that has it.
type CompareRow struct {
	Label string
	Rows  []*results.Row
}

// Diff is the difference of mean test accuracy, run k − run 0, on this
// row; NaN when either run lacks the row.
func (r CompareRow) Diff(k int) float64 {
	if k >= len(r.Rows) || r.Rows[0] == nil || r.Rows[k] == nil {
		return math.NaN()
	}
	return r.Rows[k].Mean - r.Rows[0].Mean
}

// CompareClaim is one claim text of a comparison: Claims[k] is run k's
// claim with that text (matched case-insensitively, surrounding spaces
// ignored), nil when run k's config does not make it.
type CompareClaim struct {
	Claim  string
	Claims []*results.Claim
}

// NewComparison matches the runs' rows and claims, checks whether they
// come from one config and one build (differences become warnings, not
// errors: comparing two β grids or two linear-algebra backends is the
// point) and draws the overlaid validation figure with th (nil:
// [DefaultTheme]). It needs at least two runs with distinct,
// non-empty names.
func NewComparison(runs []CompareRun, th *Theme) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("report: a comparison needs at least 2 runs, got %d", len(runs))
	}
	for i, r := range runs {
		if strings.TrimSpace(r.Name) == "" {
			return nil, fmt.Errorf("report: run %d has an empty name", i+1)
		}
		if r.Run == nil || r.Run.Summary == nil {
			return nil, fmt.Errorf("report: run %q has no summary", r.Name)
		}
		for _, o := range runs[:i] {
			if strings.EqualFold(o.Name, r.Name) {
				return nil, fmt.Errorf("report: two runs are named %q; names must differ (case-insensitively)", r.Name)
			}
		}
	}
	c := &Comparison{Runs: runs, Theme: DefaultTheme()}
	if th != nil {
		c.Theme = *th
	}
	c.matchRows()
	c.matchClaims()
	c.Warnings = c.differences()
	for _, r := range runs {
		for _, w := range append(slices.Clip(r.Warnings), r.Run.Summary.Warnings()...) {
			c.Warnings = append(c.Warnings, r.Name+": "+w)
		}
	}
	f, err := CompareValidationFigure(c)
	if err != nil {
		return nil, err
	}
	if f != nil {
		var b bytes.Buffer
		if err := f.Render(&b, "png", c.Theme.DPI); err != nil {
			return nil, fmt.Errorf("report: rendering %s: %w", f.Name, err)
		}
		c.Figure, c.PNG = f, b.Bytes()
	}
	return c, nil
}

// matchRows fills Rows in the order of run 0's rows, then the rows only
// later runs have, in order of first appearance; and Notes for the rows a
// run lacks.
func (c *Comparison) matchRows() {
	index := map[string]int{}
	for k, r := range c.Runs {
		for i := range r.Run.Summary.Rows {
			row := &r.Run.Summary.Rows[i]
			key := strings.ToLower(row.Label)
			j, ok := index[key]
			if !ok {
				j = len(c.Rows)
				index[key] = j
				c.Rows = append(c.Rows, CompareRow{Label: row.Label, Rows: make([]*results.Row, len(c.Runs))})
			}
			if c.Rows[j].Rows[k] == nil { // a duplicate label keeps its first row
				c.Rows[j].Rows[k] = row
			}
		}
	}
	for _, r := range c.Rows {
		var missing []string
		for k, x := range r.Rows {
			if x == nil {
				missing = append(missing, c.Runs[k].Name)
			}
		}
		if len(missing) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("row %q is absent from %s (shown as —)", r.Label, strings.Join(missing, ", ")))
		}
	}
}

// matchClaims fills Claims in the order of first appearance.
func (c *Comparison) matchClaims() {
	index := map[string]int{}
	for k, r := range c.Runs {
		for i := range r.Run.Summary.Claims {
			cl := &r.Run.Summary.Claims[i]
			key := strings.ToLower(strings.TrimSpace(cl.Claim))
			j, ok := index[key]
			if !ok {
				j = len(c.Claims)
				index[key] = j
				c.Claims = append(c.Claims, CompareClaim{Claim: strings.TrimSpace(cl.Claim), Claims: make([]*results.Claim, len(c.Runs))})
			}
			if c.Claims[j].Claims[k] == nil {
				c.Claims[j].Claims[k] = cl
			}
		}
	}
}

// differences returns the warnings about runs of different configs (name
// or config hash), different builds (Run.Backend: env.json's or
// provenance.json's linalg_backend), a mix of absolute and relative β
// grids, and outer splits (items.json) that differ from the first run's,
// when both runs record them.
func (c *Comparison) differences() []string {
	var out []string
	differ := func(get func(CompareRun) string) bool {
		for _, r := range c.Runs[1:] {
			if get(r) != get(c.Runs[0]) {
				return true
			}
		}
		return false
	}
	list := func(get func(CompareRun) string) string {
		parts := make([]string, len(c.Runs))
		for k, r := range c.Runs {
			parts[k] = r.Name + ": " + get(r)
		}
		return strings.Join(parts, "; ")
	}
	cfg := func(r CompareRun) string {
		return fmt.Sprintf("config %q, hash %s", r.Run.Summary.Name, orUnknown(r.Run.Summary.ConfigHash))
	}
	if differ(cfg) {
		out = append(out, "the runs are of different configs ("+list(cfg)+"); rows are matched by label")
	}
	backend := func(r CompareRun) string { return orUnknown(r.Run.Backend()) }
	if differ(backend) {
		out = append(out, "the runs come from different builds (linalg_backend: "+list(backend)+")")
	}
	grid := func(r CompareRun) string {
		if r.Run.Summary.BetaRelative {
			return "multiples of β_min"
		}
		return "absolute β"
	}
	if differ(grid) {
		out = append(out, "the β grids are of different kinds ("+list(grid)+"); the validation figure's x axes do not mean the same")
	}
	for _, r := range c.Runs[1:] {
		a, b := c.Runs[0].Run.Items, r.Run.Items
		if a != nil && b != nil && !sameSplits(a.Splits, b.Splits) {
			out = append(out, fmt.Sprintf("the outer splits of %s and %s differ (items.json): their accuracies are measured on different test items, so Δ is not a paired difference", c.Runs[0].Name, r.Name))
		}
	}
	return out
}

// sameSplits reports whether two runs' outer splits hold the same
// training and test items.
func sameSplits(a, b []results.Split) bool {
	return slices.EqualFunc(a, b, func(x, y results.Split) bool {
		return slices.Equal(x.Train, y.Train) && slices.Equal(x.Test, y.Test)
	})
}

func orUnknown(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// Files renders the comparison in the given formats (nil: all of
// [CompareFormats]): compare.md, compare.html (self-contained, the figure
// embedded), compare-validation.png and .svg (when some run has a
// validation curve) and compare.csv.
func (c *Comparison) Files(formats []string) ([]File, error) {
	if err := checkFormats("comparison format", formats, CompareFormats); err != nil {
		return nil, err
	}
	if formats == nil {
		formats = CompareFormats
	}
	var files fileList
	add := files.add
	for _, f := range CompareFormats {
		if !slices.Contains(formats, f) {
			continue
		}
		var err error
		switch f {
		case "md":
			err = add(CompareMarkdown, c.Markdown)
		case "html":
			err = add(CompareHTML, c.HTML)
		case "png":
			if c.Figure != nil {
				files = append(files, File{Name: CompareFigure + ".png", Data: c.PNG})
			}
		case "svg":
			if c.Figure != nil {
				err = add(CompareFigure+".svg", func(w io.Writer) error { return c.Figure.Render(w, "svg", c.Theme.DPI) })
			}
		case "csv":
			err = add(CompareCSV, c.CSV)
		}
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// accuracyCell is a run's accuracy on a row as the tables print it: mean
// ± sample sd over splits (mean alone for one split), † when some fit did
// not converge, "—" when the run lacks the row.
func (c *Comparison) accuracyCell(k int, r *results.Row) string {
	if r == nil {
		return "—"
	}
	v := format(r.Mean)
	if c.Runs[k].Run.Summary.Splits > 1 || len(r.Accuracy) > 1 {
		v += " ± " + format(r.Std)
	}
	if r.NotConverged() {
		v += dagger
	}
	if r.Stationary() > 0 {
		v += ddagger
	}
	return v
}

// betaCell is the β chosen per split ("—": a native row or a missing row);
// for a relative grid, each as its multiple of that split's β_min.
func betaCell(r *results.Row) string {
	if r == nil || len(r.Beta) == 0 {
		return "—"
	}
	parts := make([]string, len(r.Beta))
	for i, v := range r.Beta {
		parts[i] = fmt.Sprintf("%g", v)
		if len(r.BetaMultiple) == len(r.Beta) {
			parts[i] = fmt.Sprintf("%g·β_min", r.BetaMultiple[i])
		}
		parts[i] = r.WithRank(i, parts[i])
	}
	return strings.Join(parts, ", ")
}

// diffCell is a difference with its sign and three decimals, "—" for NaN.
func diffCell(d float64) string {
	if math.IsNaN(d) {
		return "—"
	}
	return fmt.Sprintf("%+.3f", d)
}

// header returns the columns of the side-by-side table: the row, then per
// run its accuracy and chosen β, then per later run the difference.
func (c *Comparison) header() []string {
	h := []string{"Row"}
	for _, r := range c.Runs {
		h = append(h, r.Name+" accuracy", r.Name+" β")
	}
	for _, r := range c.Runs[1:] {
		h = append(h, "Δ "+r.Name+" − "+c.Runs[0].Name)
	}
	return h
}

// cells returns the side-by-side table's cells, one slice per row.
func (c *Comparison) cells() [][]string {
	var out [][]string
	for _, row := range c.Rows {
		line := []string{row.Label}
		for k, r := range row.Rows {
			line = append(line, c.accuracyCell(k, r), betaCell(r))
		}
		for k := 1; k < len(c.Runs); k++ {
			line = append(line, diffCell(row.Diff(k)))
		}
		out = append(out, line)
	}
	return out
}

// claimHeader and claimCells lay out the claims side by side: per
// run the difference with its 95% interval, and the verdict.
func (c *Comparison) claimHeader() []string {
	h := []string{"Claim"}
	for _, r := range c.Runs {
		h = append(h, r.Name+" difference [95% interval]", r.Name+" verdict")
	}
	return h
}

func (c *Comparison) claimCells() [][]string {
	var out [][]string
	for _, cl := range c.Claims {
		line := []string{cl.Claim}
		for _, x := range cl.Claims {
			if x == nil {
				line = append(line, "—", "—")
				continue
			}
			cells := x.Cells(3)
			diff := cells[results.ClaimCellDifference]
			switch {
			case x.Clustered != nil:
				diff += " " + cells[results.ClaimCellClustered]
			case x.Interval != nil:
				diff += " " + cells[results.ClaimCellIID] + " i.i.d."
			case x.Note != "":
				diff += " (" + x.Note + ")"
			}
			line = append(line, diff, "holds "+cells[results.ClaimCellHolds]+"; i.i.d. above 0 "+cells[results.ClaimCellIIDAbove])
		}
		out = append(out, line)
	}
	return out
}

// tableCaption is the results table's caption: compareTableCaption, and
// the meaning of ‡ when some row of a run has stationary fits.
func (c *Comparison) tableCaption() string {
	for _, r := range c.Rows {
		for _, rr := range r.Rows {
			if rr != nil && rr.Stationary() > 0 {
				return compareTableCaption + " " + ddagger + ": " + stationaryNote + "."
			}
		}
	}
	return compareTableCaption
}

const compareTableCaption = "Test accuracy (fraction of held-out comparisons satisfied; ties count as errors), mean ± sample standard deviation over each run's outer splits, " +
	"and the β chosen per split; Δ is the difference of mean accuracy with the first run. Rows are matched by label, case-insensitively; — marks a row a run lacks. " + dagger + ": " + notConvergedNote + "."

const compareClaimsCaption = "Each run's better − worse test accuracy, matched by claim text, with its 95% interval that resamples anchor items " +
	"(the i.i.d. paired bootstrap interval, marked so, for runs that lack it); holds: the anchor-clustered interval lies above 0 and the " +
	"Holm-adjusted p is below 0.05; i.i.d. above 0: the i.i.d. interval lies above 0 (see each run's report)."

// runsTable describes each run: name, directory, config, hash, build, splits and β grid.
func (c *Comparison) runsTable() (header []string, rows [][]string) {
	header = []string{"Run", "Directory", "Config", "Config hash", "linalg_backend", "Revision", "Splits × inner folds", "β grid"}
	for _, r := range c.Runs {
		s := r.Run.Summary
		grid := joinFloats(s.BetaGrid, func(v float64) string { return fmt.Sprintf("%g", v) })
		if s.BetaRelative {
			grid += " (× β_min)"
		}
		rows = append(rows, []string{r.Name, r.Source, s.Name, orUnknown(s.ConfigHash), orUnknown(r.Run.Backend()),
			orUnknown(r.Run.Revision()), fmt.Sprintf("%d × %d", s.Splits, s.InnerFolds), grid})
	}
	return header, rows
}

// Markdown writes compare.md: warnings, the runs, the side-by-side table
// with its notes, the claims and the figure's caption.
func (c *Comparison) Markdown(w io.Writer) error {
	var b strings.Builder
	names := make([]string, len(c.Runs))
	for k, r := range c.Runs {
		names[k] = r.Name
	}
	fmt.Fprintf(&b, "# Comparison: %s\n\n", mdEscape(strings.Join(names, " vs ")))
	b.WriteString(markdownList("Warnings", c.Warnings))
	// mdTable writes a table; align is the separator of every column but
	// the first ("---" left, "---:" right).
	mdTable := func(align string, header []string, rows [][]string) {
		esc := func(cells []string) string {
			out := make([]string, len(cells))
			for i, s := range cells {
				out[i] = mdEscape(s)
			}
			return "| " + strings.Join(out, " | ") + " |\n"
		}
		b.WriteString(esc(header) + "|---|" + strings.Repeat(align+"|", len(header)-1) + "\n")
		for _, r := range rows {
			b.WriteString(esc(r))
		}
	}
	b.WriteString("## Runs\n\n")
	rh, rr := c.runsTable()
	mdTable("---", rh, rr)
	b.WriteString("\n## Results\n\n")
	mdTable("---:", c.header(), c.cells())
	b.WriteString("\n" + c.tableCaption() + "\n\n")
	b.WriteString(markdownList("Missing rows", c.Notes))
	if len(c.Claims) > 0 {
		b.WriteString("## Claims\n\n")
		mdTable("---", c.claimHeader(), c.claimCells())
		b.WriteString("\n" + compareClaimsCaption + "\n\n")
	}
	if c.Figure != nil {
		fmt.Fprintf(&b, "## Figure\n\n![%s](%s.png)\n\n%s\n", mdEscape(c.Figure.Title), c.Figure.Name, mdEscape(c.Figure.Caption))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Text writes the side-by-side table (and the claims, if any) as aligned
// plain text, for a terminal.
func (c *Comparison) Text(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	write := func(header []string, rows [][]string) {
		fmt.Fprintln(tw, strings.Join(header, "\t"))
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
	}
	write(c.header(), c.cells())
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range c.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	if len(c.Claims) > 0 {
		fmt.Fprintln(w)
		write(c.claimHeader(), c.claimCells())
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// CompareCSVHeader names the columns of [Comparison.CSV].
var CompareCSVHeader = []string{"run", "run_dir", "row", "present", "method", "mode", "splits", "mean_accuracy", "std_accuracy",
	"accuracy_per_split", "beta_per_split", "beta_multiple_per_split", "diff_vs_first"}

// CSV writes compare.csv: one line per run and row label (tidy, run-major
// in the order of the table), with the run's name and directory, the row
// label, present (false: the run lacks the row, and the values are
// empty), the method and mode, the run's number of outer splits, the mean
// and sample standard deviation of the test accuracy, the accuracy and
// chosen β (and, for a relative grid, the chosen multiple of β_min) per
// split joined by ";", and diff_vs_first, the mean accuracy minus the
// first run's on that row (empty for the first run and where either lacks
// the row). Numbers are in the shortest form that reads back exactly, as
// in the run directory's CSV files.
func (c *Comparison) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CompareCSVHeader); err != nil {
		return err
	}
	num := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	join := func(x []float64) string {
		parts := make([]string, len(x))
		for i, v := range x {
			parts[i] = num(v)
		}
		return strings.Join(parts, ";")
	}
	for k, run := range c.Runs {
		for _, row := range c.Rows {
			r := row.Rows[k]
			line := []string{run.Name, run.Source, row.Label, "false", "", "", strconv.Itoa(run.Run.Summary.Splits), "", "", "", "", "", ""}
			if r != nil {
				diff := ""
				if k > 0 {
					diff = num(row.Diff(k))
				}
				line = []string{run.Name, run.Source, row.Label, "true", r.Method, r.Mode, strconv.Itoa(run.Run.Summary.Splits),
					num(r.Mean), num(r.Std), join(r.Accuracy), join(r.Beta), join(r.BetaMultiple), diff}
			}
			if err := cw.Write(line); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// ---- Figure: validation curves of several runs overlaid ----

// MeanValidation returns a learned row's validation curve averaged over
// its outer splits: the β grid (multiples of β_min for a relative grid),
// per β the mean over splits of the mean inner-CV validation accuracy
// (NaN splits left out), and the band the report's validation figure
// draws widened over splits: the lowest and highest single inner fold's
// accuracy on any split (nil when the summary does not record them).
// chosen holds the grid index of each split's chosen β (-1: not in the
// grid). With one outer split it is exactly [ValidationSeries] and
// [ValidationBand].
func MeanValidation(s *results.Summary, row *results.Row) (betas, mean, lo, hi []float64, chosen []int) {
	betas, curves, chosen := ValidationSeries(s, row)
	if len(curves) == 0 {
		return betas, nil, nil, nil, chosen
	}
	mean = make([]float64, len(betas))
	banded := len(row.ValFoldMin) == len(curves) && len(row.ValFoldMax) == len(curves)
	if banded {
		lo, hi = make([]float64, len(betas)), make([]float64, len(betas))
	}
	for b := range betas {
		sum, n := 0.0, 0
		l, h := math.Inf(1), math.Inf(-1)
		for sp, c := range curves {
			if b < len(c) && !math.IsNaN(c[b]) {
				sum += c[b]
				n++
			}
			if banded {
				fl, fh := ValidationBand(row, sp)
				if b < len(fl) && !math.IsNaN(fl[b]) {
					l = math.Min(l, fl[b])
				}
				if b < len(fh) && !math.IsNaN(fh[b]) {
					h = math.Max(h, fh[b])
				}
			}
		}
		mean[b] = math.NaN()
		if n > 0 {
			mean[b] = sum / float64(n)
		}
		if banded {
			lo[b], hi[b] = l, h
			if math.IsInf(l, 0) || math.IsInf(h, 0) { // no finite fold: NaN, as the summary writes it
				lo[b], hi[b] = math.NaN(), math.NaN()
			}
		}
	}
	return betas, mean, lo, hi, chosen
}

// CompareValidationFigure draws, per row label that some run learned, one
// panel overlaying every run's [MeanValidation] curve against β (log
// axis): one colour and point shape per run (the theme's palette in run order), its band
// shaded in that colour, the β chosen on each split ringed, and a legend
// with the run names. Panels are tiled two per line. It returns nil when
// no run has a validation curve.
func CompareValidationFigure(c *Comparison) (*Figure, error) {
	th := c.Theme
	var panels []*plot.Plot
	banded := false
	relative := false
	for _, r := range c.Runs {
		relative = relative || r.Run.Summary.BetaRelative
	}
	for _, row := range c.Rows {
		type curve struct {
			k                   int
			betas, mean, lo, hi []float64
			chosen              []int
		}
		var curves []curve
		for k, r := range row.Rows {
			if r == nil {
				continue
			}
			betas, mean, lo, hi, chosen := MeanValidation(c.Runs[k].Run.Summary, r)
			if len(finiteXYs(betas, mean)) == 0 {
				continue
			}
			curves = append(curves, curve{k, betas, mean, lo, hi, chosen})
		}
		if len(curves) == 0 {
			continue
		}
		xLabel := "β"
		if relative {
			xLabel = "β / β_min (β on absolute grids)"
		}
		pl := th.newPlot(row.Label, xLabel, "validation accuracy")
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = logTicks{}
		for _, cv := range curves {
			pg, err := bandPolygon(cv.betas, cv.lo, cv.hi, th.Color(cv.k))
			if err != nil {
				return nil, err
			}
			if pg != nil {
				pl.Add(pg)
				banded = true
			}
		}
		for _, cv := range curves {
			l, pts, err := plotter.NewLinePoints(finiteXYs(cv.betas, cv.mean))
			if err != nil {
				return nil, err
			}
			l.LineStyle = th.line(cv.k)
			pts.GlyphStyle = draw.GlyphStyle{Color: th.Color(cv.k), Radius: th.GlyphRadius, Shape: runGlyphs[cv.k%len(runGlyphs)]}
			pl.Add(l, pts)
			pl.Legend.Add(c.Runs[cv.k].Name, l, pts)
			var picked plotter.XYs
			seen := map[int]bool{}
			for _, b := range cv.chosen {
				if b >= 0 && b < len(cv.mean) && !seen[b] && !math.IsNaN(cv.mean[b]) {
					seen[b] = true
					picked = append(picked, plotter.XY{X: cv.betas[b], Y: cv.mean[b]})
				}
			}
			if len(picked) > 0 {
				mark, err := plotter.NewScatter(picked)
				if err != nil {
					return nil, err
				}
				mark.GlyphStyle = draw.GlyphStyle{Color: th.Color(cv.k), Radius: th.GlyphRadius * 2.6, Shape: draw.RingGlyph{}}
				pl.Add(mark)
			}
		}
		padY(pl)
		padLogX(pl)
		// Headroom for the legend (top right) above the curves.
		pl.Y.Max += (pl.Y.Max - pl.Y.Min) * 0.09 * float64(len(curves))
		pl.Y.Tick.Marker = accuracyTicks{}
		panels = append(panels, pl)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	g := grid(panels, 2)
	caption := "Validation accuracy against β (log scale) for each learned row, one colour and point shape per run: the mean over the run's outer splits of the mean inner-CV validation accuracy; " +
		"the β chosen on each outer split is ringed in the run's colour."
	if banded {
		caption += " The shaded band spans the lowest to the highest single inner fold's validation accuracy over all of the run's outer splits (min–max, not a standard deviation)."
	}
	if relative {
		caption += " Some runs use a relative grid: their β axis is the multiple of each training set's β_min."
	}
	return &Figure{
		Name: CompareFigure, Title: "Validation accuracy against β, runs overlaid", Caption: caption,
		Panels: g, Width: th.PanelWidth * vg.Length(len(g[0])), Height: th.PanelHeight * vg.Length(len(g)),
	}, nil
}

// runGlyphs mark the points of run k's curve (cycled), so that the runs
// differ without colour too.
var runGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.SquareGlyph{}}

var comparePage = template.Must(template.New("compare").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}: mkpoe comparison</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; max-width: 1300px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #888; }
table.kv td, table.kv th { text-align: left; }
td.missing { color: #999; }
td.up { color: #1a7f37; } td.down { color: #b00000; }
.warnings { border-left: 4px solid #b00000; background: #fff4f4; padding: 0.4em 1em; }
.data { border-left: 4px solid #606060; background: #f6f6f6; padding: 0.4em 1em; }
.caption { font-size: 0.9em; color: #444; max-width: 900px; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>Comparison of {{len .Runs}} run directories, rebuilt from their result files by <code>mkpoe compare</code> (no refitting); differences are with the first run.</p>
{{if .Warnings}}
<div class="warnings"><b>Warnings</b><ul>
{{range .Warnings}}<li>{{.}}</li>
{{end}}</ul></div>{{end}}

<h2>Runs</h2>
<table class="kv">
<thead><tr>{{range .RunsHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Runs}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>

<h2>Results</h2>
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p class="caption">{{.Caption}}</p>
{{if .Notes}}<div class="data"><b>Missing rows</b><ul>
{{range .Notes}}<li>{{.}}</li>
{{end}}</ul></div>{{end}}
{{if .Claims}}
<h2>Claims</h2>
<table>
<thead><tr>{{range .ClaimHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Claims}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p class="caption">{{.ClaimsCaption}}</p>
{{end}}
{{with .Figure}}
<h2>Figure</h2>
<figure id="{{.Name}}">
<img src="{{.Src}}" alt="{{.Title}}" width="{{.Width}}">
<figcaption class="caption"><b>{{.Title}}.</b> {{.Caption}}</figcaption>
</figure>
{{end}}
</body>
</html>
`))

// htmlCell is a table cell with an optional CSS class.
type htmlCell struct{ Text, Class string }

// HTML writes compare.html: one self-contained page with the warnings, the
// runs, the side-by-side table, the claims and the figure as an embedded
// PNG.
func (c *Comparison) HTML(w io.Writer) error {
	names := make([]string, len(c.Runs))
	for k, r := range c.Runs {
		names[k] = r.Name
	}
	runsHeader, runs := c.runsTable()
	data := struct {
		Title                  string
		Warnings, Notes        []string
		RunsHeader, Header     []string
		Runs                   [][]string
		Rows                   [][]htmlCell
		Caption, ClaimsCaption string
		ClaimHeader            []string
		Claims                 [][]string
		Figure                 *htmlFigure
	}{
		Title: "Comparison: " + strings.Join(names, " vs "), Warnings: c.Warnings, Notes: c.Notes,
		RunsHeader: runsHeader, Runs: runs, Header: c.header(), Caption: c.tableCaption(),
		ClaimsCaption: compareClaimsCaption,
	}
	for i, line := range c.cells() {
		var cells []htmlCell
		for j, s := range line {
			cl := htmlCell{Text: s}
			if s == "—" {
				cl.Class = "missing"
			}
			if j > 2*len(c.Runs) {
				switch d := c.Rows[i].Diff(j - 2*len(c.Runs)); {
				case d > 0:
					cl.Class = "up"
				case d < 0:
					cl.Class = "down"
				}
			}
			cells = append(cells, cl)
		}
		data.Rows = append(data.Rows, cells)
	}
	if len(c.Claims) > 0 {
		data.ClaimHeader, data.Claims = c.claimHeader(), c.claimCells()
	}
	if f := c.Figure; f != nil {
		data.Figure = &htmlFigure{Name: f.Name, Title: f.Title, Caption: f.Caption,
			Src:   template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(c.PNG)),
			Width: int(f.Width.Points() * 96 / 72)}
	}
	return comparePage.Execute(w, data)
}
