package mkpoe

import (
	"cmp"
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// lowRankMethod is the factored method of docs/solver.md, "Low-rank
// method": every full block's variable is X = LLᵀ with L of r×k, k grown
// from 0 until the dual certificate holds (Burer & Monteiro 2003; rank
// growth as in Journée, Bach, Absil & Sepulchre 2010), minimised by L-BFGS
// on the Huber-smoothed objective, certified by the dual point of Sec.
// "The dual and the certificate" with λ_min of the dual slack from the
// Lanczos method. Its cost per iteration is O(|pairs|·k + n·r·k) and per
// certificate O(steps·(|pairs| + n·r)), never r³: it is the method for
// many items with a low-rank optimum. Problems with diagonal blocks go to
// the default method.
type lowRankMethod struct{}

func (lowRankMethod) solve(ctx context.Context, fp fitProblem) (solution, error) {
	lr := newLowRank(fp.p)
	lr.maxRank = fp.s.Rank
	lr.stop = func() bool { return ctx.Err() != nil }
	return lr.run(ctx, fp.init, fp.s)
}

// lowRank is the state of a low-rank fit: the problem (eigenbasis form,
// every block full with R = I), the factors' shapes and scratch per pair
// and comparison.
type lowRank struct {
	p       *problem
	maxRank int         // Settings.Rank: columns per block at most (0: no bound)
	stop    func() bool // reports a cancelled fit (nil: never), asked by Lanczos
	mu      float64     // β/|𝒞|
	growTol float64     // growTol(tuning, Tol) of an alm fit (enoughForGrowth)
	blocks  []lowRankBlock
	dist    []float64 // per pair: Σ_b ‖y_a − y_b‖²
	m       []float64 // per comparison: the margin 1 + d(i,j) − d(k,l)
	alpha   []float64 // per comparison: μ·h_δ'(m_c)
	w       []float64 // per pair: Σ α over comparisons it is the left pair of, minus the right
	// shift, in the augmented-Lagrangian method (almMethod), is y_c/σ per
	// comparison: the smoothed loss is μ h_δ(m_c + y_c/σ) with δ = μ/σ,
	// the augmented Lagrangian of the hinge minimised over its slack
	// (docs/solver.md); nil otherwise.
	shift   []float64
	shifted []float64
	parts   [][]float64 // addEmbeddedGradient's per-chunk scratch
	dense   *densePairs // the pair sums as matrix products; nil: the loops
}

// lowRankBlock is one block's factor L (r×k, row-major, at off in the flat
// variable) and its embedding Y = ΦL (n×k) with the gradient with respect
// to Y.
type lowRankBlock struct {
	blk   *block
	k     int
	off   int
	y, gy []float64
}

func newLowRank(p *problem) *lowRank {
	lr := &lowRank{
		p:     p,
		mu:    p.beta / float64(max(len(p.left), 1)),
		dist:  make([]float64, len(p.pairs)),
		m:     make([]float64, len(p.left)),
		alpha: make([]float64, len(p.left)),
		w:     make([]float64, len(p.pairs)),
	}
	for b := range p.blocks {
		lr.blocks = append(lr.blocks, lowRankBlock{blk: &p.blocks[b]})
	}
	lr.dense = newDensePairs(p.n, p.pairs, p.tune.lowRank)
	return lr
}

// addGradient adds Σ_q 2w_q(y_a − y_b) to row a of gy and its negative to
// row b (addEmbeddedGradient, or its matrix product on dense pair sets).
func (lr *lowRank) addGradient(y []float64, k int, w, gy []float64) {
	if lr.dense != nil {
		lr.dense.gradient(y, k, w, gy)
		return
	}
	lr.parts = addEmbeddedGradient(y, k, lr.p.pairs, w, gy, lr.parts)
}

// layout sets each block's rank and offset and returns the flat size.
func (lr *lowRank) layout(ranks []int) int {
	off := 0
	for b := range lr.blocks {
		fb := &lr.blocks[b]
		fb.k, fb.off = ranks[b], off
		off += fb.blk.r * fb.k
		fb.y = resize(fb.y, lr.p.n*fb.k)
		fb.gy = resize(fb.gy, lr.p.n*fb.k)
	}
	return off
}

func resize(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	return v[:n]
}

// ranks returns each block's current rank.
func (lr *lowRank) ranks() []int {
	out := make([]int, len(lr.blocks))
	for b, fb := range lr.blocks {
		out[b] = fb.k
	}
	return out
}

// embed writes Y = ΦL for every block.
func (lr *lowRank) embed(z []float64) {
	for b := range lr.blocks {
		fb := &lr.blocks[b]
		if fb.k > 0 {
			lr.toEmbedding(b, z[fb.off:fb.off+fb.blk.r*fb.k], fb.y)
		}
	}
}

// toEmbedding writes Φ·src (n×k) to dst for block b, src r×k row-major in
// the block's factor layout.
func (lr *lowRank) toEmbedding(b int, src, dst []float64) {
	fb := &lr.blocks[b]
	n, k, r := lr.p.n, fb.k, fb.blk.r
	if d := fb.blk.phiDiag; d != nil {
		for i := 0; i < n; i++ {
			floats.ScaleTo(dst[i*k:(i+1)*k], d[i], src[i*k:(i+1)*k])
		}
		return
	}
	mat.NewDense(n, k, dst).Mul(fb.blk.phi, mat.NewDense(r, k, src))
}

// fromEmbedding writes Φᵀ·src (r×k) to dst for block b, src n×k: a
// derivative with respect to the embedding taken back to the factor.
func (lr *lowRank) fromEmbedding(b int, src, dst []float64) {
	fb := &lr.blocks[b]
	n, k, r := lr.p.n, fb.k, fb.blk.r
	if d := fb.blk.phiDiag; d != nil {
		for i := 0; i < n; i++ {
			floats.ScaleTo(dst[i*k:(i+1)*k], d[i], src[i*k:(i+1)*k])
		}
		return
	}
	mat.NewDense(r, k, dst).Mul(fb.blk.phi.T(), mat.NewDense(n, k, src))
}

// lossMargins returns the margins the smoothed loss is taken at: shifted
// by y/σ in the augmented-Lagrangian method, else the margins themselves.
func (lr *lowRank) lossMargins() []float64 {
	if lr.shift != nil {
		return lr.shifted
	}
	return lr.m
}

// evaluate returns the smoothed objective f_δ and the exact objective f at
// the factors z (Eq. 13 with W = LLᵀ: tr(X) = ‖L‖²_F), leaving the margins
// in lr.m and α_c = μ h_δ'(m_c) in lr.alpha; with grad not nil it writes
// ∇f_δ(z) = 2L + Φᵀ·∂f/∂Y there.
func (lr *lowRank) evaluate(z []float64, delta float64, grad []float64) (smooth, exact float64) {
	p := lr.p
	lr.embed(z)
	clear(lr.dist)
	for _, fb := range lr.blocks {
		if fb.k > 0 {
			addEmbeddedDistances(fb.y, fb.k, p.pairs, lr.dist)
		}
	}
	p.marginsFrom(lr.dist, lr.m)
	reg := floats.Dot(z, z)
	exact = reg + lr.mu*hingeSum(lr.m)
	if lr.shift != nil {
		for c, mc := range lr.m {
			lr.shifted[c] = mc + lr.shift[c]
		}
		smooth = reg + lr.mu*huberSum(lr.shifted, delta, lr.alpha, lr.mu)
	} else {
		smooth = reg + lr.mu*huberSum(lr.m, delta, lr.alpha, lr.mu)
	}
	if grad == nil {
		return smooth, exact
	}
	lr.pairWeights()
	for b, fb := range lr.blocks {
		k, r := fb.k, fb.blk.r
		if k == 0 {
			continue
		}
		clear(fb.gy)
		lr.addGradient(fb.y, fb.k, lr.w, fb.gy)
		g := grad[fb.off : fb.off+r*k]
		lr.fromEmbedding(b, fb.gy, g)
		floats.AddScaled(g, 2, z[fb.off:fb.off+r*k])
	}
	return smooth, exact
}

// pairWeights sums the multipliers onto the pairs: w_q = Σ_{c: left(c)=q}
// α_c − Σ_{c: right(c)=q} α_c, so that Σ_c α_c (d(left) − d(right)) =
// Σ_q w_q d(q) and the dual slack's comparison term is Σ_q w_q E_q.
func (lr *lowRank) pairWeights() {
	if lr.dense != nil {
		lr.dense.weightsChanged()
	}
	clear(lr.w)
	for c, a := range lr.alpha {
		lr.w[lr.p.left[c]] += a
		lr.w[lr.p.right[c]] -= a
	}
}

// slackOperator returns v ↦ Φᵀ(Σ_q w_q E_q)Φ v for block b (r-vectors):
// the dual slack S(α) = I + ΦᵀMΦ of the block minus I, applied in
// O(n·r + |pairs|) without forming it (O(n + |pairs|) for GNMDS).
func (lr *lowRank) slackOperator(b int) func(v, out []float64) {
	blk := lr.blocks[b].blk
	n, r := lr.p.n, blk.r
	u := make([]float64, n)
	zn := make([]float64, n)
	pairs, w := lr.p.pairs, lr.w
	return func(v, out []float64) {
		if d := blk.phiDiag; d != nil {
			for i := range u {
				u[i] = d[i] * v[i]
			}
		} else {
			mat.NewVecDense(n, u).MulVec(blk.phi, mat.NewVecDense(r, v))
		}
		clear(zn)
		for q, pr := range pairs {
			t := w[q] * (u[pr.A] - u[pr.B])
			zn[pr.A] += t
			zn[pr.B] -= t
		}
		if d := blk.phiDiag; d != nil {
			for i := range out {
				out[i] = d[i] * zn[i]
			}
			return
		}
		mat.NewVecDense(r, out).MulVec(blk.phi.T(), mat.NewVecDense(n, zn))
	}
}

// certificate returns the dual scaling t of the multipliers in lr.alpha
// (the largest t ≤ 1 with I + tΦᵀMΦ ⪰ 0 in every block, from Lanczos
// lower estimates of λ_min) and each block's smallest Ritz pairs of ΦᵀMΦ
// (up to want), for rank growth. lr.w must hold the alphas' pair weights.
// With the factors z (not nil), each block with columns is bounded on
// span(L) and its complement apart (deflatedEigen), and the Ritz pairs are
// the complement's; nil runs Lanczos on the whole space.
func (lr *lowRank) certificate(z []float64, want int, need float64) (t float64, rz []ritz, ok bool) {
	tn := lr.p.tune.lowRank
	t = 1
	rz = make([]ritz, len(lr.blocks))
	for b, fb := range lr.blocks {
		r := fb.blk.r
		var res ritz
		var good bool
		if z != nil && fb.k > 0 {
			res, good = lr.deflatedEigen(b, z[fb.off:fb.off+r*fb.k], want, need)
		} else {
			res, good = smallestEigen(r, lr.slackOperator(b), want, min(r, tn.lanczosSteps), tn.lanczosTol, lr.stop)
		}
		if !good {
			return 0, nil, false
		}
		rz[b] = res
		if res.lower < 0 {
			t = math.Min(t, 1/(-res.lower))
		}
	}
	return t, rz, true
}

// lowRankBest is the best point of a low-rank fit: its exact objective,
// factors and ranks.
type lowRankBest struct {
	f     float64
	z     []float64
	ranks []int
}

func (bst *lowRankBest) keep(lr *lowRank, f float64, z []float64) {
	if f < bst.f {
		bst.f = f
		bst.z = append(bst.z[:0], z...)
		bst.ranks = lr.ranks()
	}
}

// The factored loops (run, runALM) share the steps below around their
// inner solves: certify at a check, report and stop, report each inner
// step, and end on the best point.

// certify computes the certificate at lr's point (certificate; z nil: no
// deflation; need, the lowest λ_min that could certify, or −∞) with up to
// want Ritz pairs and keeps its bound t·Σα in sol where λ_min was found
// (ok).
func (lr *lowRank) certify(ctx context.Context, z []float64, want int, need float64, sol *solution) (t float64, rz []ritz, ok bool, err error) {
	t, rz, ok = lr.certificate(z, want, need)
	if err := ctx.Err(); err != nil {
		return t, rz, ok, err
	}
	if ok {
		sol.keepBound(t*floats.Sum(lr.alpha), lr.alpha)
	}
	return t, rz, ok, nil
}

// checkpoint reports check it (exact objective fe at smoothing delta) to
// the Recorder, which sees iterations, not the start (it 0), and reports
// whether the loop ends: certified to Tol (sol.converged set) or at
// MaxIter.
func (lr *lowRank) checkpoint(s Settings, sol *solution, it int, fe, delta float64, stage Stage) bool {
	if it > 0 {
		s.report(Iteration{Iter: it, Objective: fe, Best: sol.objective, Bound: sol.bound, Smoothing: delta, Stage: stage, Rank: lr.totalRank()})
	}
	if sol.certified(s.Tol) {
		sol.converged = true
		return true
	}
	return it >= s.MaxIter
}

// stepReport is the report of the inner steps that follow check it
// (descend, newtonDescend): each step's exact objective with the best so
// far and the check's bound.
func (lr *lowRank) stepReport(s Settings, stage Stage, it int, best *lowRankBest, bound, delta float64) func(step int, fe float64) {
	return func(step int, fe float64) {
		s.report(Iteration{Iter: it + step, Objective: fe, Best: best.f, Bound: bound, Smoothing: delta, Stage: stage, Rank: lr.totalRank()})
	}
}

// finish ends a factored loop after it iterations: sol takes the best
// point's factors.
func (lr *lowRank) finish(sol solution, best *lowRankBest, it int) solution {
	sol.iters = it
	lr.layout(best.ranks)
	sol.factors = lr.factors(best.z)
	return sol
}

// run is the low-rank method's loop: L-BFGS on the smoothed objective
// between certificate checks; at each check, grow the blocks whose dual
// slack has negative directions, else shrink δ once the smoothed problem is
// solved (its own gap small), as the accelerated method does.
//
// init holds the starting factors (lowRankWarmStart; nil: X = 0, every
// block at rank 0). A warm start runs at δ = startDelta too: going
// straight to the subspace phase cost 5× the iterations on
// TestLowRankWarmStart where the rank had to grow.
func (lr *lowRank) run(ctx context.Context, init []*mat.Dense, s Settings) (solution, error) {
	p, tn := lr.p, lr.p.tune.lowRank
	z, ranks := lr.startFactors(init)
	delta := tn.startDelta
	lr.layout(ranks)
	sol := solution{objective: math.Inf(1)}
	best := lowRankBest{f: math.Inf(1)}
	g := make([]float64, len(z))
	opt := newLBFGS(tn.memory)
	it := 0
	prevSmooth := math.Inf(1)
	for {
		if err := ctx.Err(); err != nil {
			return sol, err
		}
		fs, fe := lr.evaluate(z, delta, g)
		best.keep(lr, fe, z)
		sol.objective = best.f
		t, rz, ok, err := lr.certify(ctx, nil, tn.grow, math.Inf(-1), &sol)
		if err != nil {
			return sol, err
		}
		if lr.checkpoint(s, &sol, it, fe, delta, StageLowRank) || !ok {
			break
		}
		if lr.maxRank == 0 && (it >= tn.firstPhaseIters || delta <= tn.firstPhaseDelta) {
			return lr.secondPhase(ctx, z, rz, &best, sol, s, it)
		}
		// Grow or shrink δ only once L-BFGS has stalled at this rank and
		// δ: growing earlier adds directions the current columns would
		// have taken (the rank ran to n on GNMDS).
		progress := prevSmooth - fs
		stalled := progress <= tn.stallFraction*fs
		prevSmooth = fs
		grown, deltaBefore := false, delta
		if stalled {
			z, grown = lr.grow(z, rz, fs, delta, s.Tol)
			if grown {
				prevSmooth = math.Inf(1) // a new column: no stall yet
			}
		}
		if stalled && !grown && lr.maxRank > 0 {
			// A fixed rank: the convex gap need not close. Stationary once
			// the smoothing's error βδ/2 is within Tol/2 of the objective
			// and f_δ fell by less than Tol/100 of itself over the last
			// checkEvery steps (the looser stall above only moves δ on).
			if p.beta*delta <= s.Tol*sol.objective {
				if progress <= 0.01*s.Tol*fs {
					sol.converged = true
					break
				}
			} else {
				delta /= 10
				prevSmooth = math.Inf(1) // f_δ changed with δ: no stall yet
			}
		} else if stalled && !grown {
			if lr.smoothedSolved(fs, t, delta, sol.objective, s.Tol) {
				delta /= 10
				prevSmooth = math.Inf(1) // f_δ changed with δ: no stall yet
			}
		}
		if stalled {
			opt.reset()
		}
		if grown || delta != deltaBefore {
			// fs and g are those of the check's point; a new column or δ
			// changes them.
			g = resize(g, len(z))
			fs, _ = lr.evaluate(z, delta, g)
		}
		pt := lbfgsPoint{z: z, g: g, f: fs, delta: delta, opt: opt, best: &best}
		steps, err := lr.descend(ctx, &pt, min(tn.checkEvery, s.MaxIter-it), lr.stepReport(s, StageLowRank, it, &best, sol.bound, delta))
		it += steps
		if err != nil {
			return sol, err
		}
	}
	return lr.finish(sol, &best, it), nil
}

// smoothedSolved reports whether the smoothed problem at δ is solved well
// enough for δ to shrink: its own gap, f_δ against its dual value
// tΣα − δ/(2μ)·t²Σα² (Huber's conjugate), within max(Tol/4 of the
// objective, βδ/20).
func (lr *lowRank) smoothedSolved(fs, t, delta, objective, tol float64) bool {
	sumA, sumA2 := floats.Sum(lr.alpha), floats.Dot(lr.alpha, lr.alpha)
	smoothedGap := fs - (t*sumA - delta/(2*lr.mu)*t*t*sumA2)
	return smoothedGap <= math.Max(0.25*tol*objective, 0.05*lr.p.beta*delta)
}

// secondPhase hands the first phase's subspace to the restricted problem
// (refine) after it iterations: sol takes the best factors so far and
// refine's certificate.
func (lr *lowRank) secondPhase(ctx context.Context, z []float64, rz []ritz, best *lowRankBest, sol solution, s Settings, it int) (solution, error) {
	cur := lr.ranks()
	lr.layout(best.ranks)
	sol.factors = lr.factors(best.z)
	lr.layout(cur)
	it, err := lr.refine(ctx, z, rz, &sol, s, it)
	sol.iters = it
	return sol, err
}

// lbfgsPoint is what descend moves: the point z (updated in place), f_δ(z)
// and its gradient g (in place) at the smoothing delta, the L-BFGS
// curvature pairs and the best point kept. After a step, exact is f(z) and
// fresh reports whether lr's margins, multipliers and pair weights are
// still z's (the step's last evaluation was the accepted one), so the
// caller need not evaluate z again.
type lbfgsPoint struct {
	z, g     []float64
	f, delta float64
	opt      *lbfgs
	best     *lowRankBest
	exact    float64
	fresh    bool
}

// descend takes up to steps L-BFGS steps on f_δ from pt with a
// backtracking Armijo line search (lowRankTuning's lineSearchTries and
// armijo), keeping the best point and calling report with the step's
// 1-based number and exact objective after each; it stops early when the
// line search makes no progress, and returns the steps taken.
func (lr *lowRank) descend(ctx context.Context, pt *lbfgsPoint, steps int, report func(step int, objective float64)) (int, error) {
	z, g, opt := pt.z, pt.g, pt.opt
	dim := len(z)
	d := make([]float64, dim)
	zn := make([]float64, dim)
	gn := make([]float64, dim)
	sv := make([]float64, dim)
	yv := make([]float64, dim)
	for it := 0; it < steps; it++ {
		if err := ctx.Err(); err != nil {
			return it, err
		}
		opt.direction(g, d)
		gd := floats.Dot(g, d)
		if !(gd < 0) {
			opt.reset()
			floats.ScaleTo(d, -1, g)
			gd = -floats.Dot(g, g)
		}
		if gd == 0 {
			return it, nil
		}
		step := 1.0
		if len(opt.s) == 0 {
			step = math.Min(1, 1/math.Sqrt(-gd))
		}
		fn, fe, accepted, err := lr.backtrack(ctx, pt, d, gd, step, zn, gn)
		if err != nil {
			return it, err
		}
		if !accepted {
			if len(opt.s) > 0 {
				// The quasi-Newton direction failed: forget the curvature
				// pairs and try the gradient before giving up.
				opt.reset()
				it--
				continue
			}
			return it, nil
		}
		floats.SubTo(sv, zn, z)
		floats.SubTo(yv, gn, g)
		opt.update(sv, yv)
		lr.accept(pt, zn, gn, fn, fe)
		report(it+1, fe)
	}
	return steps, nil
}

// accept moves pt to the point zn the line search accepted (gradient gn,
// smoothed objective fn, exact fe), which lr's state is still at, and
// offers it to the best point.
func (lr *lowRank) accept(pt *lbfgsPoint, zn, gn []float64, fn, fe float64) {
	copy(pt.z, zn)
	copy(pt.g, gn)
	pt.f, pt.exact, pt.fresh = fn, fe, true
	pt.best.keep(lr, fe, pt.z)
}

// backtrack is the descent methods' line search: from step, halved up to
// lowRankTuning.lineSearchTries times, the first zn = z + step·d whose
// smoothed objective fn satisfies Armijo's condition with slope gd, with
// its gradient in gn and exact objective fe. It clears pt.fresh (lr's
// state is the last trial's).
func (lr *lowRank) backtrack(ctx context.Context, pt *lbfgsPoint, d []float64, gd, step float64, zn, gn []float64) (fn, fe float64, accepted bool, err error) {
	tn := &lr.p.tune.lowRank
	pt.fresh = false
	for try := 0; try < tn.lineSearchTries; try++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, false, err // each trial costs a whole evaluation
		}
		floats.AddScaledTo(zn, pt.z, step, d)
		fn, fe = lr.evaluate(zn, pt.delta, gn)
		if fn <= pt.f+tn.armijo*step*gd {
			return fn, fe, true, nil
		}
		step /= 2
	}
	return fn, fe, false, nil
}

// startFactors returns the flat variable and ranks of the factors init
// (lowRankWarmStart), each cut to the rank bound by its longest columns;
// nil init (or a nil entry) is rank 0.
func (lr *lowRank) startFactors(init []*mat.Dense) (z []float64, ranks []int) {
	ranks = make([]int, len(lr.blocks))
	for b := range init {
		f := init[b]
		if f == nil {
			continue
		}
		r, k := f.Dims()
		cols := make([]int, k)
		for c := range cols {
			cols[c] = c
		}
		if lr.maxRank > 0 && k > lr.maxRank {
			norms := make([]float64, k)
			for c := range norms {
				norms[c] = mat.Norm(f.ColView(c), 2)
			}
			slices.SortStableFunc(cols, func(a, b int) int { return cmp.Compare(norms[b], norms[a]) })
			cols = cols[:lr.maxRank]
		}
		ranks[b] = len(cols)
		for i := 0; i < r; i++ {
			for _, c := range cols {
				z = append(z, f.At(i, c))
			}
		}
	}
	return z, ranks
}

// grow adds to each block the Ritz vectors of its dual slack S = I + ΦᵀMΦ
// with negative Ritz values below −growTol (vᵀSv < 0: adding the column τv
// lowers the objective at second order, the rank-growth step of Journée et
// al. 2010), with one step τ for all found by backtracking from √f on
// sufficient decrease. It reports whether any column joined.
func (lr *lowRank) grow(z []float64, rz []ritz, f, delta, tol float64) ([]float64, bool) {
	tn := lr.p.tune.lowRank
	add := make([][][]float64, len(lr.blocks))
	curvature := 0.0 // Σ (1 + θ_i) over the new columns: f(τ) ≈ f + τ²·curvature
	any := false
	for b, fb := range lr.blocks {
		for i, th := range rz[b].vals {
			if 1+th >= -growTol(tn, tol) || fb.k+len(add[b]) >= fb.blk.r || (lr.maxRank > 0 && fb.k+len(add[b]) >= lr.maxRank) {
				break
			}
			add[b] = append(add[b], rz[b].vecs[i])
			curvature += 1 + th
			any = true
		}
	}
	if !any {
		return z, false
	}
	old := lr.ranks()
	ranks := make([]int, len(old))
	for b := range old {
		ranks[b] = old[b] + len(add[b])
	}
	// The new layout: old columns first, new ones after, per block.
	widen := func(tau float64) []float64 {
		out := make([]float64, 0, len(z)+lr.p.n*len(add))
		off := 0
		for b, fb := range lr.blocks {
			r, k := fb.blk.r, old[b]
			for i := 0; i < r; i++ {
				out = append(out, z[off+i*k:off+(i+1)*k]...)
				for _, v := range add[b] {
					out = append(out, tau*v[i])
				}
			}
			off += r * k
		}
		return out
	}
	lr.layout(ranks)
	tau := math.Sqrt(math.Max(f, 1e-300))
	var zn []float64
	for try := 0; try < 60; try++ {
		if lr.stop != nil && lr.stop() {
			break // cancelled: the caller sees ctx.Err at its next step
		}
		zn = widen(tau)
		fn, _ := lr.evaluate(zn, delta, nil)
		if fn <= f+0.25*tau*tau*curvature {
			return zn, true
		}
		tau /= 2
	}
	return zn, true // a tiny step: L-BFGS takes it from there
}

// prune rotates every block's factor L to its singular vectors, L ← UΣ
// (LLᵀ unchanged), and drops the columns whose singular value is below
// rel times the block's largest: columns the trace regulariser has all but
// removed, which cost as much per iteration as the others.
func (lr *lowRank) prune(z []float64, rel float64) []float64 {
	old := lr.ranks()
	ranks := make([]int, len(old))
	cols := make([]*mat.Dense, len(old))
	off := 0
	for b, fb := range lr.blocks {
		r, k := fb.blk.r, old[b]
		if k == 0 {
			continue
		}
		l := mat.NewDense(r, k, z[off:off+r*k])
		off += r * k
		kept, keep, ok := principalColumns(l, rel)
		switch {
		case !ok:
			cols[b], ranks[b] = mat.DenseCopyOf(l), k
		case keep == 0: // a zero factor
			ranks[b] = 0
		default:
			cols[b], ranks[b] = kept, keep
		}
	}
	out := make([]float64, 0, len(z))
	for b, fb := range lr.blocks {
		if ranks[b] == 0 {
			continue
		}
		r := fb.blk.r
		for i := 0; i < r; i++ {
			out = append(out, cols[b].RawRowView(i)...)
		}
	}
	lr.layout(ranks)
	return out
}

// growTol is how negative an eigenvalue 1 + θ of the dual slack must be
// for its Ritz vector to join: an eigenvalue −ε scales the dual by
// t = 1/(1+ε), a relative gap of about ε, so directions above
// −growFraction·Tol cannot stop a certificate and are left out.
func growTol(tn lowRankTuning, tol float64) float64 { return tn.growFraction * tol }

// factors returns each block's factor L (r×k) of z, nil where k = 0.
func (lr *lowRank) factors(z []float64) []*mat.Dense {
	out := make([]*mat.Dense, len(lr.blocks))
	for b, fb := range lr.blocks {
		if fb.k > 0 {
			out[b] = mat.NewDense(fb.blk.r, fb.k, append([]float64(nil), z[fb.off:fb.off+fb.blk.r*fb.k]...))
		}
	}
	return out
}

// totalRank is the number of columns of the factors over all blocks.
func (lr *lowRank) totalRank() int {
	k := 0
	for _, fb := range lr.blocks {
		k += fb.k
	}
	return k
}
