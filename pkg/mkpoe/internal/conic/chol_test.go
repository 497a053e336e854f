package conic

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"gonum.org/v1/gonum/floats"
)

// spdWithSpectrum returns the row-major n×n matrix Q diag(λ) Qᵀ, Q a
// random orthogonal matrix (Gram–Schmidt on a Gaussian one) and λ spread
// geometrically from 1 to cond.
func spdWithSpectrum(rng *rand.Rand, n int, cond float64) []float64 {
	q := make([]float64, n*n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	for i := range n { // rows of q become orthonormal
		row := q[i*n : i*n+n]
		for k := range i {
			floats.AddScaled(row, -floats.Dot(row, q[k*n:k*n+n]), q[k*n:k*n+n])
		}
		floats.Scale(1/floats.Norm(row, 2), row)
	}
	a := make([]float64, n*n)
	for k := range n {
		lam := math.Pow(cond, float64(k)/float64(max(n-1, 1)))
		v := q[k*n : k*n+n]
		for i := range n {
			for j := range n {
				a[i*n+j] += lam * v[i] * v[j]
			}
		}
	}
	return a
}

// TestFactorMixed solves M x = b with factorMixed and checks, against the
// known solution and against a double-precision factorisation, when single
// precision is used, when it falls back (an ill-conditioned matrix, where
// κ ε₃₂ > 1), and that the answer meets LAPACK's dsposv residual test
// either way.
func TestFactorMixed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		n          int
		cond       float64
		mixed      bool
		minSize    int
		wantSingle bool // the solve ends on the single-precision factor
		wantFailed bool
		wantTried  bool // a single-precision factorisation succeeded
	}{
		{"well conditioned", 120, 1e3, true, 0, true, false, true},
		{"moderately conditioned", 120, 1e5, true, 0, true, false, true},
		{"refinement too slow: falls back", 120, 1e8, true, 0, false, true, true},
		{"not positive definite in float32: falls back", 120, 1e10, true, 0, false, true, false},
		{"mixed precision off", 120, 1e3, false, 0, false, false, false},
		{"below the size threshold", 120, 1e3, true, 121, false, false, false},
	}
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			settings := DefaultSettings()
			settings.MixedPrecision, settings.MixedMinSize = tc.mixed, tc.minSize
			rng := rand.New(rand.NewPCG(uint64(ci), 44))
			n := tc.n
			m := spdWithSpectrum(rng, n, tc.cond)
			want := make([]float64, n)
			for i := range want {
				want[i] = rng.NormFloat64()
			}
			b := make([]float64, n)
			linalg.SymMulVec(n, m, want, b)
			a := append([]float64(nil), m...)
			for i := range n {
				for j := range i {
					a[i*n+j] = math.NaN() // the lower triangle must not be read
				}
			}
			var st mixedState
			f, ok := factorMixed(n, a, nil, &st, settings)
			if !ok {
				t.Fatal("factorMixed refused an SPD matrix")
			}
			x := append([]float64(nil), b...)
			if !f.solve(x) {
				t.Fatal("solve failed")
			}
			if got := f.single != nil; got != tc.wantSingle {
				t.Errorf("single-precision factor in use: %v, want %v", got, tc.wantSingle)
			}
			if st.failed != tc.wantFailed {
				t.Errorf("fell back: %v, want %v", st.failed, tc.wantFailed)
			}
			if got := st.factored > 0; got != tc.wantTried {
				t.Errorf("%d single-precision factorisations, want some: %v", st.factored, tc.wantTried)
			}
			if tc.wantSingle && st.refined < 2 {
				t.Errorf("%d refinement steps: want at least one correction after the first solve", st.refined)
			}
			// dsposv's test, with a factor 10 of slack for the fall back
			// (a double-precision solve meets it up to a small constant).
			r := make([]float64, n)
			linalg.SymMulVec(n, m, x, r)
			floats.Sub(r, b)
			norm := 0.0
			for i := range n {
				row := 0.0
				for j := range n {
					row += math.Abs(m[i*n+j])
				}
				norm = math.Max(norm, row)
			}
			limit := 10 * floats.Norm(x, math.Inf(1)) * norm * eps64 * math.Sqrt(float64(n))
			if res := floats.Norm(r, math.Inf(1)); !(res <= limit) {
				t.Errorf("residual %.3g > %.3g", res, limit)
			}
			// The error bound of a backward-stable solve: κ ε, with room.
			if d := floats.Distance(x, want, math.Inf(1)) / floats.Norm(want, math.Inf(1)); !(d <= 100*tc.cond*eps64*math.Sqrt(float64(n))) {
				t.Errorf("relative error %.3g for κ = %g", d, tc.cond)
			}
			// A second solve reuses the factor (the corrector's).
			y := append([]float64(nil), b...)
			if !f.solve(y) {
				t.Fatal("second solve failed")
			}
			if d := floats.Distance(x, y, math.Inf(1)) / floats.Norm(x, math.Inf(1)); d > 1e-10*tc.cond {
				t.Errorf("second solve differs from the first by %.3g", d)
			}
			t.Logf("single-precision factorisations %d, refinement steps %d, fell back %v", st.factored, st.refined, st.failed)
		})
	}
}
