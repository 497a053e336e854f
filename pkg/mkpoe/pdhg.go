package mkpoe

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// pdhg minimises f by the primal–dual hybrid gradient method (Chambolle &
// Pock 2011) on the saddle-point form of Alg. 4,
//
//	min_{X ⪰ 0} max_{0 ≤ α ≤ β/|𝒞|}  Σ_p ⟨R⁽ᵖ⁾, X⁽ᵖ⁾⟩ + Σ_c α_c (1 + d(i,j) − d(k,l)),
//
// with restarts and primal-weight updates in the manner of PDLP (Applegate
// et al. 2021). The dual iterate α is a multiplier vector of the hinge, so
// the certificate of accelerated applies at every check.
func (p *problem) pdhg(x0 []float64, s Settings) solution {
	ws := p.newWorkspace()
	nc := len(p.left)
	np := len(p.pairs)
	dist := make([]float64, np)
	pw := make([]float64, np)
	g := make([]float64, p.dim)

	x := append([]float64(nil), x0...)
	mx := make([]float64, nc)
	p.margins(ws, x, dist, mx)
	sol := solution{x: append([]float64(nil), x...), objective: p.regularizer(x) + p.lossAndWeights(mx, 0, nil)}
	if nc == 0 {
		for k := range sol.x {
			sol.x[k] = 0
		}
		sol.objective, sol.converged = 0, true
		return sol
	}
	ub := p.beta / float64(nc)
	y := make([]float64, nc)
	p.lossAndWeights(mx, 0, y) // start from the hinge subgradient multipliers

	normA := math.Sqrt(p.lipschitzEstimate(ws, 1, dist, pw) * float64(nc) / (1.1 * p.beta))
	omega := 1.0
	if xn := floats.Norm(x, 2); xn > 0 {
		omega = floats.Norm(y, 2) / xn
	} else {
		omega = floats.Norm(y, 2)
	}
	if omega <= 0 {
		omega = 1
	}
	steps := func() (float64, float64) { return 0.95 / (omega * normA), 0.95 * omega / normA }
	tau, sigma := steps()

	xr := append([]float64(nil), x...) // iterate at the last restart
	yr := append([]float64(nil), y...)
	gapRestart := math.Inf(1)
	xn := make([]float64, p.dim)
	mxn := make([]float64, nc)
	const checkEvery = 10
	for it := 1; it <= s.MaxIter; it++ {
		p.gradient(ws, y, pw, g) // R + Aᵀα
		for k := range xn {
			xn[k] = x[k] - tau*g[k]
		}
		p.project(ws, xn)
		p.margins(ws, xn, dist, mxn)
		for c := range y {
			bar := 2*mxn[c] - mx[c] // 1 + A(2x⁺ − x)
			y[c] = math.Min(ub, math.Max(0, y[c]+sigma*bar))
		}
		x, xn = xn, x
		mx, mxn = mxn, mx
		f := p.regularizer(x) + p.lossAndWeights(mx, 0, nil)
		sol.trace = append(sol.trace, f)
		sol.iters = it
		if f < sol.objective {
			sol.objective = f
			copy(sol.x, x)
		}
		if it%checkEvery == 0 || it == s.MaxIter {
			p.gradient(ws, y, pw, g)
			t := p.dualScale(ws, g)
			b := t * floats.Sum(y)
			if b > sol.bound {
				sol.bound = b
			}
			if sol.objective-sol.bound <= s.Tol*sol.objective {
				sol.converged = true
			}
			gap := f - b
			if gap <= 0.2*gapRestart || math.IsInf(gapRestart, 1) {
				// Restart: update the primal weight from the movement since
				// the last restart (PDLP's smoothed rule).
				dx, dy := 0.0, 0.0
				for k := range x {
					dx += (x[k] - xr[k]) * (x[k] - xr[k])
				}
				for c := range y {
					dy += (y[c] - yr[c]) * (y[c] - yr[c])
				}
				if dx > 0 && dy > 0 && !math.IsInf(gapRestart, 1) {
					omega = math.Exp(0.5*math.Log(math.Sqrt(dy/dx)) + 0.5*math.Log(omega))
					tau, sigma = steps()
				}
				copy(xr, x)
				copy(yr, y)
				gapRestart = gap
			}
		}
		if s.Recorder != nil {
			s.Recorder(Iteration{Iter: it, Objective: f, Best: sol.objective, Bound: sol.bound, Smoothing: omega})
		}
		if sol.converged {
			break
		}
	}
	return sol
}
