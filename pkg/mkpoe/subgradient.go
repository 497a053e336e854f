package mkpoe

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// goldenRatio φ drives the adaptive step of McFee's mlr code.
var goldenRatio = (1 + math.Sqrt(5)) / 2

// subgradient minimises the exact objective by the projected subgradient
// method of McFee & Lanckriet (2011, Appendix B): the subgradient
//
//	∂f/∂W = R + Σ_{(i,j,k,l) ∈ 𝒞̄} Φᵀ(E_ij − E_kl)Φ   (𝒞̄: violated comparisons, Eq. 17)
//
// is followed by projection onto the PSD cone (eigenvalues clipped at 0)
// or, for diagonal W, onto W_ii ≥ 0. The problem p is in the paper's
// W-space (Φ = K, R = K).
//
// Step size (the paper does not state one): that of McFee's mlr code. A step
// is accepted only if the objective drops; after a success it grows by φ^{1/3},
// after a failure it shrinks by 1/φ (φ the golden ratio). The first step has
// unit Frobenius length. It stops when the best objective improved by less
// than Tol/10 (relative) over the last 200 iterations, or the step underflows.
func (p *problem) subgradient(x0 []float64, s Settings) solution {
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
		for k := range sol.x {
			sol.x[k] = 0
		}
		sol.objective, sol.converged = 0, true
		return sol
	}
	xn := make([]float64, p.dim)
	mn := make([]float64, nc)
	step := -1.0
	const window = 200
	for it := 1; it <= s.MaxIter; it++ {
		p.lossAndWeights(m, 0, alpha)
		p.gradient(ws, alpha, pw, g)
		if step < 0 {
			gn := floats.Norm(g, 2)
			if gn == 0 {
				sol.converged = true
				break
			}
			step = 1 / gn
		}
		for k := range xn {
			xn[k] = x[k] - step*g[k]
		}
		p.project(ws, xn)
		p.margins(ws, xn, dist, mn)
		fn := p.regularizer(xn) + p.lossAndWeights(mn, 0, nil)
		if fn < f {
			x, xn = xn, x
			m, mn = mn, m
			f = fn
			step *= math.Cbrt(goldenRatio)
		} else {
			step /= goldenRatio
		}
		sol.trace = append(sol.trace, f)
		sol.iters = it
		if f < sol.objective {
			sol.objective = f
			copy(sol.x, x)
		}
		if s.Recorder != nil {
			s.Recorder(Iteration{Iter: it, Objective: f, Best: sol.objective})
		}
		if it > window {
			old := sol.trace[it-1-window]
			if old-sol.objective <= s.Tol/10*sol.objective || step < 1e-300 {
				sol.converged = true
				break
			}
		}
	}
	return sol
}
