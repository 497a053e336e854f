package mkpoe

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// cholFactor is the Cholesky factor of a symmetric positive definite n×n
// matrix by LAPACK's dpotrf. (gonum's mat.Cholesky also estimates the
// condition number, which costs as much as the factorisation again for the
// interior-point method's Newton systems.)
type cholFactor struct {
	t blas64.Triangular
}

// factorSPD factors the matrix held row-major in a (only the upper triangle
// is read; a is overwritten). If it is not numerically positive definite,
// it retries with a relative ridge up to 1e-8 (round-off at the end of an
// interior-point run), after refill(a) restores the matrix; with refill nil
// a copy is kept for that. It reports false if all attempts fail.
func factorSPD(n int, a []float64, refill func([]float64)) (*cholFactor, bool) {
	if refill == nil {
		orig := append([]float64(nil), a...)
		refill = func(a []float64) { copy(a, orig) }
	}
	for ridge := 0.0; ridge <= 1e-8; {
		if ridge > 0 {
			refill(a)
			for i := 0; i < n; i++ {
				a[i*n+i] = a[i*n+i]*(1+ridge) + ridge
			}
		}
		t, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Data: a, Stride: max(n, 1)})
		if ok {
			return &cholFactor{t: t}, true
		}
		if ridge == 0 {
			ridge = 1e-14
		} else {
			ridge *= 100
		}
	}
	return nil, false
}

// solve overwrites b with A⁻¹b. It reports false if the result is not finite.
func (c *cholFactor) solve(b []float64) bool {
	if c.t.N == 0 {
		return true
	}
	lapack64.Potrs(c.t, blas64.General{Rows: c.t.N, Cols: 1, Data: b, Stride: 1})
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
