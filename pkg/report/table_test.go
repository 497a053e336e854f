package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func loadFixture(t testing.TB) *Run {
	t.Helper()
	run, err := Load(os.DirFS("testdata/run"))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func ptr(v float64) *float64 { return &v }

// graphSummary is shaped like the graph-processing experiment (paper
// Table 5): one kernel, several constraint sets, diagonal and full.
func graphSummary() *results.Summary {
	row := func(label, mode string, mean float64, paper float64) results.Row {
		return results.Row{Label: label, Method: "k1", Mode: mode, TableRow: strings.Fields(label)[0], Kernels: []string{"ST"}, Accuracy: []float64{mean}, Mean: mean, Paper: ptr(paper)}
	}
	return &results.Summary{Name: "aset400_graph_processing", Splits: 1, InnerFolds: 2, BetaGrid: []float64{1, 100},
		Rows: []results.Row{
			row("Full diag", "diag", 0.61, 0.604), row("Full full", "full", 0.75, 0.754),
			row("Length-2 diag", "diag", 0.6214, 0.621), row("Length-2 full", "full", 0.7561, 0.756),
			row("Processed diag", "diag", 0.6296, 0.629), row("Processed full", "full", 0.7559, 0.760),
		}}
}

// groupSummary names rows by config group (Row.TableRow),
// with a one-split run and a K1 row on a group.
func groupSummary() *results.Summary {
	r := func(label, method, mode, group string, kernels []string, mean float64) results.Row {
		return results.Row{Label: label, Method: method, Mode: mode, Kernels: kernels, Accuracy: []float64{mean}, Mean: mean, TableRow: group}
	}
	all := []string{"ST", "CF", "genre"}
	return &results.Summary{Name: "groups", Splits: 1, Rows: []results.Row{
		r("ST+CF native", "native", "", "ST+CF", []string{"ST", "CF"}, 0.70),
		r("ST+CF K4 diag", "k4", "diag", "ST+CF", []string{"ST", "CF"}, 0.75),
		r("all native", "native", "", "all", all, 0.7321),
		r("all K4 full", "k4", "full", "all", all, 0.80),
		r("all K1 full", "k1", "full", "all", all, 0.7649),
	}}
}

func TestTableGolden(t *testing.T) {
	for _, test := range []struct {
		name string
		s    func() *results.Summary
	}{
		{"fixture", func() *results.Summary { return loadFixture(t).Summary }},
		{"graph", graphSummary},
		{"groups", groupSummary},
	} {
		t.Run(test.name, func(t *testing.T) {
			tab := NewTable(test.s())
			for _, f := range []struct {
				ext   string
				write func(*Table, *bytes.Buffer) error
			}{
				{"md", func(t *Table, b *bytes.Buffer) error { return t.Markdown(b) }},
				{"tex", func(t *Table, b *bytes.Buffer) error { return t.LaTeX(b) }},
			} {
				var b bytes.Buffer
				if err := f.write(tab, &b); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, filepath.Join("testdata", test.name+"."+f.ext+".golden"), b.Bytes())
			}
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func withoutTableRows(s *results.Summary) *results.Summary {
	for i := range s.Rows {
		s.Rows[i].TableRow = ""
	}
	return s
}

func TestNewTableLayout(t *testing.T) {
	type cell struct {
		row, col string
		mean     float64
		best     bool
	}
	for _, test := range []struct {
		name      string
		s         *results.Summary
		rowHeader string
		rows      []string
		cols      []string
		cells     []cell
	}{
		{
			name: "fixture", s: loadFixture(t).Summary, rowHeader: "Kernels",
			rows: []string{"A", "B_1", "pair"},
			cols: []string{"Native", "K1 diagonal", "K1 full", "K4 diagonal", "K4 full"},
			cells: []cell{
				{"A", "Native", 0.72, true}, {"B_1", "Native", 0.51, false}, {"pair", "Native", 0.61, false},
				{"A", "K1 diagonal", 0.82, false}, // alone in its column: not bold
				{"pair", "K4 diagonal", 0.88, false},
			},
		},
		{
			// A summary written before table_row was recorded: rows are
			// named by their kernels.
			name: "no table_row", s: withoutTableRows(loadFixture(t).Summary), rowHeader: "Kernels",
			rows:  []string{"A", "B_1", "A + B_1"},
			cols:  []string{"Native", "K1 diagonal", "K1 full", "K4 diagonal", "K4 full"},
			cells: []cell{{"A + B_1", "K4 diagonal", 0.88, false}},
		},
		{
			name: "graph", s: graphSummary(), rowHeader: "Row",
			rows: []string{"Full", "Length-2", "Processed"},
			cols: []string{"K1 diagonal", "K1 full"},
			cells: []cell{
				{"Processed", "K1 diagonal", 0.6296, true}, {"Full", "K1 diagonal", 0.61, false},
				// 0.7561 and 0.7559 both print as 0.756: a tie, both bold.
				{"Length-2", "K1 full", 0.7561, true}, {"Processed", "K1 full", 0.7559, true}, {"Full", "K1 full", 0.75, false},
			},
		},
		{
			name: "groups", s: groupSummary(), rowHeader: "Kernels",
			rows:  []string{"ST+CF", "all"},
			cols:  []string{"Native", "K1 full", "K4 diagonal", "K4 full"},
			cells: []cell{{"all", "Native", 0.7321, true}, {"all", "K1 full", 0.7649, false}},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			tab := NewTable(test.s)
			if tab.RowHeader != test.rowHeader {
				t.Errorf("row header %q, want %q", tab.RowHeader, test.rowHeader)
			}
			var rows, cols []string
			for _, r := range tab.Rows {
				rows = append(rows, r.Name)
			}
			for _, c := range tab.Columns {
				cols = append(cols, c.Header)
			}
			if !equalStrings(rows, test.rows) || !equalStrings(cols, test.cols) {
				t.Fatalf("rows %q cols %q, want %q and %q", rows, cols, test.rows, test.cols)
			}
			for _, want := range test.cells {
				c := tab.cell(want.row, want.col)
				if c == nil {
					t.Errorf("cell (%s, %s) is empty", want.row, want.col)
					continue
				}
				if c.Mean != want.mean || c.Best != want.best {
					t.Errorf("cell (%s, %s) = %v bold %v, want %v bold %v", want.row, want.col, c.Mean, c.Best, want.mean, want.best)
				}
			}
		})
	}
}

// cell returns the cell of the named row and column header, or nil.
func (t *Table) cell(row, col string) *Cell {
	for _, r := range t.Rows {
		for c, h := range t.Columns {
			if r.Name == row && h.Header == col {
				return r.Cells[c]
			}
		}
	}
	return nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTableEmptyCells(t *testing.T) {
	tab := NewTable(loadFixture(t).Summary)
	// Row B_1 has no K1 diagonal, K4 entries.
	for _, col := range []string{"K1 diagonal", "K4 diagonal", "K4 full"} {
		if tab.cell("B_1", col) != nil {
			t.Errorf("cell (B_1, %s) should be empty", col)
		}
	}
}

func TestTexEscape(t *testing.T) {
	in := `a_b 50% x&y #1 $5 {c} ~d ^e \f ±`
	want := `a\_b 50\% x\&y \#1 \$5 \{c\} \textasciitilde{}d \textasciicircum{}e \textbackslash{}f $\pm$`
	if got := texEscape(in); got != want {
		t.Errorf("texEscape:\n got %s\nwant %s", got, want)
	}
	if got := labelName("fixture_50% a"); got != "fixture-50--a" {
		t.Errorf("labelName = %q", got)
	}
}
