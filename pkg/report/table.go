package report

import (
	"fmt"
	"io"
	"math"
	"strings"
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
}

// dagger marks entries with fits that did not converge.
const dagger = "†"

// notConvergedNote is the footnote of a table with marked entries.
const notConvergedNote = "not converged: certified gap above tolerance"

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
// Rows: summary rows are grouped by Row.Group if set (the config's kernel
// or group name), else by their kernels joined with " + ". If two summary
// rows of one group fall into the same column (the graph-processing
// experiment, paper Table 5, runs one kernel under several constraint
// sets), that group is split by label stem: the label without a trailing
// mode word (diag, full) and method word (native, K1, K4), e.g. "Length-2
// diag" → "Length-2". If stems still collide, the full labels are used.
// Rows keep the order of first appearance.
//
// Columns: Native, K1 diagonal, K1 full, K4 diagonal, K4 full (any other
// method/mode after them), keeping only columns with at least one entry.
//
// Bold: in each column with two or more entries, the entry (or entries,
// on a tie at the printed precision) with the highest mean. Per column
// rather than overall, because a column is one method and the question a
// column answers is "which kernel works best with this method"; the
// paper's Table 2 does the same.
func NewTable(s *Summary) *Table {
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
			h := strings.ToUpper(r.Method)
			if r.Mode != "" {
				h += " " + r.Mode
			}
			colIndex[k] = len(cols)
			cols = append(cols, Column{Method: k[0], Mode: k[1], Header: h, TeX: texEscape(h)})
		}
	}
	t.Columns = cols
	// Row groups.
	type member struct {
		row *Row
		col int
	}
	var groups []string
	byGroup := map[string][]member{}
	multi := false
	for i := range s.Rows {
		r := &s.Rows[i]
		g := r.Group
		if g == "" {
			g = strings.Join(r.Kernels, " + ")
		}
		if len(r.Kernels) > 1 {
			multi = true
		}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], member{r, colIndex[colKey(*r)]})
	}
	if multi {
		t.RowHeader = "Kernels"
	}
	// A group split by label stem below renames the first column "Row".
	rowIndex := map[string]int{}
	add := func(name string, m member) bool {
		i, ok := rowIndex[name]
		if !ok {
			i = len(t.Rows)
			rowIndex[name] = i
			t.Rows = append(t.Rows, TableRow{Name: name, Cells: make([]*Cell, len(cols))})
		}
		if t.Rows[i].Cells[m.col] != nil {
			return false
		}
		t.Rows[i].Cells[m.col] = &Cell{Label: m.row.Label, Mean: m.row.Mean, Std: m.row.Std, Paper: m.row.Paper, NotConverged: m.row.NotConverged()}
		return true
	}
	for _, g := range groups {
		ms := byGroup[g]
		if !collides(ms, func(m member) int { return m.col }) {
			for _, m := range ms {
				add(g, m)
			}
			continue
		}
		stemKey := func(m member) string { return g + "\x00" + labelStem(m.row.Label) }
		seen := map[string]bool{}
		stemsCollide := false
		for _, m := range ms {
			k := fmt.Sprint(stemKey(m), "\x00", m.col)
			if seen[k] {
				stemsCollide = true
			}
			seen[k] = true
		}
		t.RowHeader = "Row"
		for _, m := range ms {
			name := labelStem(m.row.Label)
			if stemsCollide || name == "" {
				name = m.row.Label
			}
			for !add(name, m) { // identical labels: make the name unique
				name += "′"
			}
		}
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

func colKey(r Row) [2]string {
	if r.Method == "native" {
		return [2]string{"native", ""}
	}
	return [2]string{strings.ToLower(r.Method), strings.ToLower(r.Mode)}
}

func collides[T any](ms []T, col func(T) int) bool {
	seen := map[int]bool{}
	for _, m := range ms {
		if seen[col(m)] {
			return true
		}
		seen[col(m)] = true
	}
	return false
}

// labelStem removes a trailing mode word and then a trailing method word
// from a row label: "Length-2 diag" → "Length-2", "ST K1 full" → "ST".
func labelStem(label string) string {
	words := strings.Fields(label)
	strip := func(set ...string) {
		if len(words) == 0 {
			return
		}
		last := strings.ToLower(words[len(words)-1])
		for _, s := range set {
			if last == s {
				words = words[:len(words)-1]
				return
			}
		}
	}
	strip("diag", "diagonal", "full")
	strip("native", "k1", "k4")
	return strings.Join(words, " ")
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
	return b.String()
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
// the caption as a paragraph below it.
func (t *Table) Markdown(w io.Writer) error {
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
			v := format(c.Mean)
			if t.Splits > 1 {
				v += " ± " + format(c.Std)
			}
			if c.Best {
				v = "**" + v + "**"
			}
			if c.NotConverged {
				v += dagger
			}
			if c.Paper != nil {
				v += " (" + format(*c.Paper) + ")"
			}
			b.WriteString(v)
		}
		b.WriteString(" |\n")
	}
	b.WriteString("\n" + mdEscape(t.Caption()) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// LaTeX writes the table as a booktabs table float with a caption and a
// label tab:<name>; it needs \usepackage{booktabs} (and amssymb for nothing
// else: $\pm$ and $\mathcal{K}$ are in core LaTeX).
func (t *Table) LaTeX(w io.Writer) error {
	var b strings.Builder
	n := len(t.Columns)
	b.WriteString("\\begin{table}\n\\centering\n\\begin{tabular}{l" + strings.Repeat("r", n) + "}\n\\toprule\n")
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
			v := format(c.Mean)
			if t.Splits > 1 {
				v += " $\\pm$ " + format(c.Std)
			}
			if c.Best {
				v = "\\textbf{" + v + "}"
			}
			if c.NotConverged {
				v += "$^\\dagger$"
			}
			if c.Paper != nil {
				v += " (\\emph{" + format(*c.Paper) + "})"
			}
			b.WriteString(v)
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	fmt.Fprintf(&b, "\\caption{%s}\n\\label{tab:%s}\n\\end{table}\n", texEscape(t.Caption()), labelName(t.Name))
	_, err := io.WriteString(w, b.String())
	return err
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
