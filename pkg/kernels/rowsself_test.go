package kernels

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRowsSelfOfTrainingItems: the training items given again as new items
// get, with the training statistics, their own Gram rows and diagonal, for
// every normalisation (the new items' formulas are the training ones).
func TestRowsSelfOfTrainingItems(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{1, 2, 0, 1, 3, 0.5, -1, 2, 2, 2})
	for _, norm := range []Normalization{NormNone, NormDiag, NormTrace, NormCenter} {
		for _, typ := range []string{"linear", "rbf"} {
			k, err := New(typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Fit(k, Input{Features: x}, Options{Normalize: norm})
			if err != nil {
				t.Fatal(err)
			}
			rows, self, err := m.RowsSelf(Input{Features: x})
			if err != nil {
				t.Fatal(err)
			}
			g := m.Gram()
			for i := 0; i < 5; i++ {
				if math.Abs(self[i]-g.At(i, i)) > 1e-12 {
					t.Errorf("%s, %v: self[%d] = %v, want the Gram diagonal %v", typ, norm, i, self[i], g.At(i, i))
				}
				for j := 0; j < 5; j++ {
					if math.Abs(rows.At(i, j)-g.At(i, j)) > 1e-12 {
						t.Errorf("%s, %v: rows[%d][%d] = %v, want %v", typ, norm, i, j, rows.At(i, j), g.At(i, j))
					}
				}
			}
			if r2, _ := m.Rows(Input{Features: x}); !mat.Equal(r2, rows) {
				t.Errorf("%s, %v: Rows and RowsSelf differ", typ, norm)
			}
		}
	}
}
