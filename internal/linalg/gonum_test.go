//go:build !openblas

package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// spectrumMatrix returns Q diag(lambda) Qᵀ (row-major) for a random
// orthogonal Q.
func spectrumMatrix(rng *rand.Rand, lambda []float64) []float64 {
	n := len(lambda)
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	var a mat.Dense
	a.Product(&q, mat.NewDiagDense(n, lambda), q.T())
	out := make([]float64, n*n)
	for i := range n {
		for j := range n {
			out[i*n+j] = (a.At(i, j) + a.At(j, i)) / 2
		}
	}
	return out
}

// wilkinson returns W⁺ of order n = 2k+1 (diagonal |k−i|, off-diagonal 1),
// whose largest eigenvalues come in pairs that agree to many digits.
func wilkinson(n int) []float64 {
	a := make([]float64, n*n)
	k := n / 2
	for i := range n {
		a[i*n+i] = math.Abs(float64(k - i))
		if i+1 < n {
			a[i*n+i+1], a[(i+1)*n+i] = 1, 1
		}
	}
	return a
}

// TestSymEigenRangeInverseIteration checks the pure-Go partial
// eigensolver's inverse iteration on spectra with clusters and
// multiplicities: it must not fall back to the QR iteration, and the
// vectors it returns must be orthonormal eigenvectors of A.
func TestSymEigenRangeInverseIteration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	spectrum := func(n int, positive []float64) []float64 {
		l := make([]float64, n)
		copy(l, positive)
		for i := len(positive); i < n; i++ {
			l[i] = -0.1 - rng.Float64()
		}
		return l
	}
	cases := []struct {
		name string
		a    []float64
		vl   float64
	}{
		{"n4 one positive", spectrumMatrix(rng, spectrum(4, []float64{0.7})), 0},
		{"n8 distinct", spectrumMatrix(rng, spectrum(8, []float64{0.3, 2})), 0},
		{"n40 double", spectrumMatrix(rng, spectrum(40, []float64{1, 1, 2.5})), 0},
		{"n60 multiplicity 5", spectrumMatrix(rng, spectrum(60, []float64{2, 2, 2, 2, 2, 0.5})), 0},
		{"n80 cluster 1e-9", spectrumMatrix(rng, spectrum(80, []float64{1, 1 + 1e-9, 1 + 2e-9, 3, 3 + 1e-12})), 0},
		{"n200 random", spectrumMatrix(rng, spectrum(200, []float64{0.01, 0.2, 5, 7, 7.5, 30})), 0},
		{"Wilkinson 21, top pairs", wilkinson(21), 8.5},
		{"Wilkinson 41, top pairs", wilkinson(41), 16.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := int(math.Sqrt(float64(len(tc.a))))
			// The tridiagonal form and its eigenvalues, as symEigenRange
			// computes them.
			impl := lapackgo.Implementation{}
			work := append([]float64(nil), tc.a...)
			d, e, tau := make([]float64, n), make([]float64, max(n-1, 1)), make([]float64, max(n-1, 1))
			lw := make([]float64, 64*n)
			impl.Dsytrd(blas.Upper, n, work, n, d, e, tau, lw, len(lw))
			all, off := append([]float64(nil), d...), append([]float64(nil), e...)
			if !impl.Dsterf(n, all, off) {
				t.Fatal("dsterf failed")
			}
			var want []float64
			for _, v := range all {
				if v > tc.vl {
					want = append(want, v)
				}
			}
			if 4*len(want) > n {
				t.Fatalf("%d of %d eigenvalues wanted: the test would take the fallback", len(want), n)
			}
			z := make([]float64, len(want)*n)
			if !tridiagonalInverseIteration(d, e[:n-1], want, z) {
				t.Fatal("inverse iteration fell back")
			}

			vals, vecs := make([]float64, n), make([]float64, n*n)
			m, ok := SymEigenRange(n, append([]float64(nil), tc.a...), tc.vl, math.Inf(1), vals, vecs)
			if !ok || m != len(want) {
				t.Fatalf("SymEigenRange: %d eigenpairs (ok %v), want %d", m, ok, len(want))
			}
			for k := 0; k < m; k++ {
				if math.Abs(vals[k]-want[k]) > 1e-12*math.Max(1, math.Abs(want[k])) {
					t.Errorf("eigenvalue %d = %v, want %v", k, vals[k], want[k])
				}
				v := vecs[k*n : (k+1)*n]
				for i := range n {
					av := 0.0
					for j := range n {
						av += tc.a[i*n+j] * v[j]
					}
					if r := math.Abs(av - vals[k]*v[i]); r > 1e-11*float64(n) {
						t.Fatalf("vector %d: (Av − λv)[%d] = %g", k, i, r)
					}
				}
				for l := 0; l <= k; l++ {
					dot := 0.0
					for i := range n {
						dot += v[i] * vecs[l*n+i]
					}
					wantDot := 0.0
					if l == k {
						wantDot = 1
					}
					if math.Abs(dot-wantDot) > 1e-10 {
						t.Errorf("vectors %d, %d: dot %v, want %v", k, l, dot, wantDot)
					}
				}
			}
		})
	}
}

// TestTridiagonalLU checks (T − σI)⁻¹b against a dense solve, with pivots
// that force row exchanges and a singular shift (pivot replaced by tiny).
func TestTridiagonalLU(t *testing.T) {
	for _, tc := range []struct {
		d, e  []float64
		sigma float64
	}{
		{d: []float64{1, 2, 3, 4}, e: []float64{5, 6, 7}, sigma: 0.5},
		{d: []float64{0, 0, 0}, e: []float64{1, 1}, sigma: 0.1},
		{d: []float64{2, -1, 3, 0.5, 4}, e: []float64{0.1, 3, 0.2, 5}, sigma: -0.3},
		{d: []float64{3}, e: nil, sigma: 1},
	} {
		t.Run(fmt.Sprint(tc.d), func(t *testing.T) {
			n := len(tc.d)
			var f tridiagonalLU
			f.init(n)
			f.factor(tc.d, tc.e, tc.sigma, 1e-300)
			b := make([]float64, n)
			for i := range b {
				b[i] = float64(i + 1)
			}
			x := append([]float64(nil), b...)
			f.solve(x)
			// Residual of (T − σI)x = b.
			for i := range n {
				r := (tc.d[i] - tc.sigma) * x[i]
				if i > 0 {
					r += tc.e[i-1] * x[i-1]
				}
				if i < n-1 {
					r += tc.e[i] * x[i+1]
				}
				if math.Abs(r-b[i]) > 1e-12*math.Max(1, math.Abs(b[i])) {
					t.Errorf("row %d: (T − σI)x = %v, want %v", i, r, b[i])
				}
			}
		})
	}
}
