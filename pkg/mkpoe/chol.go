package mkpoe

import (
	"math"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// cholFactor is the Cholesky factor of a symmetric positive definite n×n
// matrix by LAPACK's dpotrf (linalg.Cholesky: OpenBLAS's under -tags openblas). (gonum's mat.Cholesky also estimates the
// condition number, which costs as much as the factorisation again for the
// interior-point method's Newton systems.)
type cholFactor struct {
	n int
	a []float64 // the factor, as left by linalg.Cholesky
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
		if linalg.Cholesky(n, a) {
			return &cholFactor{n: n, a: a}, true
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
	linalg.CholeskySolve(c.n, c.a, b)
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
