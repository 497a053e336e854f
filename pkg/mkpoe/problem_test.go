package mkpoe

import (
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestDiagonalPhiMatchesGeneric checks the O(1) pair forms and gradient for
// a diagonal Φ (GNMDS and its preconditioned form) against the generic
// O(r) kernels, and that diagonalOf recognises exactly the square
// diagonal matrices.
func TestDiagonalPhiMatchesGeneric(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 7
	var pairs []data.Pair
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			pairs = append(pairs, data.Pair{A: a, B: b})
		}
	}
	for _, name := range []string{"identity", "scaled"} {
		d := make([]float64, n)
		phi := mat.NewDense(n, n, nil)
		for i := range d {
			d[i] = 1
			if name == "scaled" {
				d[i] = 0.1 + rng.Float64()
			}
			phi.Set(i, i, d[i])
		}
		if got := diagonalOf(phi); !floats.Equal(got, d) {
			t.Fatalf("%s: diagonalOf = %v, want %v", name, got, d)
		}
		x := randomSymmetric(rng, n)
		want := make([]float64, len(pairs))
		var f mat.Dense
		f.Mul(phi, mat.NewDense(n, n, x))
		conic.AddPairForms(phi, &f, pairs, want)
		got := make([]float64, len(pairs))
		addDiagonalPairForms(d, x, pairs, got)
		if !floats.EqualApprox(got, want, 1e-12) {
			t.Errorf("%s: pair forms %v, want %v", name, got, want)
		}
		pw := make([]float64, len(pairs))
		for k := range pw {
			pw[k] = rng.NormFloat64()
		}
		tm := mat.NewDense(n, n, nil)
		conic.AddPairDifferences(tm, phi, pairs, pw)
		var g mat.Dense
		g.Mul(phi.T(), tm)
		gd := make([]float64, n*n)
		addDiagonalPairDifferences(d, pairs, pw, gd)
		if !floats.EqualApprox(gd, g.RawMatrix().Data, 1e-12) {
			t.Errorf("%s: gradient %v, want %v", name, gd, g.RawMatrix().Data)
		}
	}
	notDiagonal := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 1e-300, 0, 0, 1})
	if diagonalOf(notDiagonal) != nil || diagonalOf(mat.NewDense(3, 2, nil)) != nil {
		t.Error("diagonalOf accepted a non-diagonal or non-square matrix")
	}
}
