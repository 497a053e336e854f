package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFeatureGramMatchesLinear: the linear Gram held as its features gives
// Linear's Gram entries and its new items' rows and self-similarities bit
// for bit (unnormalised), and refuses empty and non-finite features.
func TestFeatureGramMatchesLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, tc := range []struct{ n, t, d int }{{1, 1, 1}, {7, 3, 5}, {40, 9, 13}} {
		x := mat.NewDense(tc.n, tc.d, nil)
		y := mat.NewDense(tc.t, tc.d, nil)
		for _, m := range []*mat.Dense{x, y} {
			r, c := m.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					m.Set(i, j, rng.NormFloat64()*1e3)
				}
			}
		}
		model, err := Fit(Linear{}, Input{Features: x}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewFeatureGram(x)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(g, model.Gram()) || g.SymmetricDim() != tc.n {
			t.Errorf("n=%d d=%d: the feature Gram differs from Linear's", tc.n, tc.d)
		}
		wantRows, wantSelf, err := model.RowsSelf(Input{Features: y})
		if err != nil {
			t.Fatal(err)
		}
		rows, self, err := g.Cross(y)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(rows, wantRows) {
			t.Errorf("n=%d d=%d: new rows differ from Linear's", tc.n, tc.d)
		}
		for r := range self {
			if self[r] != wantSelf[r] {
				t.Errorf("n=%d d=%d: self-similarity %d is %v, Linear's %v", tc.n, tc.d, r, self[r], wantSelf[r])
			}
		}
		if _, _, err := g.Cross(mat.NewDense(1, tc.d+1, nil)); err == nil {
			t.Errorf("n=%d d=%d: new items of another width must be an error", tc.n, tc.d)
		}
	}
	bad := mat.NewDense(2, 2, []float64{1, 2, math.NaN(), 4})
	if _, err := NewFeatureGram(bad); err == nil {
		t.Error("a NaN feature must be an error")
	}
	if _, err := NewFeatureGram(nil); err == nil {
		t.Error("no features must be an error")
	}
}
