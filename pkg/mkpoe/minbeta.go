package mkpoe

import "math"

// minBeta returns β_min, the largest β at which W = 0 is optimal: for β ≤
// β_min the fit's answer is W = 0 (every distance 0, every comparison a
// tie), for β > β_min it is not. p must be in eigenbasis form (full blocks
// with R = I) or diagonal, before preconditioning.
//
// At W = 0 every margin is 1, so every hinge is active and differentiable:
// the objective's gradient there is R + μ·Σ_c (A_ij − A_kl) with μ = β/|𝒞|
// (Alg. 4, Eq. 13), and since the objective is convex, W = 0 is optimal iff
// that gradient is positive semidefinite on the cone of each block. With
// M = Φᵀ(Σ_c (E_ij − E_kl))Φ/|𝒞| (the gradient at α_c = 1/|𝒞| minus R),
//
//	full block (R = I):      I + β·M ⪰ 0   ⇔  β ≤ 1/(−λ_min(M))
//	diagonal block (R = c):  c_t + β·M_tt ≥ 0 ∀t  ⇔  β ≤ min_t c_t/(−M_tt)
//
// over the entries with λ_min(M) < 0 or M_tt < 0, so β_min is
// feasibleScale at α_c = 1/|𝒞| (docs/solver.md, "The smallest useful β").
// It is +Inf when no comparison can be improved on (W = 0 at every β) and 0
// when a coordinate without regulariser weight helps (W ≠ 0 at every β).
func (p *problem) minBeta() float64 { return p.minBetaUntil(nil) }

// minBetaUntil is minBeta whose Lanczos runs ask stop (nil: never) before
// every step; a stopped run gives NaN (the fit is being cancelled).
func (p *problem) minBetaUntil(stop func() bool) float64 {
	nc := len(p.left)
	if nc == 0 {
		return math.Inf(1)
	}
	alpha := make([]float64, nc)
	for c := range alpha {
		alpha[c] = 1 / float64(nc)
	}
	if minBetaByLanczos(p) {
		return p.minBetaLanczos(alpha, stop)
	}
	materializeDiagonal(p.blocks, nil) // the dense form reads Φ as a matrix
	ws := p.newWorkspace()
	g := make([]float64, p.dim)
	p.gradient(ws, alpha, make([]float64, len(p.pairs)), g)
	return p.feasibleScale(ws, g)
}

// minBetaLanczos is minBeta for full blocks by the Lanczos method (the
// low-rank method's certificate, lowRank.certificate) at the multipliers
// alpha = 1/|𝒞|: β_min = 1/(−λ_min) over the blocks, from its lower
// estimate of λ_min.
func (p *problem) minBetaLanczos(alpha []float64, stop func() bool) float64 {
	lr := newLowRank(p)
	lr.stop = stop
	copy(lr.alpha, alpha)
	lr.pairWeights()
	t := math.Inf(1)
	for b, fb := range lr.blocks {
		res, ok := smallestEigen(fb.blk.r, lr.slackOperator(b), 1, fb.blk.r, p.tune.lowRank.lanczosTol, lr.stop)
		if !ok {
			return math.NaN()
		}
		if res.lower < 0 {
			t = math.Min(t, 1/(-res.lower))
		}
	}
	return t
}
