package mkpoe

import (
	"context"
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
)

// Interior-point crossover (docs/solver.md): the first-order method finds
// the support of the optimum quickly at any β but, at large β, certifies
// it slowly, because the hinge multipliers of the comparisons on the margin
// must be known to a precision that shrinks like 1/β before the dual point
// becomes feasible. The crossover takes the first-order iterate and
// finishes the fit with the interior-point method of package conic:
//
//   - problems whose blocks are all full go to interiorFull (ipm_pairs.go),
//     which keeps every block whole and solves the Newton systems in
//     comparison space;
//   - diagonal problems (LPs, Sec. 4.4) are restricted to a working set —
//     the iterate's support plus the most negatively priced coordinates,
//     and the comparisons not satisfied by a clear margin — solved exactly,
//     and priced on the whole problem (reduced costs c + Aᵀα); the working
//     set grows until pricing finds nothing.
//
// The certificate is the first-order method's (docs/solver.md, "Default solver"), computed
// on the full problem, so working sets and tolerances affect only the
// speed, never the validity of the bound.

// workingSet is the restriction of a problem: a basis V_b (r×k, orthonormal
// columns) per full block (the identity in practice: see wholeSet), a
// coordinate list per diagonal block, and the comparisons kept as
// constraints.
type workingSet struct {
	basis  []*mat.Dense // full blocks: r×k basis (nil: block left out)
	coords [][]int      // diagonal blocks: kept coordinates
	comps  []int        // comparisons kept
	inComp []bool
	// priced marks, per diagonal block, the coordinates that entered by
	// pricing: they stay for good (see growWorkingSet).
	priced []map[int]bool
}

// newtonBudget returns how many Newton steps the next interior-point run
// may take: at most 150, and no more than Settings.MaxIter leaves after
// the iters already spent (0: none).
func newtonBudget(s Settings, iters int) int {
	return max(min(150, s.MaxIter-iters), 0)
}

// empty reports whether set keeps no comparison or no coordinate and no
// subspace of any block.
func (set *workingSet) empty() bool {
	if len(set.comps) == 0 {
		return true
	}
	for b := range set.coords {
		if len(set.coords[b]) > 0 || set.basis[b] != nil {
			return false
		}
	}
	return true
}

// maxInteriorFlops bounds the cost of one Newton system of the
// interior-point stage for full blocks (about 5 s pure Go, 1 s with
// OpenBLAS). Larger problems — e.g. GNMDS on 100 items and 20,000 triplets,
// where both systems cost ≥ 5e11 — stay with the accelerated method, which
// certifies them at moderate β (docs/solver.md).
var maxInteriorFlops = 5e10 // a variable so that tests can force the fallback

// interiorAffordable reports whether the interior-point stage may run on p:
// diagonal problems (a working-set LP) always; full ones while the cheaper
// of the two Newton systems (package conic) stays below maxInteriorFlops.
func (p *problem) interiorAffordable() bool {
	if p.hasDiagBlock() {
		return true
	}
	kCost, tCost := p.newtonSystemCosts(len(p.left))
	return math.Min(kCost, tCost) <= maxInteriorFlops
}

// hasDiagBlock reports whether any block of p is diagonal (all blocks of a
// fit share a mode, so otherwise every block is full).
func (p *problem) hasDiagBlock() bool {
	for b := range p.blocks {
		if p.blocks[b].diag {
			return true
		}
	}
	return false
}

// newtonSystemCosts estimates, in multiply-adds, forming and factoring the
// two Newton systems of the full-block interior-point stage on nT
// comparisons (package conic): K-space, explicit B (|T|·K²) and a K³/3
// factorisation, K = Σ_p r_p(r_p+1)/2; comparison space, 16|T|² look-ups
// per block and a |T|³/3 factorisation.
func (p *problem) newtonSystemCosts(nT int) (kCost, tCost float64) {
	K := 0.0
	for b := range p.blocks {
		K += float64(conic.SvecLen(p.blocks[b].r))
	}
	t := float64(nT)
	return t*K*K + K*K*K/3, t*t*t/3 + 16*t*t*float64(len(p.blocks))
}

// newtonReporter returns the conic.Problem.Step of an interior-point run
// that continues from best: it reports each Newton step to rec (nil if rec
// is nil) with the iteration count so far and best's objective and bound,
// which the run's end updates (its iterates are evaluated on the whole
// problem only then).
func newtonReporter(rec Recorder, best *solution) func(int) {
	if rec == nil {
		return nil
	}
	return func(it int) {
		rec(Iteration{Iter: best.iters + it, Objective: best.objective, Best: best.objective, Bound: best.bound, Stage: StageInteriorPoint})
	}
}

// crossoverMaxRounds bounds the price-and-resolve rounds.
const crossoverMaxRounds = 12

// crossover turns the first-order solution sol of p (unpreconditioned, in
// problem coordinates) into a certified one. It returns sol unchanged (with
// its own bound) if the interior-point stage fails numerically.
func (p *problem) crossover(ctx context.Context, sol solution, s Settings) (solution, error) {
	nc := len(p.left)
	if nc == 0 {
		return sol, nil
	}
	if !p.hasDiagBlock() {
		return p.interiorFull(ctx, sol, s)
	}
	ws := p.newWorkspace()
	np := len(p.pairs)
	dist := make([]float64, np)
	pw := make([]float64, np)
	mu := p.beta / float64(nc)

	x := sol.x
	m := make([]float64, nc)
	p.margins(ws, x, dist, m)
	// Multipliers at the first-order point: the hinge's subgradient.
	alpha := make([]float64, nc)
	for c, mc := range m {
		if mc > 0 {
			alpha[c] = mu
		}
	}
	g := make([]float64, p.dim)
	p.gradient(ws, alpha, pw, g)

	set := workingSet{basis: make([]*mat.Dense, len(p.blocks)), coords: make([][]int, len(p.blocks)), inComp: make([]bool, nc)}
	p.growWorkingSet(&set, x, g, m, 0.25, firstSupportTolerance, true)

	best := sol
	for round := 1; round <= crossoverMaxRounds; round++ {
		if set.empty() {
			// Nothing to restrict to (e.g. from W = 0 at a β so small
			// that no coordinate is negatively priced): the caller's
			// path must certify the fit.
			return best, nil
		}
		steps := newtonBudget(s, best.iters)
		if steps == 0 {
			return best, nil
		}
		cp, layout := p.restrict(&set)
		cp.Alpha0 = best.objective / float64(max(len(set.comps), 1))
		cp.Step = newtonReporter(s.Recorder, &best)
		// evaluate maps an interior-point iterate to the whole problem:
		// its point, exact objective and certified bound (m, alpha and g
		// hold its margins, multipliers and reduced costs afterwards).
		// The last evaluation is kept for the round's end.
		var lastX, xn []float64
		var f, reg, bound float64
		evaluate := func(res conic.Result) {
			if len(res.X) > 0 && len(lastX) > 0 && &res.X[0] == &lastX[0] {
				return
			}
			lastX = res.X
			xn = p.expand(&set, layout, res.X)
			p.margins(ws, xn, dist, m)
			reg = p.regularizer(xn)
			f = reg + p.lossAndWeights(m, 0, nil)
			for c := range alpha {
				alpha[c] = 0
			}
			for r, c := range set.comps {
				alpha[c] = math.Min(math.Max(res.Alpha[r], 0), mu)
			}
			p.gradient(ws, alpha, pw, g)
			bound = p.dualScale(ws, g) * floats.Sum(alpha)
		}
		loose := false
		cp.AskFrom = s.Tol * roundGapFraction
		cp.Accept = func(res conic.Result) bool {
			evaluate(res)
			fb, lb := math.Min(f, best.objective), math.Max(bound, best.bound)
			if res.Final || certifiedAtQuarterTol(f, reg, fb, lb, s.Tol) {
				return true
			}
			// Solved to roundGapFraction·Tol and pricing already grows
			// the set: the next round needs no more accuracy than this.
			loose = p.pricingGrows(&set, g, m, laterSlack)
			return loose
		}
		res, err := conic.Solve(ctx, cp, s.Tol*1e-3, steps)
		if err != nil && !(errors.Is(err, conic.ErrStalled) && res.X != nil) {
			if errors.Is(err, conic.ErrStalled) {
				return best, nil
			}
			return best, err
		}
		// A stalled method still returns its last interior point: the
		// certificate below judges it.
		best.iters += res.Iterations
		evaluate(res)
		if f < best.objective {
			best.objective = f
			best.x = xn
		}
		if bound > best.bound {
			best.bound = bound
			best.dual = scaledDual(alpha, bound)
		}
		best.trace = append(best.trace, best.objective)
		if s.Recorder != nil {
			s.Recorder(Iteration{Iter: best.iters, Objective: f, Best: best.objective, Bound: best.bound, Stage: StageInteriorPoint})
		}
		if best.objective-best.bound <= s.Tol*best.objective {
			best.converged = true
			return best, nil
		}
		if crossoverRoundEnd != nil {
			crossoverRoundEnd(round, loose)
		}
		supportTol := rangeTolerance
		if loose {
			supportTol = looseSupportTolerance
		}
		if !p.growWorkingSet(&set, xn, g, m, laterSlack, supportTol, false) {
			// Pricing found nothing to add: the restricted problem is the
			// whole story and only round-off separates the bounds.
			return best, nil
		}
	}
	return best, nil
}

// growWorkingSet updates set from the point x (margins m) and the reduced
// costs g = c + Aᵀα of the diagonal blocks: each block's coordinates
// become the support of its x (the coordinates above supportTol of the
// block's largest), every coordinate that entered by pricing
// after the first round, and up to maxNewCoords new ones (maxFirstNewCoords
// in the first round), the most negatively priced first. After the first
// round, when anything outside the set is negatively priced or a
// comparison joins, the new ones also include coordinates priced
// non-negatively but close to zero (nearPriceFraction). Every comparison
// with margin above −slack joins the kept comparisons (which only grow).
// It reports whether anything outside the previous set entered. (Problems
// whose blocks are all full go to interiorFull instead, and all blocks of
// a fit share a mode.)
func (p *problem) growWorkingSet(set *workingSet, x, g, m []float64, slack, supportTol float64, first bool) bool {
	// Does pricing find anything? Only then may near-zero coordinates
	// join: otherwise the restricted problem is the whole story.
	near := !first && p.pricingGrows(set, g, m, slack)
	var grew bool
	set.comps, grew = joinComparisons(set.inComp, set.comps, m, slack)
	sort.Ints(set.comps)
	if set.priced == nil {
		set.priced = make([]map[int]bool, len(p.blocks))
	}
	for b := range p.blocks {
		blk := &p.blocks[b]
		if !blk.diag {
			continue
		}
		xb := x[blk.off : blk.off+blk.size]
		gb := g[blk.off : blk.off+blk.size]
		xmax := floats.Max(xb)
		if set.priced[b] == nil {
			set.priced[b] = map[int]bool{}
		}
		priceBelow := 0.0
		if near {
			for _, v := range gb {
				priceBelow += math.Abs(v)
			}
			priceBelow *= nearPriceFraction / float64(len(gb))
		}
		// Priced coordinates must stay even at x_t = 0: each one holds
		// a constraint of the restricted dual, and dropping it lets the
		// multipliers violate it again. (Dropped, they came back priced
		// in the next round: a K4 fit on aset400 at β = 1e7 cycled
		// between two sets until the round limit, uncertified.) A
		// coordinate leaves at most once — it can only come back
		// priced — so the rounds end.
		var coords, priced []int
		for t := 0; t < blk.r; t++ {
			switch {
			case xmax > 0 && xb[t] > supportTol*xmax, set.priced[b][t]:
				coords = append(coords, t)
			case gb[t] < priceBelow:
				priced = append(priced, t)
			}
		}
		// The most negatively priced coordinates enter first.
		sort.Slice(priced, func(i, j int) bool { return gb[priced[i]] < gb[priced[j]] })
		limit := maxNewCoords
		if first {
			limit = maxFirstNewCoords
		}
		if len(priced) > limit {
			priced = priced[:limit]
		}
		if !first {
			// The first round's prices come from the first-order
			// point, not from a solved restricted dual: those
			// coordinates may leave like the support.
			for _, t := range priced {
				set.priced[b][t] = true
			}
		}
		coords = append(coords, priced...)
		sort.Ints(coords)
		for _, t := range coords {
			if !set.has(b, t) {
				grew = true
			}
		}
		set.coords[b] = coords
	}
	return grew
}

// pricingGrows reports whether the point with margins m and reduced costs
// g = c + Aᵀα would make growWorkingSet (with this slack) add anything
// outside set: a comparison with margin above −slack, or a negatively
// priced coordinate of a diagonal block.
func (p *problem) pricingGrows(set *workingSet, g, m []float64, slack float64) bool {
	if comparisonJoins(set.inComp, m, slack) {
		return true
	}
	for b := range p.blocks {
		blk := &p.blocks[b]
		for t := 0; blk.diag && t < blk.r; t++ {
			if g[blk.off+t] < 0 && !set.has(b, t) {
				return true
			}
		}
	}
	return false
}

// comparisonJoins reports whether a comparison outside in (in[c] false)
// has margin above −slack: the rule by which left-out comparisons rejoin
// a restricted problem, in the diagonal rounds (growWorkingSet) and the
// full-W stage (interiorFull).
func comparisonJoins(in []bool, m []float64, slack float64) bool {
	for c, mc := range m {
		if joins(in[c], mc, slack) {
			return true
		}
	}
	return false
}

// joins is the rule itself for one comparison: not in, margin above −slack.
func joins(in bool, margin, slack float64) bool { return !in && margin > -slack }

// joinComparisons adds to comps, and marks in, every comparison that
// comparisonJoins would find, and reports whether there was one.
func joinComparisons(in []bool, comps []int, m []float64, slack float64) ([]int, bool) {
	grew := false
	for c, mc := range m {
		if joins(in[c], mc, slack) {
			in[c], grew = true, true
			comps = append(comps, c)
		}
	}
	return comps, grew
}

// has reports whether coordinate t of diagonal block b is in the set
// (whose coordinate lists are kept sorted).
func (set *workingSet) has(b, t int) bool {
	i := sort.SearchInts(set.coords[b], t)
	return i < len(set.coords[b]) && set.coords[b][i] == t
}

// wholeSet is the working set of every block whole (identity bases, all
// coordinates) and the comparisons comps.
func (p *problem) wholeSet(comps []int) *workingSet {
	set := &workingSet{basis: make([]*mat.Dense, len(p.blocks)), coords: make([][]int, len(p.blocks)), inComp: make([]bool, len(p.left))}
	for b := range p.blocks {
		blk := &p.blocks[b]
		if blk.diag {
			for t := 0; t < blk.r; t++ {
				set.coords[b] = append(set.coords[b], t)
			}
		} else {
			set.basis[b] = identity(blk.r)
		}
	}
	set.comps = append(set.comps, comps...)
	for _, c := range comps {
		set.inComp[c] = true
	}
	return set
}

// maxFirstNewCoords bounds the priced coordinates that join a diagonal
// block's first working set, and maxNewCoords those that a later round
// adds. The first round's prices come from the first-order point (or a
// warm start's), and more of them only widen the first round: with 64 or
// 128 its sets on the benchmark fixture grew from 366–492 coordinates to
// 474–640 or 666–810 and cold fits at β ≥ 1e3 took 2.4–3.3 s instead of
// 1.8–2.6 s. Later rounds are priced by a solved restricted dual, and a
// fit warm-started from a smaller β, whose support is narrower than the
// new optimum's, needs its later rounds to add many: on two aset400 folds'
// warm β paths (BenchmarkAset400FoldPath, K4diag_all and K1diag_CF) a
// fit at β = 1e7 grew from 47 to 222 coordinates in 8 rounds at 32 per
// block and round, and the paths took 376 and 348 Newton steps; at 64
// 324 and 275, at 128 312 and 257. 64 was the faster on the fixture's warm
// path (median 3.95 s against 4.35 s at 32 and 4.74 s at 128, whose later
// rounds are larger), and on the folds as fast as 128 (medians 2.86 and
// 1.43 s against 3.13 and 1.59 s at 32); docs/solver.md, "Pricing near
// zero".
const (
	maxFirstNewCoords = 32
	maxNewCoords      = 64
)

// nearPriceFraction: after the first round, a coordinate whose reduced
// cost is non-negative but below this fraction of its block's mean
// |reduced cost| joins the working set with the negatively priced ones
// (most negative first, maxNewCoords in all), when pricing finds anything.
// The restricted dual moves when the negatively priced coordinates join,
// and the ones it tips below zero in the next round are, we guess, mostly
// those near zero now: without them a fit at β ≥ 1e4 on the benchmark
// fixture took 4–6 rounds of 13–16 Newton steps, each adding a handful of
// coordinates; with them it takes 3 (docs/solver.md, "Pricing near zero").
const nearPriceFraction = 0.1

// firstSupportTolerance is the relative weight above which a coordinate of
// the first-order iterate starts the working set. On the benchmark fixture
// the iterate has about 570 positive coordinates and the optimum about 190;
// 1e-2 started the first round with 550–610 coordinates, 3e-2 with 450–490,
// and the first round's Newton matrices (about |𝒞|·k² each) were half of
// the stage's work. The smaller start costs at most one more round and was
// the faster at every β ≥ 1e4 (β = 1e7: 3.16 s → 2.66 s with OpenBLAS,
// 16.8 s → 11.4 s pure Go; docs/solver.md).
const firstSupportTolerance = 3e-2

// rangeTolerance is the relative value above which a coordinate counts as
// part of the support of an iterate. An interior-point solution is
// positive everywhere on its working set, with the coordinates outside the
// optimum's support at about the final duality measure (1e-6 relative and
// below); 1e-5 separates the two. A coordinate cut wrongly is priced in
// again.
const rangeTolerance = 1e-5

// Rounds solved loosely (docs/solver.md, "Loose rounds"). Every round of
// the crossover but the last only prices: its solution's support and
// multipliers make the next working set. So a round stops as soon as its
// restricted relative gap and residuals are below roundGapFraction·Tol
// (1e-4 at the default Tol) and pricing on the whole problem already
// finds a comparison or a coordinate to add (pricingGrows); it runs to
// its own tolerance (Tol·1e-3) only when pricing finds nothing there,
// and it stops early, on any round, once the whole problem is certified
// to Tol/4. The support of such a point is cut at looseSupportTolerance
// instead of rangeTolerance: on the benchmark fixture at β = 1e4 and 1e7,
// where the first round's optimum has 186 and 188 coordinates above
// rangeTolerance, its iterate at gap 1e-4 had 326 and 408 above 1e-5 of
// the largest, 209 and 239 above 1e-4, and none of the optimum's below
// 1e-4 (17 and 4 below 1e-3).
const (
	roundGapFraction      = 0.1
	looseSupportTolerance = 1e-4
)

// crossoverRoundEnd, if not nil, is told of every round that ends without
// a certificate and whether it stopped loosely (tests).
var crossoverRoundEnd func(round int, loose bool)

// laterSlack: after the first round, a comparison left out of the working
// set joins it once its margin exceeds −laterSlack (the first round keeps
// those above −0.25).
const laterSlack = 0.05

// restrictLayout maps the restricted problem's blocks back to p's.
type restrictLayout struct {
	block []int // per cone block: index of p's block
	off   []int // per cone block: its offset in the restricted variable
}

// restrict builds the conic program of the working set: x holds svec(Y_b)
// for every full block (X_b = V_b Y_b V_bᵀ) and the kept coordinates of
// every diagonal block.
func (p *problem) restrict(set *workingSet) (*conic.Problem, restrictLayout) {
	cp := &conic.Problem{Mu: p.beta / float64(len(p.left)), NT: len(set.comps), Settings: p.tune.conic}
	var lay restrictLayout
	off := 0
	// Per block: the item coordinates in the working basis (Ψ = Φ V).
	psis := make([]*mat.Dense, len(p.blocks))
	for b := range p.blocks {
		blk := &p.blocks[b]
		var bl conic.Block
		if blk.diag {
			if len(set.coords[b]) == 0 {
				continue
			}
			bl = conic.Block{PSD: false, K: len(set.coords[b]), Off: off, Size: len(set.coords[b])}
		} else {
			if set.basis[b] == nil {
				continue
			}
			_, k := set.basis[b].Dims()
			var psi mat.Dense
			psi.Mul(blk.phi, set.basis[b])
			psis[b] = &psi
			bl = conic.Block{PSD: true, K: k, Off: off, Size: conic.SvecLen(k)}
		}
		cp.Blocks = append(cp.Blocks, bl)
		lay.block = append(lay.block, b)
		lay.off = append(lay.off, off)
		off += bl.Size
	}
	cp.Dim = off
	cp.C = make([]float64, off)
	b := mat.NewDense(max(len(set.comps), 1), max(off, 1), nil)
	if len(set.comps) == 0 || off == 0 {
		b = mat.NewDense(len(set.comps), off, nil)
	}
	cp.System = &conic.NormalEquations{B: b}
	for q, bl := range cp.Blocks {
		blk := &p.blocks[lay.block[q]]
		cv := cp.C[bl.Off : bl.Off+bl.Size]
		if !bl.PSD {
			for j, t := range set.coords[lay.block[q]] {
				cv[j] = blk.c[t]
			}
			continue
		}
		// C = Vᵀ R V with R = diag(regWeight) (the identity unpreconditioned).
		v := set.basis[lay.block[q]]
		k := bl.K
		cm := make([]float64, k*k)
		for i := 0; i < k; i++ {
			for j := i; j < k; j++ {
				s := 0.0
				for t := 0; t < blk.r; t++ {
					s += v.At(t, i) * blk.regWeight(t) * v.At(t, j)
				}
				cm[i*k+j], cm[j*k+i] = s, s
			}
		}
		conic.SvecOf(k, cm, cv)
	}
	if len(set.comps) == 0 || off == 0 {
		return cp, lay
	}
	// Each diagonal block's kept columns of Φ, gathered item by item
	// (n×k, row-major), so that a row of B reads four contiguous rows
	// instead of 4k scattered entries of the n×r matrix Φ.
	gathered := make([][]float64, len(cp.Blocks))
	for q, bl := range cp.Blocks {
		if bl.PSD {
			continue
		}
		b := lay.block[q]
		phi := p.blocks[b].phi.RawMatrix()
		g := make([]float64, phi.Rows*bl.K)
		for i := 0; i < phi.Rows; i++ {
			src := phi.Data[i*phi.Stride:]
			dst := g[i*bl.K : (i+1)*bl.K]
			for j, t := range set.coords[b] {
				dst[j] = src[t]
			}
		}
		gathered[q] = g
	}
	linalg.ParallelRows(len(set.comps), restrictRows, func(_, lo, hi int) {
		var u, w []float64
		for row := lo; row < hi; row++ {
			c := set.comps[row]
			dst := b.RawRowView(row)
			lp, rp := p.pairs[p.left[c]], p.pairs[p.right[c]]
			for q, bl := range cp.Blocks {
				seg := dst[bl.Off : bl.Off+bl.Size]
				if bl.PSD {
					u, w = psdRow(seg, psis[lay.block[q]].RawMatrix(), lp, rp, bl.K, u, w)
				} else {
					diagRow(seg, gathered[q], lp, rp)
				}
			}
		}
	})
	return cp, lay
}

// diagRow writes into seg a comparison's row of a diagonal block of
// restrict's B: (φ_it − φ_jt)² − (φ_kt − φ_lt)² for the kept coordinates,
// read from g, the block's kept columns gathered item by item (n×len(seg)).
func diagRow(seg, g []float64, lp, rp data.Pair) {
	k := len(seg)
	ga, gb := g[lp.A*k:lp.A*k+k], g[lp.B*k:lp.B*k+k]
	gc, gd := g[rp.A*k:rp.A*k+k], g[rp.B*k:rp.B*k+k]
	for j := range seg {
		a := ga[j] - gb[j]
		d := gc[j] - gd[j]
		seg[j] = a*a - d*d
	}
}

// psdRow writes into seg a comparison's row of a PSD block of restrict's B:
// svec(uuᵀ − wwᵀ) (off-diagonal entries times √2), u and w the two pairs'
// coordinate differences in the block's basis ψ (k columns). It returns
// u and w, its scratch, for the next row.
func psdRow(seg []float64, psi blas64.General, lp, rp data.Pair, k int, u, w []float64) ([]float64, []float64) {
	u, w = u[:0], w[:0]
	for t := 0; t < k; t++ {
		u = append(u, psi.Data[lp.A*psi.Stride+t]-psi.Data[lp.B*psi.Stride+t])
		w = append(w, psi.Data[rp.A*psi.Stride+t]-psi.Data[rp.B*psi.Stride+t])
	}
	pos := 0
	for i := 0; i < k; i++ {
		seg[pos] = u[i]*u[i] - w[i]*w[i]
		pos++
		for j := i + 1; j < k; j++ {
			seg[pos] = math.Sqrt2 * (u[i]*u[j] - w[i]*w[j])
			pos++
		}
	}
	return u, w
}

// restrictRows is the rows of B that restrict fills per task of
// linalg.ParallelRows (each row by itself: the split changes nothing).
const restrictRows = 256

// expand maps a restricted solution back to p's variable.
func (p *problem) expand(set *workingSet, lay restrictLayout, xr []float64) []float64 {
	x := make([]float64, p.dim)
	for q, b := range lay.block {
		blk := &p.blocks[b]
		xb := x[blk.off : blk.off+blk.size]
		if blk.diag {
			for j, t := range set.coords[b] {
				xb[t] = math.Max(xr[lay.off[q]+j], 0)
			}
			continue
		}
		v := set.basis[b]
		_, k := v.Dims()
		y := make([]float64, k*k)
		conic.SmatOf(k, xr[lay.off[q]:lay.off[q]+conic.SvecLen(k)], y)
		var vy, z mat.Dense
		vy.Mul(v, mat.NewDense(k, k, y))
		z.Mul(&vy, v.T())
		r := blk.r
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				xb[i*r+j] = (z.At(i, j) + z.At(j, i)) / 2
			}
		}
	}
	// Round-off can leave tiny negative eigenvalues: project.
	p.project(p.newWorkspace(), x)
	return x
}
