package conic

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// Step lengths on the PSD blocks (docs/solver.md, "Step lengths on PSD
// blocks").
//
// The interior-point method's largest primal step on a PSD block is the
// largest a with X + a·ΔX ⪰ 0, that is 1/max(0, −λ_min(M)) for the scaled
// direction M = Λ^{-1/2} G⁻¹ΔXG⁻ᵀ Λ^{-1/2} (and likewise GᵀΔSG for the dual
// step). Forming M takes two k×k products per direction and λ_min an
// eigenvalue problem (a tridiagonal reduction, 4k³/3 flops); the Lanczos
// method needs only products of M with vectors, three k×k matrix-vector
// products each, and the smallest eigenvalue of a well-separated end of the
// spectrum converges in a few dozen of them. A Ritz value is never below
// λ_min, so the step it gives can only be too long: psdStep checks it with
// one Cholesky factorisation of X + 0.99·a·ΔX (k³/3 flops), and only when
// that fails does it form M and solve the eigenvalue problem.

// lanczosMin returns the smallest Ritz value of the symmetric k×k operator
// apply (out = A·v) after at most maxSteps steps of the Lanczos method with
// full re-orthogonalisation (Golub & Van Loan, Matrix Computations, Ch. 10;
// each step orthogonalised twice, Parlett's "twice is enough") from a fixed
// start vector (deterministic). It
// stops once the smallest Ritz pair's residual β_j|s_j| is at most
// tol·max|θ| or the Krylov space is invariant. The result is never below
// λ_min(A) in exact arithmetic; it is −Inf if the tridiagonal eigenvalue
// problem fails.
func lanczosMin(k int, apply func(v, out []float64), maxSteps int, tol float64) float64 {
	start := make([]float64, k)
	for i := range start {
		start[i] = 1 + 0.5*math.Sin(float64(i)+1)
	}
	r, ok := Lanczos(k, apply, LanczosOptions{Start: start, MaxSteps: maxSteps, Tol: tol, Check: func(n int) bool { return n%4 == 0 }})
	if !ok {
		return math.Inf(-1)
	}
	return r.Vals[0]
}

// psdStep returns the largest step a ≤ 1 with base + a·dir ⪰ 0 for the
// current point base ≻ 0 of a PSD block (X or S, svec) and a direction
// (svec), given the block's NT scaling: a = ginvt for the primal (X),
// g for the dual (S), whose congruence Aᵀ·base·A is Λ. It is the
// Lanczos estimate (after at most s.LanczosMaxSteps steps, to
// s.LanczosTol) when base + s.StepCheck·a·dir passes a Cholesky
// factorisation, and maxStepPSD's exact value otherwise.
func psdStep(k int, base, dir []float64, a *mat.Dense, lambda []float64, s Settings) float64 {
	dm := make([]float64, k*k)
	SmatOf(k, dir, dm)
	theta := lanczosMin(k, scaledDirection(k, dm, a, lambda), s.LanczosMaxSteps, s.LanczosTol)
	if !math.IsInf(theta, -1) {
		step := 1.0
		if theta < -1 {
			step = -1 / theta
		}
		if insideAfter(k, base, dir, s.StepCheck*step) {
			return step
		}
	}
	return maxStepPSD(lambda, congruence(a, dm, k))
}

// scaledDirection returns the operator v ↦ Λ^{-1/2} Aᵀ D A Λ^{-1/2} v for the
// k×k symmetric direction d (full, row-major): the scaled direction whose
// smallest eigenvalue bounds the step, applied with three matrix-vector
// products instead of formed.
func scaledDirection(k int, d []float64, a *mat.Dense, lambda []float64) func(v, out []float64) {
	dm := mat.NewSymDense(k, d)
	root := make([]float64, k)
	for i, l := range lambda {
		root[i] = 1 / math.Sqrt(l)
	}
	u := mat.NewVecDense(k, nil)
	t := mat.NewVecDense(k, nil)
	return func(v, out []float64) {
		for i := range v {
			u.SetVec(i, v[i]*root[i])
		}
		t.MulVec(a, u)
		u.MulVec(dm, t)
		mat.NewVecDense(k, out).MulVec(a.T(), u)
		for i := range out {
			out[i] *= root[i]
		}
	}
}

// insideAfter reports whether base + t·dir (svec of k×k matrices) is
// numerically positive definite: whether its Cholesky factorisation
// succeeds.
func insideAfter(k int, base, dir []float64, t float64) bool {
	v := make([]float64, len(base))
	for i := range v {
		v[i] = base[i] + t*dir[i]
	}
	m := make([]float64, k*k)
	SmatOf(k, v, m)
	return linalg.Cholesky(k, m)
}
