package mkpoe

import (
	"math"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
)

// ritz is the result of smallestEigen: the smallest Ritz values of a
// symmetric operator in ascending order, the Ritz vectors of the first
// want, and a lower estimate of its smallest eigenvalue (conic.Ritz.Lower).
type ritz struct {
	vals  []float64   // ascending
	vecs  [][]float64 // vecs[i] is the unit Ritz vector of vals[i]
	lower float64
	steps int // Lanczos steps taken (operator applications)
}

// smallestEigen runs the Lanczos method (conic.Lanczos: full
// re-orthogonalisation) on the symmetric k×k operator apply (out = A·v),
// from a deterministic start vector, for at most maxSteps steps, until the
// smallest Ritz pair's residual is at most tol·max|θ|, and returns up to
// want of the smallest Ritz pairs with their vectors. It is how the
// low-rank method finds λ_min of the dual slack without forming it
// (docs/solver.md, "Low-rank method"). It tests convergence after 8 steps,
// then every max(8, n/4): the tridiagonal problem with vectors costs O(n³),
// so a fixed stride would cost O(maxSteps⁴) in all (most of a certificate
// at n = 1000). ok is false if the tridiagonal eigenproblem fails.
//
// stop, if not nil, is asked before every step (a cancelled context).
func smallestEigen(k int, apply func(v, out []float64), want, maxSteps int, tol float64, stop func() bool) (ritz, bool) {
	return smallestEigenFrom(lanczosStart(k), apply, want, maxSteps, conic.LanczosOptions{Tol: tol, Stop: stop})
}

// lanczosStart is the deterministic start vector of smallestEigen: a
// fixed vector with no structure shared with item order.
func lanczosStart(k int) []float64 {
	start := make([]float64, k)
	for i := range start {
		start[i] = 1 + 0.5*math.Sin(1.7*float64(i)+1) + 0.25*math.Cos(0.37*float64(i*i%9973))
	}
	return start
}

// smallestEigenFrom is smallestEigen from the given start vector, with
// opt's Tol, Enough and Stop (the rest is set here).
func smallestEigenFrom(start []float64, apply func(v, out []float64), want, maxSteps int, opt conic.LanczosOptions) (ritz, bool) {
	k := len(start)
	next := 8
	check := func(n int) bool {
		if n < next {
			return false
		}
		next = n + max(8, n/4)
		return true
	}
	opt.Start, opt.MaxSteps, opt.Check, opt.Want = start, maxSteps, check, want
	r, ok := conic.Lanczos(k, apply, opt)
	if !ok {
		return ritz{}, false
	}
	out := ritz{vecs: r.Vecs, lower: r.Lower, steps: r.Steps}
	out.vals = r.Vals[:len(r.Vecs)]
	return out, true
}
