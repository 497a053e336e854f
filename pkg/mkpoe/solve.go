package mkpoe

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// solution is what a solver returns.
type solution struct {
	x         []float64 // the best iterate found (feasible)
	objective float64   // exact objective f(x)
	bound     float64   // best certified lower bound on min f (0 if none)
	iters     int
	converged bool      // the stopping rule was met before MaxIter
	trace     []float64 // exact objective of the iterate after each iteration
	// dual is the dual point (one multiplier per comparison, in [0, β/|𝒞|],
	// dual feasible) whose Σ is bound; nil if none. A fit warm-started
	// along a β grid re-uses it (warmCertificate).
	dual []float64
}

// scaledDual returns t·α for the multipliers α whose dual scaling t gave
// bound = t·Σα.
func scaledDual(alpha []float64, bound float64) []float64 {
	sum := floats.Sum(alpha)
	out := make([]float64, len(alpha))
	if sum > 0 {
		floats.AddScaled(out, bound/sum, alpha)
	}
	return out
}

// huber returns the Huber-smoothed hinge h_δ(m) and its derivative:
//
//	h_δ(m) = 0 (m ≤ 0),  m²/(2δ) (0 < m < δ),  m − δ/2 (m ≥ δ),
//
// with h_δ ≤ h ≤ h_δ + δ/2. δ = 0 gives the hinge h(m) = max(0, m) of
// Appendix C and its subgradient 1[m > 0] (Eq. 17).
func huber(m, delta float64) (value, slope float64) {
	switch {
	case m <= 0:
		return 0, 0
	case m >= delta:
		return m - delta/2, 1
	default:
		return m * m / (2 * delta), m / delta
	}
}

// lossAndWeights returns β/|𝒞| Σ h_δ(m_c) and writes α_c = β/|𝒞| h_δ'(m_c)
// into alpha (if alpha is not nil).
func (p *problem) lossAndWeights(m []float64, delta float64, alpha []float64) float64 {
	if len(m) == 0 {
		return 0
	}
	scale := p.beta / float64(len(m))
	switch {
	case delta > 0:
		return scale * huberSum(m, delta, alpha, scale)
	case alpha == nil:
		return scale * hingeSum(m)
	}
	// The hinge's subgradient (δ = 0) with multipliers: only certifyMargins
	// and the subgradient method ask for it.
	s := 0.0
	for c, mc := range m {
		v, d := huber(mc, delta)
		s += v
		alpha[c] = scale * d
	}
	return scale * s
}

// huberSum returns Σ_c h_δ(m_c) for δ > 0 and, if alpha is not nil, writes
// α_c = scale·h_δ'(m_c): the same bits as huber, element by element and
// summed in the same order (TestHuberSumMatchesHuber), without its
// branches. The first-order stage calls it three times per iteration on
// every comparison, and whether a margin lies below 0, in (0, δ) or above δ
// is a coin toss there: the branches mispredicted so often that on GNMDS
// (20,000 comparisons) lossAndWeights was about a quarter of the fit's
// CPU time (docs/solver.md, "GNMDS: the bound lags"). Clamping
// t = min(max(m, 0), δ) gives both cases but one: h_δ' = t/δ (δ/δ = 1 and
// 0/δ = 0 exactly), and h_δ = t²/(2δ) except above δ, where the linear
// part m − δ/2 is chosen by a bit mask.
func huberSum(m []float64, delta float64, alpha []float64, scale float64) float64 {
	half, twice := delta/2, 2*delta
	s := 0.0
	for c, mc := range m {
		t := min(max(mc, 0), delta)
		s += choose(mc >= delta, mc-half, t*t/twice)
		if alpha != nil {
			alpha[c] = scale * (t / delta)
		}
	}
	return s
}

// hingeSum returns Σ_c max(0, m_c), the exact loss's sum (huber at δ = 0:
// m − 0/2 = m above zero), without a branch per comparison.
func hingeSum(m []float64) float64 {
	s := 0.0
	for _, mc := range m {
		s += max(mc, 0)
	}
	return s
}

// choose returns a if c and b otherwise, by a bit mask rather than a
// branch (the compiler turns the flag into a conditional move).
func choose(c bool, a, b float64) float64 {
	var mask uint64
	if c {
		mask = ^uint64(0)
	}
	return math.Float64frombits(math.Float64bits(a)&mask | math.Float64bits(b)&^mask)
}

// accelerated minimises f by accelerated projected gradient (FISTA; Beck &
// Teboulle 2009) on the Huber-smoothed objective
//
//	f_δ(X) = Σ_p tr(X⁽ᵖ⁾) + β/|𝒞| Σ_𝒞 h_δ(1 + d(i,j) − d(k,l)),  X⁽ᵖ⁾ ⪰ 0,
//
// with backtracking on the Lipschitz estimate, gradient-based adaptive
// restart (O'Donoghue & Candès 2015) and continuation in δ. Every few
// iterations it builds a dual-feasible point of the hinge problem from the
// smoothed multipliers α_c = β/|𝒞| h_δ'(m_c), scaled to feasibility
// (docs/solver.md; ../shared/notes/solver-math.md §1):
//
//	max Σ_c α_c  s.t.  0 ≤ α_c ≤ β/|𝒞|,  R⁽ᵖ⁾ + Σ_c α_c M_c⁽ᵖ⁾ ⪰ 0,
//
// and it stops once (f_best − bound) ≤ Tol·f_best: the returned objective
// is then certified to be within Tol (relative) of the optimum.
//
// Deviation: the paper (Appendix B) uses plain projected subgradient
// descent; see docs/deviations.md.
//
// stop, if not nil, is asked at every certificate check with the iteration
// and the certified relative gap; returning true ends the method early
// (unconverged) so that the caller can switch methods.
func (p *problem) accelerated(ctx context.Context, x0 []float64, s Settings, stop func(it int, gap float64) bool) (solution, error) {
	ws := p.newWorkspace()
	nc := len(p.left)
	np := len(p.pairs)
	dist := make([]float64, np)
	pw := make([]float64, np)
	alpha := make([]float64, nc)
	g := make([]float64, p.dim)
	g2 := make([]float64, p.dim)
	// All blocks of a fit share a mode.
	diagOnly := p.hasDiagBlock()

	x := append([]float64(nil), x0...)
	mx := make([]float64, nc)
	p.margins(ws, x, dist, mx)
	regX := p.regularizer(x)

	sol := solution{x: append([]float64(nil), x...), objective: regX + p.lossAndWeights(mx, 0, nil)}
	if nc == 0 {
		return zeroSolution(p.dim), nil
	}
	if err := finiteObjective(sol.objective); err != nil {
		return sol, err
	}

	y := append([]float64(nil), x...)
	my := append([]float64(nil), mx...)
	regY := regX
	xn := make([]float64, p.dim)
	mxn := make([]float64, nc)
	tk := 1.0

	delta := 1.0
	lip := p.lipschitzEstimate(ws, delta, dist, pw)
	const checkEvery = 10

	for it := 1; it <= s.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return sol, fmt.Errorf("mkpoe: fit stopped after %d iterations: %w", it-1, err)
		}
		fy := regY + p.lossAndWeights(my, delta, alpha)
		if diagOnly {
			p.gradientIncremental(ws, alpha, pw, g)
		} else {
			p.gradient(ws, alpha, pw, g)
		}
		// Backtracking: find L with f_δ(x⁺) ≤ f_δ(y) + ⟨g, x⁺−y⟩ + L/2‖x⁺−y‖².
		var fxn, regXn float64
		for tries := 0; ; tries++ {
			if tries == maxBacktracks {
				return sol, fmt.Errorf("mkpoe: internal error: no step decreased the smoothed objective after %d halvings (iteration %d, f = %g)", maxBacktracks, it, fy)
			}
			for k := range xn {
				xn[k] = y[k] - g[k]/lip
			}
			p.projectMargins(ws, xn, dist, mxn)
			regXn = p.regularizer(xn)
			fxn = regXn + p.lossAndWeights(mxn, delta, nil)
			lin, sq := 0.0, 0.0
			for k := range xn {
				d := xn[k] - y[k]
				lin += g[k] * d
				sq += d * d
			}
			if fxn <= fy+lin+lip/2*sq+1e-12*math.Abs(fy) || sq == 0 {
				break
			}
			lip *= 2
		}
		// Adaptive restart when the momentum points uphill.
		restart := 0.0
		for k := range xn {
			restart += (y[k] - xn[k]) * (xn[k] - x[k])
		}
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		theta := (tk - 1) / tn
		if restart > 0 {
			tn, theta = 1, 0
		}
		for k := range y {
			y[k] = xn[k] + theta*(xn[k]-x[k])
		}
		// Margins are affine in X, so m(y) needs no new distance computation.
		for c := range my {
			my[c] = mxn[c] + theta*(mxn[c]-mx[c])
		}
		regY = regXn + theta*(regXn-regX)
		x, xn = xn, x
		mx, mxn = mxn, mx
		regX = regXn
		tk = tn

		f := regX + p.lossAndWeights(mx, 0, nil)
		sol.trace = append(sol.trace, f)
		sol.iters = it
		if f < sol.objective {
			sol.objective = f
			copy(sol.x, x)
		}
		lip *= 0.9 // let the step grow again

		if it%checkEvery == 0 || it == s.MaxIter {
			// Certificate from the smoothed multipliers at x.
			fd := regX + p.lossAndWeights(mx, delta, alpha)
			p.gradient(ws, alpha, pw, g)
			t := p.dualScale(ws, g)
			sumA, sumA2 := 0.0, 0.0
			for _, a := range alpha {
				sumA += a
				sumA2 += a * a
			}
			if b := t * sumA; b > sol.bound {
				sol.bound = b
				sol.dual = scaledDual(alpha, b)
			}
			// Only near convergence (within 50× the target) is the support
			// of w settled enough for the polish to pay off.
			if gap := sol.objective - sol.bound; diagOnly && gap > s.Tol*sol.objective && gap < 50*s.Tol*sol.objective {
				// A crossover-polished dual point (dual_fast.go) usually
				// certifies long before the scaled smoothed multipliers do.
				for _, width := range polishWidths {
					cand := p.polishDualDiag(x, mx, alpha, g, width)
					if cand == nil {
						continue
					}
					p.gradient(ws, cand, pw, g2)
					if b := p.dualScale(ws, g2) * floats.Sum(cand); b > sol.bound {
						sol.bound = b
						sol.dual = scaledDual(cand, b)
					}
					if sol.objective-sol.bound <= s.Tol*sol.objective {
						break
					}
				}
			}
			if sol.objective-sol.bound <= s.Tol*sol.objective {
				sol.converged = true
			} else if stop != nil && sol.objective > 0 && stop(it, (sol.objective-sol.bound)/sol.objective) {
				break
			}
			// Dual of the smoothed problem at the scaled α: Σα − δ|𝒞|/(2β) Σα².
			smoothedGap := fd - (t*sumA - delta*float64(nc)/(2*p.beta)*t*t*sumA2)
			// A stage need not be solved more accurately than its smoothing
			// bias (at most βδ/2): then shrink δ and restart the momentum.
			stageTol := math.Max(0.25*s.Tol*sol.objective, 0.05*p.beta*delta)
			if !sol.converged && smoothedGap <= stageTol {
				delta /= 10
				lip *= 10
				tk = 1
				copy(y, x)
				copy(my, mx)
				regY = regX
			}
		}
		if s.Recorder != nil {
			s.Recorder(Iteration{Iter: it, Objective: f, Best: sol.objective, Bound: sol.bound, Smoothing: delta, Stage: StageAccelerated})
		}
		if sol.converged {
			break
		}
	}
	return sol, nil
}

// maxBacktracks bounds the step search of one iteration: 2^200 times the
// initial Lipschitz estimate is beyond any finite problem's curvature.
const maxBacktracks = 200

// finiteObjective returns an internal error if f is not finite (inputs are
// checked to be finite, so this means an overflow inside the solver).
func finiteObjective(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("mkpoe: internal error: objective is %v (inputs are finite; their scale may overflow float64)", f)
	}
	return nil
}

// lipschitzEstimate returns an estimate of the Lipschitz constant of ∇f_δ,
// (β/(|𝒞|δ))·‖A‖², with ‖A‖² from a few power iterations of AᵀA (eight,
// or on diagonal problems until one adds less than diagLipschitzGrowth),
// where A maps X to the margins' linear part. Backtracking corrects it.
func (p *problem) lipschitzEstimate(ws *workspace, delta float64, dist, pw []float64) float64 {
	nc := len(p.left)
	v := make([]float64, p.dim)
	for b := range p.blocks {
		blk := &p.blocks[b]
		if blk.diag {
			for k := 0; k < blk.r; k++ {
				v[blk.off+k] = 1
			}
		} else {
			for k := 0; k < blk.r; k++ {
				v[blk.off+k*blk.r+k] = 1
			}
		}
	}
	m := make([]float64, nc)
	g := make([]float64, p.dim)
	zero := make([]float64, p.dim)
	p.gradient(ws, make([]float64, nc), pw, zero) // the regulariser's gradient
	// All blocks of a fit share a mode.
	diagOnly := p.hasDiagBlock()
	norm := 0.0
	for it := 0; it < 8; it++ {
		nv := floats.Norm(v, 2)
		if nv == 0 {
			break
		}
		floats.Scale(1/nv, v)
		p.margins(ws, v, dist, m)
		for c := range m {
			m[c]-- // A v without the constant 1
		}
		p.gradient(ws, m, pw, g) // R + Aᵀ A v
		floats.Sub(g, zero)
		prev := norm
		norm = floats.Dot(v, g)
		copy(v, g)
		if diagOnly && it >= 2 && norm < (1+diagLipschitzGrowth)*prev {
			break
		}
	}
	if norm <= 0 {
		norm = 1
	}
	return 1.1 * p.beta / (float64(nc) * delta) * norm
}

// diagLipschitzGrowth ends lipschitzEstimate's power iterations on
// diagonal problems once an iteration raises the estimate by less than
// this fraction (from the third iteration on). The Rayleigh quotients
// grow towards ‖A‖² from below, by about half as much each iteration on
// the benchmark fixture (207857, 345086, 380976, 396397, 403816, …,
// 410550 after eight), so the rest is about what the last step added and
// the safety factor 1.1 covers it; the fixture stops after four instead
// of eight, each a pass over every pair and coordinate (about 17 ms).
// Full problems keep all eight: a GNMDS fit stopped early took 540
// iterations instead of 420 (docs/solver.md).
const diagLipschitzGrowth = 0.05

// polishWidths are the margin half-widths |m_c| < w that define the "tight"
// comparisons whose multipliers polishDualDiag may move. 0.1 works from the
// δ = 0.1 stage on; 0.03 is tighter once δ = 0.01 (measured on the
// benchmark fixture; margins are on the scale of the unit margin).
var polishWidths = []float64{0.1, 0.03}

// zeroSolution is the optimum without comparisons: f = reg ≥ 0 = f(0), so
// X = 0 (McFee & Lanckriet's objective with 𝒞 = ∅).
func zeroSolution(dim int) solution {
	return solution{x: make([]float64, dim), converged: true}
}
