package nbtest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

func textCell(name, md string) Cell {
	return Cell{ID: name, Type: "code", Name: name, Outputs: []Output{{Type: "display_data", Data: map[string]string{"text/markdown": md}}}}
}

// summary is two splits of a native and a K4 row of one kernel group.
func summary() *results.Summary {
	return &results.Summary{Splits: 2, Rows: []results.Row{
		{Label: "sum native", Method: "native", TableRow: "all", Kernels: []string{"a", "b_c"}, Accuracy: []float64{0.61, 0.62}, Mean: 0.615, Std: 0.00707},
		{Label: "K4 diag", Method: "k4", Mode: "diag", TableRow: "all", Kernels: []string{"a", "b_c"}, Accuracy: []float64{0.9, math.NaN()},
			Mean: math.NaN(), Std: math.NaN(), KernelShare: []float64{0.75, 0.25}},
	}}
}

const (
	goodTable   = "| Kernels | Native | K4 diagonal |\n|---|---:|---:|\n| all | 0.615 ± 0.007 (0.7) | n/a ± n/a† |\n\ncaption\n"
	goodDetails = "| Row | Method | Kernels | Accuracy per split |\n|---|---|---|---|\n| sum native | native | a + b\\_c | 0.610, 0.620 |\n| K4 diag | K4 diag | a + b\\_c | 0.900, n/a |\n"
	goodShares  = "Kernel shares:\n\n| Row | Shares |\n|---|---|\n| K4 diag | a 0.750, b\\_c 0.250 |\n"
)

func TestCheckNumbers(t *testing.T) {
	for _, test := range []struct {
		name, table, details, shares string
		want                         []string // one substring per problem
	}{
		{"agrees", goodTable, goodDetails, goodShares, nil},
		{"bold", strings.Replace(goodTable, "0.615 ± 0.007", "**0.615 ± 0.007**", 1), goodDetails, goodShares, nil},
		{"mean off", strings.Replace(goodTable, "0.615", "0.616", 1), goodDetails, goodShares, []string{`table: row "sum native" prints "0.616 ± 0.007 (0.7)"`}},
		{"std missing", strings.Replace(goodTable, "0.615 ± 0.007", "0.615", 1), goodDetails, goodShares, []string{`row "sum native"`}},
		{"more digits", strings.Replace(goodTable, "0.007", "0.0071", 1), goodDetails, goodShares, []string{`row "sum native"`}},
		{"wrong column", strings.Replace(goodTable, "K4 diagonal", "K4 full", 1), goodDetails, goodShares, []string{`no cell for row "K4 diag"`}},
		{"split accuracy", goodTable, strings.Replace(goodDetails, "0.900, n/a", "0.900, 0.000", 1), goodShares, []string{`details: line 1`}},
		{"row lost", goodTable, strings.Split(goodDetails, "| K4")[0], goodShares, []string{`details: 1 rows, summary.json 2`}},
		{"share", goodTable, goodDetails, strings.Replace(goodShares, "0.250", "0.251", 1), []string{"shares: printed"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			nb := &Notebook{Cells: []Cell{textCell("table", test.table), textCell("details", test.details), textCell("shares", test.shares)}}
			got := CheckNumbers(nb, summary())
			if len(got) != len(test.want) {
				t.Fatalf("problems %q, want %d", got, len(test.want))
			}
			for i, w := range test.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q lacks %q", got[i], w)
				}
			}
		})
	}
}

func TestCompare(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	pngOut := Output{Type: "display_data", Data: map[string]string{"image/png": base64.StdEncoding.EncodeToString(b.Bytes())}}
	stored := &Notebook{Cells: []Cell{textCell("table", "| a |\n"), {ID: "f", Name: "fig-map", Outputs: []Output{pngOut}}}}
	for _, test := range []struct {
		name string
		exec []Cell
		want []string
	}{
		{"same", []Cell{textCell("table", "| a |\n"), {ID: "f", Name: "fig-map", Outputs: []Output{pngOut}}}, nil},
		{"text differs", []Cell{textCell("table", "| b |\n"), {ID: "f", Name: "fig-map", Outputs: []Output{pngOut}}}, []string{"cell table: the executed text/markdown differs"}},
		{"no figure", []Cell{textCell("table", "| a |\n"), {ID: "f", Name: "fig-map"}}, []string{"cell fig-map: 0 PNG outputs"}},
		{"bad PNG", []Cell{textCell("table", "| a |\n"), {ID: "f", Name: "fig-map", Outputs: []Output{{Data: map[string]string{"image/png": "AAAA"}}}}},
			[]string{"cell fig-map: PNG output"}},
		{"error", []Cell{textCell("table", "| a |\n"), {ID: "f", Name: "fig-map", Outputs: []Output{pngOut, {Type: "error", EName: "KeyError", Value: "'x'"}}}},
			[]string{"cell fig-map: KeyError: 'x'"}},
		{"cell lost", []Cell{textCell("table", "| a |\n")}, []string{"1 cells executed, 2 stored"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			got := Compare(stored, &Notebook{Cells: test.exec})
			if len(got) != len(test.want) {
				t.Fatalf("problems %q, want %d", got, len(test.want))
			}
			for i, w := range test.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q lacks %q", got[i], w)
				}
			}
		})
	}
}
