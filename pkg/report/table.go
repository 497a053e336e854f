package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// Table is the 2-D layout of a run's summary in the paper's form (Tables
// 2–5 of the LaTeX source): one row per kernel, kernel group or
// constraint-processing level, one column per method and mode.
type Table struct {
	Name      string   // experiment name (summary name)
	Splits    int      // outer splits the means are over
	Tol       float64  // solver tolerance of the fits (0: not recorded)
	RowHeader string   // header of the first column
	Columns   []Column // only columns with at least one entry
	Rows      []TableRow
	// Shares lists, for every summary row with kernel shares (K4), each
	// kernel's share of the regulariser Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) in its refits,
	// mean over splits: how much of the learned space each kernel carries
	// (the reading of the learned weights in Sec. 5.1.4 and Fig. 5).
	Shares []ShareRow
}

// ShareRow is the kernel shares of one summary row.
type ShareRow struct {
	Label   string
	Kernels []string
	Shares  []float64
}

// sharesTitle introduces the kernel-shares table in every format.
const sharesTitle = "Kernel shares of Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) in the K4 refits (mean over splits)"

// shareText is "ST 0.925, CF 0.048".
func (r ShareRow) shareText() string {
	parts := make([]string, len(r.Shares))
	for i, v := range r.Shares {
		parts[i] = fmt.Sprintf("%s %.3f", r.Kernels[i], v)
	}
	return strings.Join(parts, ", ")
}

// Column is one method and mode (native, k1 diag, …).
type Column struct {
	Method, Mode string
	Header       string // plain text
	TeX          string // LaTeX header
}

// TableRow is one row of a Table; Cells[c] is nil where the combination of
// the row and Columns[c] was not run.
type TableRow struct {
	Name  string
	Cells []*Cell
}

// Cell is one entry: mean ± sample standard deviation over outer splits.
type Cell struct {
	Label     string // the summary row it comes from
	Mean, Std float64
	Paper     *float64 // the paper's value, or nil
	Best      bool     // best mean of its column (bold)
	// NotConverged marks (†) an entry some of whose fits stopped with a
	// certified gap above the solver's tolerance.
	NotConverged bool
	// Stationary marks (‡) an entry some of whose fits stopped at a
	// stationary point (a fixed rank's; the subgradient method's stall):
	// converged, not certified.
	Stationary bool
}

// dagger marks entries with fits that did not converge.
const dagger = "†"

// notConvergedNote is the footnote of a table with marked entries.
const notConvergedNote = "not converged: certified gap above tolerance"

// ddagger marks entries with fixed-rank fits stopped at a stationary point.
const ddagger = "‡"

// stationaryNote is the footnote of a table with entries marked ‡.
const stationaryNote = "stationary: fits stopped at a stationary point (a rank bound; the subgradient method's stall), not certified"

// standardColumns are the paper's columns in order (Tables 2–5).
var standardColumns = []Column{
	{"native", "", "Native", "Native"},
	{"k1", "diag", "K1 diagonal", `$\mathcal{K}_1$ (diagonal)`},
	{"k1", "full", "K1 full", `$\mathcal{K}_1$ (full)`},
	{"k4", "diag", "K4 diagonal", `$\mathcal{K}_4$ (diagonal)`},
	{"k4", "full", "K4 full", `$\mathcal{K}_4$ (full)`},
}

// NewTable lays out a summary as a Table.
//
// Rows: each summary row goes to the table row it names (Row.TableRow: the
// config row's table_row, by default its kernel or group; e.g. the
// graph-processing experiment, paper Table 5, names rows after constraint
// sets), in the order of first appearance. Summaries written before
// table_row was recorded fall back to the kernels joined with " + ".
//
// Columns: Native, K1 diagonal, K1 full, K4 diagonal, K4 full (any other
// method/mode after them), keeping only columns with at least one entry.
//
// Bold: in each column with two or more entries, the entry (or entries,
// on a tie at the printed precision) with the highest mean. Per column
// rather than overall, because a column is one method and the question a
// column answers is "which kernel works best with this method"; the
// paper's Table 2 does the same.
func NewTable(s *results.Summary) *Table {
	t := &Table{Name: s.Name, Splits: s.Splits, Tol: s.SolverTol, RowHeader: "Kernel"}
	// Columns.
	colIndex := map[[2]string]int{}
	var cols []Column
	present := map[[2]string]bool{}
	for _, r := range s.Rows {
		present[colKey(r)] = true
	}
	for _, c := range standardColumns {
		if present[[2]string{c.Method, c.Mode}] {
			colIndex[[2]string{c.Method, c.Mode}] = len(cols)
			cols = append(cols, c)
		}
	}
	for _, r := range s.Rows {
		k := colKey(r)
		if _, ok := colIndex[k]; !ok {
			h := methodName(r.Method)
			if r.Mode != "" {
				h += " " + r.Mode
			}
			colIndex[k] = len(cols)
			cols = append(cols, Column{Method: k[0], Mode: k[1], Header: h, TeX: texEscape(h)})
		}
	}
	t.Columns = cols
	// Rows: the table row each summary row names (table_row, from the
	// config); summaries written before it was recorded fall back to the
	// row's kernels.
	multi, kernelNamed := false, true
	rowIndex := map[string]int{}
	for i := range s.Rows {
		r := &s.Rows[i]
		name := r.TableRow
		if name == "" {
			name = strings.Join(r.Kernels, " + ")
		}
		multi = multi || len(r.Kernels) > 1
		kernelNamed = kernelNamed && name == strings.Join(r.Kernels, " + ")
		col := colIndex[colKey(*r)]
		ti, ok := rowIndex[name]
		if ok && t.Rows[ti].Cells[col] != nil {
			// Two results for one cell (a summary without table_row, or a
			// config that repeats a row): the later one gets its own row,
			// named by its label.
			name = r.Label
			for _, taken := rowIndex[name]; taken; _, taken = rowIndex[name] {
				name += "′"
			}
			ok = false
		}
		if !ok {
			ti = len(t.Rows)
			rowIndex[name] = ti
			t.Rows = append(t.Rows, TableRow{Name: name, Cells: make([]*Cell, len(cols))})
		}
		t.Rows[ti].Cells[col] = &Cell{Label: r.Label, Mean: r.Mean, Std: r.Std, Paper: r.Paper, NotConverged: r.NotConverged(), Stationary: r.Stationary() > 0}
	}
	for _, r := range s.Rows {
		if len(r.KernelShare) > 0 && len(r.KernelShare) == len(r.Kernels) {
			t.Shares = append(t.Shares, ShareRow{Label: r.Label, Kernels: r.Kernels, Shares: r.KernelShare})
		}
	}
	switch {
	case multi:
		t.RowHeader = "Kernels"
	case !kernelNamed:
		t.RowHeader = "Row"
	}
	// Bold: best per column.
	for c := range cols {
		n, best := 0, math.Inf(-1)
		for _, r := range t.Rows {
			if cell := r.Cells[c]; cell != nil && !math.IsNaN(cell.Mean) {
				n++
				best = math.Max(best, round3(cell.Mean))
			}
		}
		if n < 2 {
			continue
		}
		for _, r := range t.Rows {
			if cell := r.Cells[c]; cell != nil && round3(cell.Mean) == best {
				cell.Best = true
			}
		}
	}
	return t
}

func colKey(r results.Row) [2]string {
	if r.Method == "native" {
		return [2]string{"native", ""}
	}
	return [2]string{strings.ToLower(r.Method), strings.ToLower(r.Mode)}
}

// round3 rounds to the printed precision (three decimals, as the paper).
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// format is the printed number: three decimals, as in the paper's tables.
func format(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", x)
}

// Caption is a one-paragraph description of the table.
func (t *Table) Caption() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: test accuracy (fraction of held-out comparisons satisfied)", t.Name)
	if t.Splits > 1 {
		fmt.Fprintf(&b, ", mean ± sample standard deviation over %d outer splits", t.Splits)
	} else {
		b.WriteString(" on one outer split")
	}
	b.WriteString(". Bold: best mean of each column. ")
	if t.hasPaper() {
		b.WriteString("In parentheses: the value reported by McFee & Lanckriet (2011) for the corresponding row. ")
	}
	b.WriteString("Empty cells were not run.")
	if t.hasUnconverged() {
		b.WriteString(" " + dagger + " " + strings.ToUpper(notConvergedNote[:1]) + notConvergedNote[1:])
		if t.Tol > 0 {
			fmt.Fprintf(&b, " (%g)", t.Tol)
		}
		b.WriteString(": some fits of the entry (inner-CV sweep or refit) stopped at the iteration limit; see the Rows table.")
	}
	if t.hasStationary() {
		b.WriteString(" " + ddagger + " " + strings.ToUpper(stationaryNote[:1]) + stationaryNote[1:])
		b.WriteString(": their gap is the distance to the convex problem's optimum; see the Rows table.")
	}
	return b.String()
}

func (t *Table) hasStationary() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c != nil && c.Stationary {
				return true
			}
		}
	}
	return false
}

func (t *Table) hasUnconverged() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c != nil && c.NotConverged {
				return true
			}
		}
	}
	return false
}

func (t *Table) hasPaper() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c != nil && c.Paper != nil {
				return true
			}
		}
	}
	return false
}

// Markdown writes the table as a GitHub-flavoured Markdown table, with
// the caption as a paragraph below it, then the kernel shares.
func (t *Table) Markdown(w io.Writer) error {
	text := t.accuracyMarkdown()
	if s := t.sharesMarkdown(); s != "" {
		text += "\n" + s
	}
	_, err := io.WriteString(w, text)
	return err
}

// accuracyMarkdown is the accuracy table and its caption.
func (t *Table) accuracyMarkdown() string {
	var b strings.Builder
	b.WriteString("| " + mdEscape(t.RowHeader))
	for _, c := range t.Columns {
		b.WriteString(" | " + c.Header)
	}
	b.WriteString(" |\n|---")
	for range t.Columns {
		b.WriteString("|---:")
	}
	b.WriteString("|\n")
	for _, r := range t.Rows {
		b.WriteString("| " + mdEscape(r.Name))
		for _, c := range r.Cells {
			b.WriteString(" | ")
			if c == nil {
				continue
			}
			b.WriteString(markdownCell.text(c, t.Splits))
		}
		b.WriteString(" |\n")
	}
	b.WriteString("\n" + mdEscape(t.Caption()) + "\n")
	return b.String()
}

// cellMarkup is how a table format writes a cell's parts: mean ± std
// (the ± part with more than one split), bold for the column's best, a
// dagger for fits that did not converge, a double dagger for fixed-rank
// fits stopped at a stationary point, the paper's value in parentheses.
type cellMarkup struct {
	pm, boldOpen, boldClose, dagger, ddagger, paperOpen, paperClose string
}

var (
	markdownCell = cellMarkup{pm: " ± ", boldOpen: "**", boldClose: "**", dagger: dagger, ddagger: ddagger, paperOpen: " (", paperClose: ")"}
	latexCell    = cellMarkup{pm: " $\\pm$ ", boldOpen: "\\textbf{", boldClose: "}", dagger: "$^\\dagger$", ddagger: "$^\\ddagger$", paperOpen: " (\\emph{", paperClose: "})"}
)

// text is cell c of a table over splits outer splits.
func (m cellMarkup) text(c *Cell, splits int) string {
	v := format(c.Mean)
	if splits > 1 {
		v += m.pm + format(c.Std)
	}
	if c.Best {
		v = m.boldOpen + v + m.boldClose
	}
	if c.NotConverged {
		v += m.dagger
	}
	if c.Stationary {
		v += m.ddagger
	}
	if c.Paper != nil {
		v += m.paperOpen + format(*c.Paper) + m.paperClose
	}
	return v
}

// sharesMarkdown is the kernel-shares table under its title, or "" when
// no row has shares.
func (t *Table) sharesMarkdown() string {
	if len(t.Shares) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(mdEscape(sharesTitle) + ":\n\n| Row | Shares |\n|---|---|\n")
	for _, r := range t.Shares {
		b.WriteString("| " + mdEscape(r.Label) + " | " + mdEscape(r.shareText()) + " |\n")
	}
	return b.String()
}

// shrinkToLine opens a box (closed by "}" after \end{tabular}) that scales
// a table down to the line width when it is wider, and leaves it alone
// otherwise (graphicx's \resizebox reads the natural width as \width).
const shrinkToLine = "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n"

// LaTeX writes the table as a booktabs table float with a caption and a
// label tab:<name>; it needs \usepackage{booktabs} (and amssymb for nothing
// else: $\pm$ and $\mathcal{K}$ are in core LaTeX).
func (t *Table) LaTeX(w io.Writer) error {
	var b strings.Builder
	n := len(t.Columns)
	b.WriteString("\\begin{table}\n\\centering\n" + shrinkToLine + "\\begin{tabular}{l" + strings.Repeat("r", n) + "}\n\\toprule\n")
	fmt.Fprintf(&b, " & \\multicolumn{%d}{c}{Accuracy} \\\\\n\\cmidrule(lr){2-%d}\n", n, n+1)
	b.WriteString(texEscape(t.RowHeader))
	for _, c := range t.Columns {
		b.WriteString(" & " + c.TeX)
	}
	b.WriteString(" \\\\\n\\midrule\n")
	for _, r := range t.Rows {
		b.WriteString(texEscape(r.Name))
		for _, c := range r.Cells {
			b.WriteString(" & ")
			if c == nil {
				continue
			}
			b.WriteString(latexCell.text(c, t.Splits))
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}}\n")
	fmt.Fprintf(&b, "\\caption{%s}\n\\label{tab:%s}\n\\end{table}\n", texEscape(t.Caption()), labelName(t.Name))
	if len(t.Shares) > 0 {
		// The shares of many kernels wrap in a paragraph column that
		// takes what the row labels leave of the line (sharesColumns).
		labels := []string{"Row"}
		for _, r := range t.Shares {
			labels = append(labels, texEscape(r.Label))
		}
		b.WriteString("\n\\begin{table}\n\\centering\n" + sharesColumns(labels) + "\\toprule\nRow & Kernel shares \\\\\n\\midrule\n")
		for _, r := range t.Shares {
			b.WriteString(texEscape(r.Label) + " & " + texEscape(r.shareText()) + " \\\\\n")
		}
		fmt.Fprintf(&b, "\\bottomrule\n\\end{tabular}\n\\caption{%s: %s.}\n\\label{tab:%s-shares}\n\\end{table}\n",
			texEscape(t.Name), `kernel shares of $\sum_p \mathrm{tr}(W^{(p)}K^{(p)})$ in the $\mathcal{K}_4$ refits (mean over splits)`, labelName(t.Name))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sharesColumns opens the shares table's tabular: the labels' column as
// wide as its widest entry (measured by TeX, at most half the line) and a
// paragraph column with the rest, so that the table is exactly as wide as
// the line. The length it measures with, \mkpoeRowWidth, is defined once
// per document, however many tables are input.
func sharesColumns(labels []string) string {
	return "\\ifdefined\\mkpoeRowWidth\\else\\newlength{\\mkpoeRowWidth}\\fi\n" +
		"\\settowidth{\\mkpoeRowWidth}{\\begin{tabular}{@{}l@{}}" + strings.Join(labels, "\\\\") + "\\end{tabular}}%\n" +
		"\\ifdim\\mkpoeRowWidth>0.5\\linewidth\\setlength{\\mkpoeRowWidth}{0.5\\linewidth}\\fi\n" +
		"\\begin{tabular}{p{\\mkpoeRowWidth}p{\\dimexpr\\linewidth-\\mkpoeRowWidth-4\\tabcolsep\\relax}}\n"
}

// texEscape escapes LaTeX's special characters in plain text, and writes
// ± and → in math mode.
func texEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '_', '%', '&', '#', '$', '{', '}':
			b.WriteString(`\` + string(r))
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		case '±':
			b.WriteString(`$\pm$`)
		case '′':
			b.WriteString(`$'$`)
		case '†':
			b.WriteString(`$^\dagger$`)
		case '‡':
			b.WriteString(`$^\ddagger$`)
		case '−':
			b.WriteString(`$-$`)
		case '½':
			b.WriteString(`$\frac12$`)
		case '≤':
			b.WriteString(`$\le$`)
		case '≥':
			b.WriteString(`$\ge$`)
		case '×':
			b.WriteString(`$\times$`)
		case 'σ':
			b.WriteString(`$\sigma$`)
		case 'β':
			b.WriteString(`$\beta$`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// labelName keeps letters, digits, '-', ':' and '.' for a \label key.
func labelName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == ':', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	return b.String()
}

// mdEscape escapes the characters that break a Markdown table cell or
// start emphasis.
func mdEscape(s string) string {
	r := strings.NewReplacer(`|`, `\|`, `*`, `\*`, `_`, `\_`, "`", "\\`")
	return r.Replace(s)
}
