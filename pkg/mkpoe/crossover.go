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
//   - problems whose blocks are all full go to interiorFull (interior_full.go),
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
// may take: at most tuning.maxNewtonSteps, and no more than Settings.MaxIter leaves after
// the iters already spent (0: none).
func (p *problem) newtonBudget(s Settings, iters int) int {
	return max(min(p.tune.maxNewtonSteps, s.MaxIter-iters), 0)
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
func newtonReporter(rec Recorder, best *solution) func(int, float64) {
	if rec == nil {
		return nil
	}
	return func(it int, far float64) {
		rec(Iteration{Iter: best.iters + it, Objective: best.objective, Best: best.objective, Bound: best.bound, Stage: StageInteriorPoint, Newton: far})
	}
}

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

	m := make([]float64, nc)
	alpha := make([]float64, nc)
	g := make([]float64, p.dim)
	set := p.firstWorkingSet(ws, sol.x, dist, pw, m, alpha, g)
	t := &p.tune.crossover

	best := sol
	for round := 1; round <= t.maxRounds; round++ {
		if set.empty() {
			// Nothing to restrict to (e.g. from W = 0 at a β so small
			// that no coordinate is negatively priced): the caller's
			// path must certify the fit.
			return best, nil
		}
		steps := p.newtonBudget(s, best.iters)
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
		cp.AskFrom = s.Tol * t.roundGapFraction
		cp.Accept = func(res conic.Result) bool {
			evaluate(res)
			fb, lb := math.Min(f, best.objective), math.Max(bound, best.bound)
			if res.Final || p.certifiedAtQuarterTol(f, reg, fb, lb, s.Tol) {
				return true
			}
			// Solved to roundGapFraction·Tol and pricing already grows
			// the set: the next round needs no more accuracy than this.
			loose = p.pricingGrows(&set, g, m, p.tune.laterSlack)
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
		evaluate(res)
		if best.endRun(s, res.Iterations, xn, f, bound, alpha) {
			return best, nil
		}
		if hook := p.tune.hooks.crossoverRoundEnd; hook != nil {
			hook(round, loose)
		}
		supportTol := t.rangeTolerance
		if loose {
			supportTol = t.looseSupportTolerance
		}
		if !p.growWorkingSet(&set, xn, g, m, p.tune.laterSlack, supportTol, false) {
			// Pricing found nothing to add: the restricted problem is the
			// whole story and only round-off separates the bounds.
			return best, nil
		}
	}
	return best, nil
}

// firstWorkingSet is the crossover's first working set at the first-order
// point x: its support and the coordinates and comparisons the hinge's
// subgradient (α_c = μ where m_c > 0) prices in (growWorkingSet). m, alpha
// and g hold x's margins, those multipliers and the reduced costs
// afterwards; dist and pw are scratch.
func (p *problem) firstWorkingSet(ws *workspace, x, dist, pw, m, alpha, g []float64) workingSet {
	nc := len(p.left)
	mu := p.beta / float64(nc)
	p.margins(ws, x, dist, m)
	for c, mc := range m {
		if mc > 0 {
			alpha[c] = mu
		}
	}
	p.gradient(ws, alpha, pw, g)
	set := workingSet{basis: make([]*mat.Dense, len(p.blocks)), coords: make([][]int, len(p.blocks)), inComp: make([]bool, nc)}
	p.growWorkingSet(&set, x, g, m, p.tune.firstSlack, p.tune.crossover.firstSupportTolerance, true)
	return set
}

// growWorkingSet updates set from the point x (margins m) and the reduced
// costs g = c + Aᵀα of the diagonal blocks: each block's coordinates
// become the support of its x (the coordinates above supportTol of the
// block's largest), every coordinate that entered by pricing
// after the first round, and up to crossoverTuning.maxNewCoords new ones (maxFirstNewCoords
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
			priceBelow *= p.tune.crossover.nearPriceFraction / float64(len(gb))
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
		limit := p.tune.crossover.maxNewCoords
		if first {
			limit = p.tune.crossover.maxFirstNewCoords
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
	cp.System = p.kSpaceSystem(b)
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
	gathered := p.gatherKept(set, cp.Blocks, lay)
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

// gatherKept returns each diagonal cone block's kept columns of Φ (nil for
// PSD blocks), gathered item by item (n×k, row-major), so that a row of
// restrict's B reads four contiguous rows instead of 4k scattered entries
// of the n×r matrix Φ.
func (p *problem) gatherKept(set *workingSet, blocks []conic.Block, lay restrictLayout) [][]float64 {
	gathered := make([][]float64, len(blocks))
	for q, bl := range blocks {
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
	return gathered
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
