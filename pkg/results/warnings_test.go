package results

import (
	"math"
	"slices"
	"testing"
)

func TestSummaryWarnings(t *testing.T) {
	nan := math.NaN()
	row := func(label, method, mode string, acc ...float64) Row {
		return Row{Label: label, Method: method, Mode: mode, Accuracy: acc}
	}
	for _, tc := range []struct {
		name string
		rows []Row
		want []string
	}{
		{"all defined", []Row{row("a", "native", "", 0.7, 0.8), row("b", "k1", "diag", 0.9, 0.85)}, nil},
		{"one split of one row", []Row{row("a", "native", "", 0.7, nan), row("b", "k1", "diag", 0.9, 0.85)},
			[]string{`row "a": accuracy is NaN on split(s) 1 (no held-out comparison could be scored there), so its mean is NaN`}},
		{"a whole column", []Row{row("a", "native", "", 0.7, 0.8), row("b", "k4", "full", nan, nan), row("c", "k4", "full", nan, nan), row("d", "k4", "diag", nan, 0.5)},
			[]string{
				"column k4 full: every row's accuracy is NaN on every split (no held-out comparison could be scored); the column holds no result",
				`row "d": accuracy is NaN on split(s) 0 (no held-out comparison could be scored there), so its mean is NaN`,
			}},
		{"a column with one defined split is not whole", []Row{row("b", "k4", "full", nan, nan), row("c", "k4", "full", nan, 0.6)},
			[]string{
				`row "b": accuracy is NaN on split(s) 0, 1 (no held-out comparison could be scored there), so its mean is NaN`,
				`row "c": accuracy is NaN on split(s) 0 (no held-out comparison could be scored there), so its mean is NaN`,
			}},
		{"β at the edges of the grid", []Row{
			{Label: "a", Method: "k4", Mode: "diag", Accuracy: []float64{0.9, 0.8}, Beta: []float64{1e-2, 1}},
			{Label: "b", Method: "k1", Mode: "full", Accuracy: []float64{0.9, 0.8}, Beta: []float64{1e7, 1e7}},
			{Label: "c", Method: "k1", Mode: "diag", Accuracy: []float64{0.9, 0.8}, Beta: []float64{1, 100}},
		}, []string{
			`row "a": β chosen at the smallest value of the grid (0.01) on split(s) 0: the best β may lie below it; extend beta_grid to know`,
			`row "b": β chosen at the largest value of the grid (1e+07) on split(s) 0, 1: the best β may lie above it; extend beta_grid to know`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Summary{Splits: 2, Rows: tc.rows, BetaGrid: []float64{1e-2, 1, 100, 1e7}}
			if got := s.Warnings(); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
