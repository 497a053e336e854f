package mkpoe

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/floats"
)

// subgradient minimises the exact objective by the projected subgradient
// method of McFee & Lanckriet (2011, Appendix B): the subgradient
//
//	∂f/∂W = R + Σ_{(i,j,k,l) ∈ 𝒞̄} Φᵀ(E_ij − E_kl)Φ   (𝒞̄: violated comparisons, Eq. 17)
//
// is followed by projection onto the PSD cone (eigenvalues clipped at 0)
// or, for diagonal W, onto W_ii ≥ 0. The problem p is in the paper's
// W-space (Φ = K, R = K).
//
// Deviation: the paper states no step size. McFee's mlr code accepts a step
// only if f drops (growing it by φ^{1/3}, else shrinking by 1/φ), which can
// stall at a kink of the hinge: a subgradient need not be a descent
// direction. We use the Polyak step towards a target level instead
// (Brännlund 1995; Goffin & Kiwiel 1999), which provably converges:
//
//	α_k = (f(W_k) − f_best + δ_k) / ‖g_k‖²,
//
// with δ_0 = f(W_0)/2 and δ halved, restarting from the best point, whenever
// 200 iterations pass without a new best. Every iterate is kept (no rejection); the best is returned. It
// stops when δ < Tol·f_best/10 or at MaxIter.
func (p *problem) subgradient(ctx context.Context, x0 []float64, s Settings) (solution, error) {
	ws := p.newWorkspace()
	nc := len(p.left)
	np := len(p.pairs)
	dist := make([]float64, np)
	pw := make([]float64, np)
	alpha := make([]float64, nc)
	g := make([]float64, p.dim)

	x := append([]float64(nil), x0...)
	m := make([]float64, nc)
	p.margins(ws, x, dist, m)
	f := p.regularizer(x) + p.lossAndWeights(m, 0, nil)
	sol := solution{x: append([]float64(nil), x...), objective: f}
	if nc == 0 {
		return zeroSolution(p.dim), nil
	}
	if err := finiteObjective(f); err != nil {
		return sol, err
	}
	delta := f / 2
	sinceBest := 0
	for it := 1; it <= s.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return sol, fmt.Errorf("mkpoe: fit stopped after %d iterations: %w", it-1, err)
		}
		p.lossAndWeights(m, 0, alpha)
		p.gradient(ws, alpha, pw, g)
		gn2 := floats.Dot(g, g)
		if gn2 == 0 {
			sol.converged = true
			break
		}
		step := (f - sol.objective + delta) / gn2
		floats.AddScaled(x, -step, g)
		p.projectMargins(ws, x, dist, m)
		f = p.regularizer(x) + p.lossAndWeights(m, 0, nil)
		if sol.keepIterate(it, x, f) {
			sinceBest = 0
		} else if sinceBest++; sinceBest >= p.tune.subgradientPatience {
			// No progress at this target: aim closer and restart from the best point.
			delta /= 2
			sinceBest = 0
			copy(x, sol.x)
			p.margins(ws, x, dist, m)
			f = sol.objective
		}
		s.report(Iteration{Iter: it, Objective: f, Best: sol.objective, Stage: StageSubgradient})
		if delta < s.Tol/10*sol.objective {
			sol.converged = true
			break
		}
	}
	return sol, nil
}
