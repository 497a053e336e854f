package mkpoe

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// solution is what a solver returns.
type solution struct {
	x         []float64 // the best iterate found (feasible); nil when factors holds it
	objective float64   // exact objective f(x)
	bound     float64   // best certified lower bound on min f (0 if none)
	iters     int
	converged bool      // the stopping rule was met before MaxIter
	trace     []float64 // exact objective of the iterate after each iteration
	// dual is the dual point (one multiplier per comparison, in [0, β/|𝒞|],
	// dual feasible) whose Σ is bound; nil if none. A fit warm-started
	// along a β grid re-uses it (warmCertificate).
	dual []float64
	// factors, if not nil, holds per block F (r×k) with the block's X =
	// FFᵀ (nil for X = 0), from a method that knows them (lowRank), and
	// x is then nil (no r×r matrix is formed): the model is factored,
	// its projection costs O(n·k²) instead of an n³ eigendecomposition.
	factors []*mat.Dense
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

// keepIterate records iteration it of a first-order method, at x of exact
// objective f: the trace, the count and, if f is the best so far, a copy of
// x. It reports whether x is the new best point.
func (sol *solution) keepIterate(it int, x []float64, f float64) bool {
	sol.trace = append(sol.trace, f)
	sol.iters = it
	if f < sol.objective {
		sol.objective = f
		copy(sol.x, x)
		return true
	}
	return false
}

// keepBound keeps bound, certified by the multipliers alpha after dual
// scaling (bound = t·Σα), if it beats the best bound so far.
func (sol *solution) keepBound(bound float64, alpha []float64) {
	if bound > sol.bound {
		sol.bound = bound
		sol.dual = scaledDual(alpha, bound)
	}
}

// certified reports whether the best objective is within tol (relative) of
// the best bound: the certificate every method stops on.
func (sol *solution) certified(tol float64) bool {
	return sol.objective-sol.bound <= tol*sol.objective
}

// status is how the fit of sol stopped: certified when its own
// certificate holds at tol, whichever method ran, so that no stopping rule
// can report a certificate it lacks; stationary when the method's rule
// stopped it short of one (a fixed rank's stationary point, the
// subgradient method's stall); else not converged (MaxIter).
func (sol *solution) status(tol float64) FitStatus {
	switch {
	case !sol.converged:
		return StatusNotConverged
	case sol.certified(tol):
		return StatusCertified
	}
	return StatusStationary
}

// endRun records the end of an interior-point run that took steps Newton
// steps: its point x on the whole problem (objective f, kept if the best),
// its bound (from the multipliers alpha), the trace and a progress report.
// It reports whether the fit is now certified (then sol is converged).
func (sol *solution) endRun(s Settings, steps int, x []float64, f, bound float64, alpha []float64) bool {
	sol.iters += steps
	if f < sol.objective {
		sol.objective, sol.x = f, x
	}
	sol.keepBound(bound, alpha)
	sol.trace = append(sol.trace, sol.objective)
	s.report(Iteration{Iter: sol.iters, Objective: f, Best: sol.objective, Bound: sol.bound, Stage: StageInteriorPoint})
	if sol.certified(s.Tol) {
		sol.converged = true
		return true
	}
	return false
}

// report sends it to the fit's Recorder, if there is one.
func (s Settings) report(it Iteration) {
	if s.Recorder != nil {
		s.Recorder(it)
	}
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
// (docs/solver.md, "The dual and the certificate"):
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
	a := p.newAcceleratedState(x0)
	sol := solution{x: append([]float64(nil), a.x...), objective: a.regX + p.lossAndWeights(a.mx, 0, nil)}
	if len(p.left) == 0 {
		return zeroSolution(p.dim), nil
	}
	if err := finiteObjective(sol.objective); err != nil {
		return sol, err
	}
	a.lip = p.lipschitzEstimate(a.ws, a.delta, a.dist, a.pw)
	for it := 1; it <= s.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return sol, fmt.Errorf("mkpoe: fit stopped after %d iterations: %w", it-1, err)
		}
		if err := a.step(it); err != nil {
			return sol, err
		}
		f := a.regX + p.lossAndWeights(a.mx, 0, nil)
		sol.keepIterate(it, a.x, f)
		a.lip *= 0.9 // let the step grow again
		if it%p.tune.accelerated.checkEvery == 0 || it == s.MaxIter {
			if a.certificate(&sol, it, s, stop) {
				break
			}
		}
		s.report(Iteration{Iter: it, Objective: f, Best: sol.objective, Bound: sol.bound, Smoothing: a.delta, Stage: StageAccelerated})
		if sol.converged {
			break
		}
	}
	return sol, nil
}

// acceleratedState is the accelerated method's iterate and scratch: the
// point x and the extrapolated y with their margins and regularisers, the
// next point xn, the momentum tk, the smoothing δ and the Lipschitz
// estimate.
type acceleratedState struct {
	p              *problem
	ws             *workspace
	diagOnly       bool // all blocks of a fit share a mode
	dist, pw       []float64
	alpha, g, g2   []float64
	x, y, xn       []float64
	mx, my, mxn    []float64
	regX, regY     float64
	tk, delta, lip float64
}

func (p *problem) newAcceleratedState(x0 []float64) *acceleratedState {
	nc, np := len(p.left), len(p.pairs)
	a := &acceleratedState{
		p:        p,
		ws:       p.newWorkspace(),
		diagOnly: p.hasDiagBlock(),
		dist:     make([]float64, np),
		pw:       make([]float64, np),
		alpha:    make([]float64, nc),
		g:        make([]float64, p.dim),
		g2:       make([]float64, p.dim),
		x:        append([]float64(nil), x0...),
		mx:       make([]float64, nc),
	}
	p.margins(a.ws, a.x, a.dist, a.mx)
	a.regX = p.regularizer(a.x)
	a.y = append([]float64(nil), a.x...)
	a.my = append([]float64(nil), a.mx...)
	a.regY = a.regX
	a.xn = make([]float64, p.dim)
	a.mxn = make([]float64, nc)
	a.tk = 1.0
	a.delta = 1.0
	return a
}

// step takes iteration it: a projected gradient step from y with
// backtracking on the Lipschitz estimate, then the momentum (with
// gradient-based adaptive restart) that makes the next y.
func (a *acceleratedState) step(it int) error {
	p := a.p
	fy := a.regY + p.lossAndWeights(a.my, a.delta, a.alpha)
	if a.diagOnly {
		p.gradientIncremental(a.ws, a.alpha, a.pw, a.g)
	} else {
		p.gradient(a.ws, a.alpha, a.pw, a.g)
	}
	// Backtracking: find L with f_δ(x⁺) ≤ f_δ(y) + ⟨g, x⁺−y⟩ + L/2‖x⁺−y‖².
	var regXn float64
	for tries := 0; ; tries++ {
		if tries == p.tune.accelerated.maxBacktracks {
			return fmt.Errorf("mkpoe: internal error: no step decreased the smoothed objective after %d halvings (iteration %d, f = %g)", tries, it, fy)
		}
		for k := range a.xn {
			a.xn[k] = a.y[k] - a.g[k]/a.lip
		}
		p.projectMargins(a.ws, a.xn, a.dist, a.mxn)
		regXn = p.regularizer(a.xn)
		fxn := regXn + p.lossAndWeights(a.mxn, a.delta, nil)
		lin, sq := 0.0, 0.0
		for k := range a.xn {
			d := a.xn[k] - a.y[k]
			lin += a.g[k] * d
			sq += d * d
		}
		if fxn <= fy+lin+a.lip/2*sq+1e-12*math.Abs(fy) || sq == 0 {
			break
		}
		a.lip *= 2
	}
	// Adaptive restart when the momentum points uphill.
	restart := 0.0
	for k := range a.xn {
		restart += (a.y[k] - a.xn[k]) * (a.xn[k] - a.x[k])
	}
	tn := (1 + math.Sqrt(1+4*a.tk*a.tk)) / 2
	theta := (a.tk - 1) / tn
	if restart > 0 {
		tn, theta = 1, 0
	}
	for k := range a.y {
		a.y[k] = a.xn[k] + theta*(a.xn[k]-a.x[k])
	}
	// Margins are affine in X, so m(y) needs no new distance computation.
	for c := range a.my {
		a.my[c] = a.mxn[c] + theta*(a.mxn[c]-a.mx[c])
	}
	a.regY = regXn + theta*(regXn-a.regX)
	a.x, a.xn = a.xn, a.x
	a.mx, a.mxn = a.mxn, a.mx
	a.regX = regXn
	a.tk = tn
	return nil
}

// certificate builds a dual-feasible point from the smoothed multipliers
// at x (and, near convergence on diagonal problems, a polished one), keeps
// its bound in sol, marks sol converged when the gap is within Tol, and
// shrinks the smoothing once the smoothed problem is solved to its bias.
// It reports whether stop asked to end the method (hand-over).
func (a *acceleratedState) certificate(sol *solution, it int, s Settings, stop func(it int, gap float64) bool) bool {
	p := a.p
	nc := len(p.left)
	fd := a.regX + p.lossAndWeights(a.mx, a.delta, a.alpha)
	p.gradient(a.ws, a.alpha, a.pw, a.g)
	t := p.dualScale(a.ws, a.g)
	sumA, sumA2 := 0.0, 0.0
	for _, al := range a.alpha {
		sumA += al
		sumA2 += al * al
	}
	sol.keepBound(t*sumA, a.alpha)
	// Only near convergence (within 50× the target) is the support
	// of w settled enough for the polish to pay off.
	if gap := sol.objective - sol.bound; a.diagOnly && gap > s.Tol*sol.objective && gap < 50*s.Tol*sol.objective {
		a.polish(sol, s)
	}
	if sol.certified(s.Tol) {
		sol.converged = true
	} else if stop != nil && sol.objective > 0 && stop(it, (sol.objective-sol.bound)/sol.objective) {
		return true
	}
	// Dual of the smoothed problem at the scaled α: Σα − δ|𝒞|/(2β) Σα².
	smoothedGap := fd - (t*sumA - a.delta*float64(nc)/(2*p.beta)*t*t*sumA2)
	// A stage need not be solved more accurately than its smoothing
	// bias (at most βδ/2): then shrink δ and restart the momentum.
	stageTol := math.Max(0.25*s.Tol*sol.objective, 0.05*p.beta*a.delta)
	if !sol.converged && smoothedGap <= stageTol {
		a.delta /= 10
		a.lip *= 10
		a.tk = 1
		copy(a.y, a.x)
		copy(a.my, a.mx)
		a.regY = a.regX
	}
	return false
}

// polish tries the crossover-polished dual points of the diagonal
// problem (dual_fast.go), which usually certify long before the scaled
// smoothed multipliers do, at each of the tuning's polish widths.
func (a *acceleratedState) polish(sol *solution, s Settings) {
	p := a.p
	for _, width := range p.tune.accelerated.polishWidths {
		cand := p.polishDualDiag(a.x, a.mx, a.alpha, a.g, width)
		if cand == nil {
			continue
		}
		p.gradient(a.ws, cand, a.pw, a.g2)
		sol.keepBound(p.dualScale(a.ws, a.g2)*floats.Sum(cand), cand)
		if sol.certified(s.Tol) {
			break
		}
	}
}

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
		if diagOnly && it >= 2 && norm < (1+p.tune.accelerated.diagLipschitzGrowth)*prev {
			break
		}
	}
	if norm <= 0 {
		norm = 1
	}
	return 1.1 * p.beta / (float64(nc) * delta) * norm
}

// zeroSolution is the optimum without comparisons: f = reg ≥ 0 = f(0), so
// X = 0 (McFee & Lanckriet's objective with 𝒞 = ∅).
func zeroSolution(dim int) solution {
	return solution{x: make([]float64, dim), converged: true}
}
