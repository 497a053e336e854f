package report

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// Formats are the output formats of [Build], in the order they are written.
var Formats = []string{"md", "tex", "png", "svg", "html", "ipynb", "csv"}

// Options control [Build]. The zero value writes every format with
// [DefaultTheme] and default t-SNE settings.
type Options struct {
	// Formats selects outputs among [Formats] (nil: all). HTML and ipynb
	// embed PNGs whether or not "png" is selected.
	Formats []string
	// Theme is the figures' look (nil: DefaultTheme()).
	Theme *Theme
	// TSNE configures the map (nil: defaults, seed 1).
	TSNE *TSNESettings
	// Source names the run directory in the reports (provenance).
	Source string
	// NotebookRunDir is the run directory as report.ipynb finds it:
	// relative to the directory the notebook is written to, or absolute
	// ("": "..", right for the default RUN_DIR/report). It is the default of
	// the notebook's RUN_DIR variable.
	NotebookRunDir string
	// Warnings are problems the caller found in the run directory (for
	// example task files that were rejected); every format shows them at
	// the top, before the summary's own [results.Summary.Warnings].
	Warnings []string
}

// File is one output of [Build]: a name (no directories) and its content.
type File struct {
	Name string
	Data []byte
}

// Report holds the pieces a report is made of, before they are encoded.
type Report struct {
	Run     *Run
	Table   *Table
	Figures []*Figure
	PNG     map[string][]byte // figure name → PNG
	Source  string
	Theme   Theme
	// Warnings: Options.Warnings, then the summary's (NaN rows and columns).
	Warnings []string
	// Map is what the map figure (fig-map) shows, MapRow the index in
	// Run.Summary.Rows of the row it maps (split 0); Map is nil without a map.
	Map    *MapData
	MapRow int
	// NotebookRunDir: see [Options].
	NotebookRunDir string
}

// Build makes every piece of a run's report: the table (Markdown, LaTeX),
// the figures (PNG, SVG), one self-contained HTML file and a Jupyter
// notebook, and returns them as files named table.md, table.tex,
// fig-*.png, fig-*.svg, report.html, report.ipynb, with the notebook
// fig-map.tsv (the map's coordinates, which the notebook plots), and
// table.csv and fits.csv (format csv: [results.WriteTableCSV] and
// [results.WriteFitsCSV]; fits.csv from Run.Tasks). It reads
// only run (no refitting) and returns an error for an unknown format.
func Build(run *Run, opts Options) ([]File, error) {
	if err := checkFormats("format", opts.Formats, Formats); err != nil {
		return nil, err
	}
	rep, err := NewReport(run, opts)
	if err != nil {
		return nil, err
	}
	return rep.Files(opts.Formats)
}

// fileList collects rendered files in memory, in the order added.
type fileList []File

// add renders a file named name with write and appends it.
func (fl *fileList) add(name string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return fmt.Errorf("report: writing %s: %w", name, err)
	}
	*fl = append(*fl, File{Name: name, Data: b.Bytes()})
	return nil
}

// missingModelsWarning says which model files a run directory lacks (none:
// nil), so that a report of committed results without models explains its
// missing figures.
func missingModelsWarning(run *Run) []string {
	if len(run.MissingModels) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d model file(s) named by summary.json are absent (e.g. %s): the figures that need a model (maps, kernel weights, objective traces) leave their rows out", len(run.MissingModels), run.MissingModels[0])}
}

// checkFormats returns an error for a format not among allowed ([Formats]
// of a report, [CompareFormats] of a comparison); what names the kind.
func checkFormats(what string, formats, allowed []string) error {
	for _, f := range formats {
		if !slices.Contains(allowed, f) {
			return fmt.Errorf("report: %s must be one of %s, got %q", what, strings.Join(allowed, ","), f)
		}
	}
	return nil
}

// Files renders the report in the given formats (nil: all of [Formats]);
// see [Build] for the file names.
func (rep *Report) Files(formats []string) ([]File, error) {
	if err := checkFormats("format", formats, Formats); err != nil {
		return nil, err
	}
	if formats == nil {
		formats = Formats
	}
	want := map[string]bool{}
	for _, f := range formats {
		want[f] = true
	}
	var files fileList
	add := files.add
	if want["md"] {
		if err := add("table.md", rep.Markdown); err != nil {
			return nil, err
		}
	}
	if want["tex"] {
		if err := add("table.tex", rep.LaTeX); err != nil {
			return nil, err
		}
	}
	for _, f := range rep.Figures {
		if want["png"] {
			files = append(files, File{Name: f.Name + ".png", Data: rep.PNG[f.Name]})
		}
		if want["svg"] {
			if err := add(f.Name+".svg", f.HoverSVG); err != nil {
				return nil, err
			}
		}
	}
	if want["html"] {
		if err := add("report.html", rep.HTML); err != nil {
			return nil, err
		}
	}
	if want["ipynb"] {
		if err := add("report.ipynb", rep.Notebook); err != nil {
			return nil, err
		}
		if rep.Map != nil {
			if err := add("fig-map.tsv", rep.MapTSV); err != nil {
				return nil, err
			}
		}
	}
	if want["csv"] {
		if err := add(results.TableCSV, func(w io.Writer) error { return results.WriteTableCSV(w, rep.Run.Summary) }); err != nil {
			return nil, err
		}
		if err := add(results.FitsCSV, func(w io.Writer) error { return results.WriteFitsCSV(w, rep.Run.Summary, rep.Run.Tasks) }); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// NewReport lays out the table, builds the figures and renders their PNGs.
// Figures: the validation curves and objective traces of every learned
// row; the diagonal weights of every diagonal K4 refit (one figure per
// row and split); the t-SNE map of split 0 of the best K4 row (or of the
// best learned row if no K4 row exists).
func NewReport(run *Run, opts Options) (*Report, error) {
	th := DefaultTheme()
	if opts.Theme != nil {
		th = *opts.Theme
	}
	rep := &Report{Run: run, Table: NewTable(run.Summary), PNG: map[string][]byte{}, Source: opts.Source, Theme: th,
		Warnings: append(append(slices.Clip(opts.Warnings), missingModelsWarning(run)...), run.Summary.Warnings()...), MapRow: -1, NotebookRunDir: opts.NotebookRunDir}
	if rep.NotebookRunDir == "" {
		rep.NotebookRunDir = ".."
	}
	s := run.Summary
	if f, err := ValidationFigure(s, th); err != nil {
		return nil, err
	} else if f != nil {
		rep.Figures = append(rep.Figures, f)
	}
	if f, err := ObjectiveFigure(run, th); err != nil {
		return nil, err
	} else if f != nil {
		rep.Figures = append(rep.Figures, f)
	}
	for i := range s.Rows {
		row := &s.Rows[i]
		if row.Method != "k4" || row.Mode != "diag" {
			continue
		}
		for sp := range row.Models {
			m := run.model(row, sp)
			if m == nil {
				continue
			}
			f, err := WeightsFigure(row, sp, m, th)
			if err != nil {
				return nil, err
			}
			f.row, f.split = i, sp
			rep.Figures = append(rep.Figures, f)
		}
	}
	if r := mapRow(run); r >= 0 {
		set := TSNESettings{Seed: 1}
		if opts.TSNE != nil {
			set = *opts.TSNE
		}
		row := &s.Rows[r]
		if m := run.model(row, 0); m != nil && m.N >= 4 {
			md, err := MapSeries(m, run.Held[row.Models[0]], run.Items, 0, &set)
			if err != nil {
				return nil, err
			}
			f, err := MapFigure(row, 0, md, th)
			if err != nil {
				return nil, err
			}
			f.row = r
			rep.Figures = append(rep.Figures, f)
			rep.Map, rep.MapRow = md, r
		}
	}
	for _, f := range rep.Figures {
		var b bytes.Buffer
		if err := f.Render(&b, "png", th.DPI); err != nil {
			return nil, fmt.Errorf("report: rendering %s: %w", f.Name, err)
		}
		rep.PNG[f.Name] = b.Bytes()
	}
	return rep, nil
}

// MapTSV writes the points of the map figure (fig-map.tsv), one line per
// point under a header: item (global index in items.json, empty if
// unknown), name, label (class label, empty if none), x, y (the t-SNE
// coordinates drawn, shortest round-trip decimals), held (1: a held-out
// item embedded out of sample, as the red + of the paper's Fig. 6) and
// named (1: named in the figure). Tabs and line breaks in names become
// spaces. The notebook's map cell plots this file.
func (rep *Report) MapTSV(w io.Writer) error {
	md := rep.Map
	if md == nil {
		return errors.New("report: no map")
	}
	named := map[int]bool{}
	for _, i := range mapNamed(md, rep.Theme) {
		named[i] = true
	}
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	var b strings.Builder
	b.WriteString("item\tname\tlabel\tx\ty\theld\tnamed\n")
	for i := range md.X {
		item, label := "", ""
		if md.Items != nil {
			item = strconv.Itoa(md.Items[i])
		}
		if md.Labels != nil {
			label = strconv.Itoa(md.Labels[i])
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", item, clean.Replace(md.Names[i]), label,
			strconv.FormatFloat(md.X[i], 'g', -1, 64), strconv.FormatFloat(md.Y[i], 'g', -1, 64),
			flag(md.Held != nil && md.Held[i]), flag(named[i]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes the table, the per-row details and the figure list as
// Markdown (table.md).
func (rep *Report) Markdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(rep.Run.Summary.Name))
	b.WriteString(rep.warningsMarkdown())
	b.WriteString(rep.dataNotesMarkdown())
	if err := rep.Table.Markdown(&b); err != nil {
		return err
	}
	b.WriteString(rep.claimsMarkdown())
	b.WriteString("\n## Rows\n\n")
	b.WriteString(rep.detailsMarkdown())
	_, err := w.Write(b.Bytes())
	return err
}

// dataNotes are the run's data notes (items.json notes: what the loader
// left out or built, such as a clustered taxonomy), nil if none.
func (rep *Report) dataNotes() []string {
	if rep.Run.Items == nil {
		return nil
	}
	return rep.Run.Items.Notes
}

// dataNotesMarkdown is the data notes as a Markdown list under a bold
// title, or "" when there are none.
func (rep *Report) dataNotesMarkdown() string { return markdownList("Data", rep.dataNotes()) }

// warningsMarkdown is the Warnings as a Markdown list under a bold title,
// or "" when there are none.
func (rep *Report) warningsMarkdown() string { return markdownList("Warnings", rep.Warnings) }

// markdownList writes items as a Markdown list under a bold title, or ""
// when there are none.
func markdownList(title string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", title)
	for _, it := range items {
		fmt.Fprintf(&b, "- %s\n", mdEscape(it))
	}
	b.WriteString("\n")
	return b.String()
}

// detail is one line of the per-row details table.
type detail struct {
	Label, Method, Kernels, Accuracy, Beta, Train, Test, Paper string
	HalfTies, TieRate                                          string // "—" when the tallies were not recorded
	Convergence                                                string // "—" (no fits), "all converged (max gap …)", "† 3 of 10 fits not converged (max gap …)", "‡ 4 of 10 fits stationary, 6 certified (max gap …)" or "not recorded"
	NotConverged                                               bool
}

// methodName is a method as the tables and the config's default labels
// write it: "native", "K1", "K4".
func methodName(method string) string {
	if method == "native" {
		return method
	}
	return strings.ToUpper(method)
}

func (rep *Report) details() []detail {
	var out []detail
	for _, r := range rep.Run.Summary.Rows {
		d := detail{Label: r.Label, Method: strings.TrimSpace(methodName(r.Method) + " " + r.Mode), Kernels: strings.Join(r.Kernels, " + ")}
		d.Accuracy = joinFloats(r.Accuracy, format)
		d.HalfTies, d.TieRate = "—", "—"
		if r.TestTallies != nil {
			_, m, sd := r.HalfTies()
			d.HalfTies = format(m)
			if len(r.TestTallies) > 1 {
				d.HalfTies += " ± " + format(sd)
			}
			d.TieRate = format(r.TieRate())
		}
		parts := make([]string, len(r.Beta))
		for i, v := range r.Beta {
			parts[i] = fmt.Sprintf("%g", v)
			if len(r.BetaMultiple) == len(r.Beta) {
				// A relative grid: each β with its multiple of that split's β_min.
				parts[i] = fmt.Sprintf("%.4g (%g·β_min)", v, r.BetaMultiple[i])
			}
			parts[i] = r.WithRank(i, parts[i])
		}
		d.Beta = strings.Join(parts, ", ")
		d.Train = joinInts(r.TrainComparisons)
		d.Test = joinInts(r.TestComparisons)
		if r.TestMissing != nil {
			d.Test += " (with an item a kernel lacks: " + joinInts(r.TestMissing) + ")"
		}
		if r.Paper != nil {
			d.Paper = format(*r.Paper)
		}
		d.Convergence, d.NotConverged = convergence(&r)
		out = append(out, d)
	}
	return out
}

// convergence describes the fits of a row for the details table.
func convergence(r *results.Row) (string, bool) {
	maxGap := ""
	if r.MaxGap != nil {
		maxGap = fmt.Sprintf(" (max gap %.1e", *r.MaxGap)
		if r.MaxIterations != nil {
			maxGap += fmt.Sprintf(", ≤ %d iterations", *r.MaxIterations)
		}
		maxGap += ")"
	}
	switch {
	case !r.Learned():
		return "—", false
	case !r.ConvergenceKnown():
		return "not recorded", false
	case r.NotConverged():
		fits := "?"
		if r.Fits != nil {
			fits = fmt.Sprint(*r.Fits)
		}
		stationary := ""
		if n := r.Stationary(); n > 0 {
			stationary = fmt.Sprintf(", %s %d stationary", ddagger, n)
		}
		return fmt.Sprintf("%s %d of %s fits not converged%s%s", dagger, *r.UnconvergedFits, fits, stationary, maxGap), true
	case r.Stationary() > 0 && r.Fits != nil:
		return fmt.Sprintf("%s %d of %d fits stationary, %d certified%s", ddagger, r.Stationary(), *r.Fits, *r.Fits-*r.UnconvergedFits-r.Stationary(), maxGap), false
	default:
		return "all converged" + maxGap, false
	}
}

// claimHeader and claimsCaption head the claims table (Summary.Claims).
var claimHeader = results.ClaimHeader

const claimsCaption = "Better − worse test accuracy (ties as errors, mean over splits). The verdict (Holds) rests on a 95% " +
	"interval that resamples anchor items (the clusters of correlated test comparisons): with one split, studentised; " +
	"with splits whose test sets share anchors, each anchor once over all splits and the splits; with disjoint test " +
	"folds, the splits and the anchors within them (2000 seeded replicates). And on its p-value Holm-adjusted over the " +
	"claims: a claim holds when " +
	"that interval lies above 0 and the adjusted p is below 0.05. For continuity, the 95% paired bootstrap interval " +
	"over the test comparisons (i.i.d.) and whether it lies above 0."

// claims returns the cells of the claims table, one row per claim.
func (rep *Report) claims() [][]string {
	var out [][]string
	for _, cl := range rep.Run.Summary.Claims {
		out = append(out, cl.Cells(3))
	}
	return out
}

// LaTeX writes table.tex: the paper-style table (Table.LaTeX), then, when
// the summary records them, the rows' accuracies with ties counted as ½ and
// their tie rates, and the claims.
func (rep *Report) LaTeX(w io.Writer) error {
	if _, err := io.WriteString(w, "% mkpoe report: \\input{table.tex} needs \\usepackage{booktabs} and \\usepackage{graphicx}\n% (tables wider than the line are scaled down to it) with T1 fonts and utf8 input.\n"); err != nil {
		return err
	}
	if err := rep.Table.LaTeX(w); err != nil {
		return err
	}
	var b strings.Builder
	var ties []detail
	for _, d := range rep.details() {
		if d.TieRate != "—" {
			ties = append(ties, d)
		}
	}
	if len(ties) > 0 {
		b.WriteString("\n\\begin{table}\n\\centering\n" + shrinkToLine + "\\begin{tabular}{lrrr}\n\\toprule\nRow & Accuracy per split & Ties $\\frac12$ (mean) & Tie rate \\\\\n\\midrule\n")
		for _, d := range ties {
			b.WriteString(texEscape(d.Label) + " & " + d.Accuracy + " & " + texEscape(d.HalfTies) + " & " + d.TieRate + " \\\\\n")
		}
		fmt.Fprintf(&b, "\\bottomrule\n\\end{tabular}}\n\\caption{%s}\n\\label{tab:%s-ties}\n\\end{table}\n",
			texEscape("Test accuracy with ties counted as errors (the paper's rule, per split), as one half (mean ± sd over splits), and the fraction of test comparisons that tie."), labelName(rep.Run.Summary.Name))
	}
	rows := rep.claims()
	if len(rows) == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	// Ten columns: scaled down to the line width when wider (graphicx),
	// so that the table stays within \textwidth whatever the claims' text.
	b.WriteString("\n\\begin{table}\n\\centering\n" + shrinkToLine + "\\begin{tabular}{" + strings.Repeat("l", len(claimHeader)) + "}\n\\toprule\n")
	for i, h := range claimHeader {
		if i > 0 {
			b.WriteString(" & ")
		}
		b.WriteString(texEscape(h))
	}
	b.WriteString(" \\\\\n\\midrule\n")
	for _, r := range rows {
		for i := range r {
			r[i] = texEscape(r[i])
		}
		b.WriteString(strings.Join(r, " & ") + " \\\\\n")
	}
	fmt.Fprintf(&b, "\\bottomrule\n\\end{tabular}}\n\\caption{%s}\n\\label{tab:%s-claims}\n\\end{table}\n", texEscape(claimsCaption), labelName(rep.Run.Summary.Name))
	_, err := io.WriteString(w, b.String())
	return err
}

// claimsMarkdown is the claims table under a heading, or "" without claims.
func (rep *Report) claimsMarkdown() string {
	rows := rep.claims()
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Claims\n\n" + claimsCaption + "\n\n| " + strings.Join(claimHeader, " | ") + " |\n|" + strings.Repeat("---|", len(claimHeader)) + "\n")
	for _, r := range rows {
		for i := range r {
			r[i] = mdEscape(r[i])
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

var detailHeader = []string{"Row", "Method", "Kernels", "Accuracy per split", "Ties ½ (mean)", "Tie rate", "β chosen per split", "Train comparisons", "Test comparisons", "Paper", "Convergence"}

func (rep *Report) detailsMarkdown() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(detailHeader, " | ") + " |\n|" + strings.Repeat("---|", len(detailHeader)) + "\n")
	for _, d := range rep.details() {
		cells := []string{d.Label, d.Method, d.Kernels, d.Accuracy, d.HalfTies, d.TieRate, d.Beta, d.Train, d.Test, d.Paper, d.Convergence}
		for i := range cells {
			cells[i] = mdEscape(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

func joinFloats(x []float64, f func(float64) string) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = f(v)
	}
	return strings.Join(parts, ", ")
}

func joinInts(x []int) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// HTML writes the table as an HTML table (bold best entries, paper values
// in a muted span) with the caption below.
func (t *Table) HTML(w io.Writer) error {
	_, err := io.WriteString(w, t.accuracyHTML()+t.sharesHTML())
	return err
}

// accuracyHTML is the accuracy table and its caption as HTML.
func (t *Table) accuracyHTML() string {
	var b strings.Builder
	b.WriteString("<table class=\"results\">\n<thead><tr><th>" + html.EscapeString(t.RowHeader) + "</th>")
	for _, c := range t.Columns {
		b.WriteString("<th>" + html.EscapeString(c.Header) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.Rows {
		b.WriteString("<tr><td>" + html.EscapeString(r.Name) + "</td>")
		for _, c := range r.Cells {
			b.WriteString("<td>")
			if c != nil {
				v := format(c.Mean)
				if t.Splits > 1 {
					v += " ± " + format(c.Std)
				}
				if c.Best {
					v = "<b>" + v + "</b>"
				}
				if c.NotConverged {
					v += "<sup class=\"unconverged\" title=\"" + notConvergedNote + "\">" + dagger + "</sup>"
				}
				if c.Stationary {
					v += "<sup class=\"stationary\" title=\"" + stationaryNote + "\">" + ddagger + "</sup>"
				}
				if c.Paper != nil {
					v += " <span class=\"paper\">(" + format(*c.Paper) + ")</span>"
				}
				b.WriteString(v)
			}
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n<p class=\"caption\">" + html.EscapeString(t.Caption()) + "</p>\n")
	return b.String()
}

// sharesHTML is the kernel-shares table under its title as HTML, or ""
// when no row has shares.
func (t *Table) sharesHTML() string {
	if len(t.Shares) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<p>" + html.EscapeString(sharesTitle) + ":</p>\n<table class=\"shares\">\n<thead><tr><th>Row</th><th>Shares</th></tr></thead>\n<tbody>\n")
	for _, r := range t.Shares {
		b.WriteString("<tr><td>" + html.EscapeString(r.Label) + "</td><td>" + html.EscapeString(r.shareText()) + "</td></tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	return b.String()
}

// timingsMarkdown is the total task time and a table of time by task kind.
func (rep *Report) timingsMarkdown() string {
	t := summariseTimings(rep.Run.Timings, 10)
	var b strings.Builder
	fmt.Fprintf(&b, "Total task time %s (sum over tasks).\n\n| Task kind | Tasks | Time |\n|---|---:|---:|\n", seconds(t.Total))
	for _, k := range t.ByKind {
		fmt.Fprintf(&b, "| %s | %d | %s |\n", k.Kind, k.Tasks, seconds(k.Seconds))
	}
	return b.String()
}

// versionsMarkdown is env.json as a two-column table.
func (rep *Report) versionsMarkdown() string {
	var b strings.Builder
	b.WriteString("| | |\n|---|---|\n")
	for _, k := range sortedKeys(rep.Run.Env) {
		fmt.Fprintf(&b, "| %s | `%s` |\n", mdEscape(k), rep.Run.Env[k])
	}
	return b.String()
}

// timingSummary groups task timings by kind (the prefix of the task ID
// before the first '-') and lists the slowest tasks.
type timingSummary struct {
	Total   float64
	ByKind  []kindTime
	Slowest []taskTime
}

type kindTime struct {
	Kind    string
	Tasks   int
	Seconds float64
}

type taskTime struct {
	ID      string
	Seconds float64
}

func summariseTimings(t map[string]results.TaskTime, top int) timingSummary {
	var s timingSummary
	kinds := map[string]*kindTime{}
	var all []taskTime
	for _, id := range sortedKeys(t) {
		v := t[id].Seconds
		s.Total += v
		k, _, _ := strings.Cut(id, "-")
		if kinds[k] == nil {
			kinds[k] = &kindTime{Kind: k}
		}
		kinds[k].Tasks++
		kinds[k].Seconds += v
		all = append(all, taskTime{id, v})
	}
	for _, k := range sortedKeys(kinds) {
		s.ByKind = append(s.ByKind, *kinds[k])
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].Seconds > all[b].Seconds })
	s.Slowest = all[:min(top, len(all))]
	return s
}

func seconds(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f s", v)
}
