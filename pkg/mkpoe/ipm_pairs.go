package mkpoe

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// The interior-point method of ipm.go in comparison space, for full blocks
// of any rank (docs/solver.md, "Interior point in comparison space").
//
// Every margin coefficient of a full block is A_c = Φᵀ(E_ij − E_kl)Φ, the
// difference of two rank-one pair terms. With the Nesterov–Todd scaling
// W = GGᵀ of a block, the comparison-space normal matrix is
//
//	(B 𝒲 Bᵀ)_cc' = Σ_b ⟨A_c, W_b A_c' W_b⟩ = Σ_b tr(E_c H_b E_c' H_b),  H_b = Φ_b W_b Φ_bᵀ,
//
// and with E_c = e_ij e_ijᵀ − e_kl e_klᵀ (e_ij = e_i − e_j) each entry is a
// signed sum of four squares of pair Gram values e_pᵀ H e_q =
// H_ac − H_ad − H_bc + H_bd: a Hadamard-product structure whose cost is
// |T|² look-ups into the n×n matrix H_b, whatever the rank of the blocks.
// So the method solves the whole problem, every block in its full
// eigenbasis, with no working subspace to guess: its cost is about
// |T|³/3 (the Cholesky factorisation) plus a few r×r eigendecompositions
// per iteration, and its iteration count does not depend on β.

// pairOperator gives B through the item coordinates of each cone block.
type pairOperator struct {
	phi         []*mat.Dense // per cone block: n×r item coordinates
	pairs       []data.Pair  // distinct item pairs of the kept comparisons
	left, right []int32      // per kept comparison: its pairs' indices
	buf         []float64    // the |T|×|T| Newton matrix, reused across iterations
	items       []int32      // per kept comparison c: items i, j, k, l at 4c … 4c+3
	rows        [][]float64  // per cone block: its pair rows (pairRows), reused across iterations
	lowOrder    []float64    // the low-order blocks' comparison vectors (lowOrderRows), reused
	mixed       mixedState   // the Newton matrix's single-precision factorisation (chol.go)
}

// mulB computes out_c = Σ_b ⟨A_c, X_b⟩ = Σ_b d_b(i,j) − d_b(k,l).
func (po *pairOperator) mulB(cp *conicProblem, x, out []float64) {
	for c := range out {
		out[c] = 0
	}
	dists := make([][]float64, len(cp.blocks))
	cp.forPSDBlocks(func(q int) {
		bl := cp.blocks[q]
		k := bl.k
		xm := make([]float64, k*k)
		smatOf(k, x[bl.off:bl.off+bl.size], xm)
		phi := po.phi[q]
		var f mat.Dense
		f.Mul(phi, mat.NewDense(k, k, xm))
		dists[q] = make([]float64, len(po.pairs))
		addPairForms(phi, &f, po.pairs, dists[q])
	})
	for _, dist := range dists { // in block order, whatever the scheduling
		for c := range out {
			out[c] += dist[po.left[c]] - dist[po.right[c]]
		}
	}
}

// mulBT computes out = Bᵀa = svec(Φ_bᵀ S(a) Φ_b) per block, S(a) =
// Σ_c a_c (E_ij − E_kl).
func (po *pairOperator) mulBT(cp *conicProblem, a, out []float64) {
	pw := make([]float64, len(po.pairs))
	for c, v := range a {
		pw[po.left[c]] += v
		pw[po.right[c]] -= v
	}
	cp.forPSDBlocks(func(q int) {
		bl := cp.blocks[q]
		k := bl.k
		phi := po.phi[q]
		n, _ := phi.Dims()
		tm := mat.NewDense(n, k, nil)
		addPairDifferences(tm, phi, po.pairs, pw)
		var g mat.Dense
		g.Mul(phi.T(), tm)
		svecOf(k, g.RawMatrix().Data, out[bl.off:bl.off+bl.size])
	})
}

// factorDual forms and factors M_T = diag(Δ) + B 𝒲 Bᵀ (see above).
func (po *pairOperator) factorDual(cp *conicProblem, nts []ntBlock, delta []float64) (*cholFactor, bool) {
	nT := cp.nT
	if len(po.buf) != nT*nT {
		po.buf = make([]float64, nT*nT)
	}
	if len(po.rows) != len(cp.blocks) {
		po.rows = make([][]float64, len(cp.blocks))
	}
	// Blocks of small order go through one matrix product (lowOrderRows),
	// the others through the look-ups of addBlocks (every block of a
	// pairConic is a PSD cone).
	cp.forPSDBlocks(func(q int) {
		if !takesProduct(cp.blocks[q]) {
			po.rows[q] = po.pairRows(po.rows[q], po.phi[q], nts[q].g)
		}
	})
	var low []int
	var qms [][]float64
	for q, bl := range cp.blocks {
		if takesProduct(bl) {
			low = append(low, q)
		} else {
			qms = append(qms, po.rows[q])
		}
	}
	var lowRows int
	po.lowOrder, lowRows = po.lowOrderRows(po.lowOrder, cp, nts, low)
	fill := func(md []float64) {
		for i := range md {
			md[i] = 0
		}
		for c, d := range delta {
			md[c*nT+c] = d
		}
		if len(qms) > 0 {
			po.addBlocks(md, nT, qms)
		}
		linalg.GramUpperAdd(lowRows, nT, po.lowOrder, md)
	}
	fill(po.buf)
	return factorMixed(nT, po.buf, fill, &po.mixed)
}

// pairRows returns, for a block's item coordinates phi and NT factor g,
// the rows H(e_a − e_b) of H = ΦGGᵀΦᵀ for every pair p = (a,b) (row-major,
// one row of length n per pair), so that the pair Gram value e_pᵀ H e_q
// is row_p[c] − row_p[d] for q = (c,d). It writes into dst, grown if
// needed (tens of megabytes per block at |T| ≈ 4400).
func (po *pairOperator) pairRows(dst []float64, phi, g *mat.Dense) []float64 {
	var f, h mat.Dense
	f.Mul(phi, g)
	h.Mul(&f, f.T())
	n, _ := h.Dims()
	hr := h.RawMatrix()
	qm := linalg.Grow(dst, len(po.pairs)*n)
	for p, pq := range po.pairs {
		ra := hr.Data[pq.A*hr.Stride : pq.A*hr.Stride+n]
		rb := hr.Data[pq.B*hr.Stride : pq.B*hr.Stride+n]
		dst := qm[p*n : p*n+n]
		for i := range dst {
			dst[i] = ra[i] - rb[i]
		}
	}
	return qm
}

// lowOrderMax is the largest block order k whose Newton-matrix terms are
// formed as a product (lowOrderRows, linalg.GramUpperAdd) instead of by
// look-ups (addBlocks): 12 with OpenBLAS, none in the pure-Go build. The
// look-ups cost the same whatever k, 38 ms per block at the fixture's
// 4400 comparisons; the product costs k(k+1)/2 multiply-adds per entry,
// with OpenBLAS 13 ms at k = 8, 24 ms at 12 and 38 ms at 16, and in pure
// Go 35 ms at k = 3 and 137 ms at 8 (BenchmarkLowOrderTerms;
// docs/solver.md, "Low-order blocks in the comparison-space matrix"). A
// variable so that tests can run either way in either build.
var lowOrderMax = defaultLowOrderMax()

func defaultLowOrderMax() int {
	if linalg.FastProducts {
		return 12
	}
	return 0
}

// takesProduct reports whether a block's Newton-matrix terms are formed by
// lowOrderRows (its order is at most lowOrderMax).
func takesProduct(bl coneBlock) bool { return bl.k <= lowOrderMax }

// lowOrderRows writes into dst (grown if needed) the vectors y_c of the
// Newton-matrix terms of the blocks low, one row of length |T| per
// coordinate, and returns it with its number of rows. For a block with
// F = ΦG (n×k, W = GGᵀ its NT scaling) and a pair p = (a,b), let
// f_p = F_a − F_b and z_p = svec(f_p f_pᵀ) (off-diagonal entries times √2),
// so that ⟨z_p, z_q⟩ = (f_p·f_q)² = (e_pᵀ H e_q)²; a comparison's
// vector is y_c = z_ij − z_kl, and the block's term of the matrix is
// ⟨y_c, y_c'⟩ = a² − b² − d² + e² of addBlocks: the Gram matrix of the
// y_c, which linalg.GramUpperAdd forms at matrix-product speed.
func (po *pairOperator) lowOrderRows(dst []float64, cp *conicProblem, nts []ntBlock, low []int) ([]float64, int) {
	rows := 0
	for _, q := range low {
		_, k := nts[q].g.Dims()
		rows += svecLen(k)
	}
	nT := len(po.left)
	dst = linalg.Grow(dst, rows*nT)
	off := 0
	for _, q := range low {
		var f mat.Dense
		f.Mul(po.phi[q], nts[q].g)
		fr := f.RawMatrix()
		k := fr.Cols
		m := svecLen(k)
		z := make([]float64, len(po.pairs)*m)
		fp := make([]float64, k)
		for p, pq := range po.pairs {
			for i := range fp {
				fp[i] = fr.Data[pq.A*fr.Stride+i] - fr.Data[pq.B*fr.Stride+i]
			}
			svecOuter(fp, z[p*m:(p+1)*m])
		}
		for s := 0; s < m; s++ {
			row := dst[(off+s)*nT : (off+s+1)*nT]
			for c := range row {
				row[c] = z[int(po.left[c])*m+s] - z[int(po.right[c])*m+s]
			}
		}
		off += m
	}
	return dst, rows
}

// svecOuter writes svec(f fᵀ) into out (length k(k+1)/2, the order of
// svecOf: row by row of the upper triangle, off-diagonal entries times √2).
func svecOuter(f, out []float64) {
	pos := 0
	for i, fi := range f {
		out[pos] = fi * fi
		pos++
		for _, fj := range f[i+1:] {
			out[pos] = math.Sqrt2 * fi * fj
			pos++
		}
	}
}

// addBlocks adds Σ_b (B𝒲Bᵀ)_b (upper triangle) to the row-major nT×nT
// matrix md, given each block's pair rows (pairRows). One pass over the
// triangle serves all blocks: the matrix is hundreds of megabytes at
// |T| ≈ 5000, while the 2·(blocks) pair rows of one comparison fit in the
// first-level cache.
func (po *pairOperator) addBlocks(md []float64, nT int, qms [][]float64) {
	if len(po.items) != 4*nT {
		po.items = make([]int32, 4*nT)
		for c := 0; c < nT; c++ {
			l, r := po.pairs[po.left[c]], po.pairs[po.right[c]]
			po.items[4*c], po.items[4*c+1], po.items[4*c+2], po.items[4*c+3] = int32(l.A), int32(l.B), int32(r.A), int32(r.B)
		}
	}
	n := 0
	if len(po.pairs) > 0 && len(qms) > 0 {
		n = len(qms[0]) / len(po.pairs)
	}
	items := po.items
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// Rows interleaved so that the triangle's work is balanced.
			for c := w; c < nT; c += workers {
				lc, rc := int(po.left[c])*n, int(po.right[c])*n
				row := md[c*nT : c*nT+nT]
				for _, qm := range qms {
					rowL := qm[lc : lc+n]
					rowR := qm[rc : rc+n]
					for c2 := c; c2 < nT; c2++ {
						it := items[4*c2 : 4*c2+4 : 4*c2+4]
						i, j, k, l := it[0], it[1], it[2], it[3]
						a := rowL[i] - rowL[j]
						b := rowL[k] - rowL[l]
						d := rowR[i] - rowR[j]
						e := rowR[k] - rowR[l]
						row[c2] += a*a - b*b - d*d + e*e
					}
				}
			}
		}(w)
	}
	wg.Wait()
}

// solveDual computes the Newton direction in comparison space:
//
//	(Δ + B𝒲Bᵀ) Δα = h + B(r_c − 𝒲 r_d),   h = r_p − r_ξ/(μ−α) + r_s/α,
//	ΔS = BᵀΔα + r_d,   Δx = r_c − 𝒲 ΔS,
//
// then Δξ and Δs from the box complementarity (ipm.go). wrd is 𝒲 r_d.
func (cp *conicProblem) solveDual(chol *cholFactor, nts []ntBlock, x, sd, xi, sl, alpha, delta, rp, rd, wrd, rc, rxi, rs, dx, dS, dxi, dsl, dal []float64) bool {
	nT, K, mu := cp.nT, cp.dim, cp.mu
	y := make([]float64, K)
	for k := range y {
		y[k] = rc[k] - wrd[k]
	}
	by := make([]float64, nT)
	cp.mulB(y, by)
	rhs := make([]float64, nT)
	for c := range rhs {
		rhs[c] = rp[c] - rxi[c]/(mu-alpha[c]) + rs[c]/alpha[c] + by[c]
	}
	copy(dal, rhs)
	if !chol.solve(dal) {
		return false
	}
	cp.mulBT(dal, dS)
	for k := range dS {
		dS[k] += rd[k]
	}
	wds := make([]float64, K)
	cp.applyScaling(nts, x, sd, dS, wds, false)
	for k := range dx {
		dx[k] = rc[k] - wds[k]
	}
	for c := range dal {
		dxi[c] = (rxi[c] + xi[c]*dal[c]) / (mu - alpha[c])
		dsl[c] = (rs[c] - sl[c]*dal[c]) / alpha[c]
	}
	for _, v := range dal {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// interiorFull solves a problem whose blocks are all full by the
// comparison-space interior-point method, every block in its whole
// eigenbasis, keeping the comparisons not satisfied by a clear margin at
// the starting point sol (the others get α = 0; if the solution violates
// one of them, it joins and the method runs again). The certificate is
// computed on the whole problem as in crossover.
func (p *problem) interiorFull(ctx context.Context, sol solution, s Settings) (solution, error) {
	nc := len(p.left)
	ws := p.newWorkspace()
	dist := make([]float64, len(p.pairs))
	pw := make([]float64, len(p.pairs))
	m := make([]float64, nc)
	p.margins(ws, sol.x, dist, m)
	in := make([]bool, nc)
	var comps []int
	for c, mc := range m {
		if mc > -p.tune.firstSlack {
			in[c] = true
			comps = append(comps, c)
		}
	}
	if p.newtonCost(len(comps)) > p.tune.interior.dropWorth*p.newtonCost(nc) {
		// Dropping saves too little per Newton step (the blocks' scalings
		// cost the same whatever the comparisons) to risk another run when
		// a dropped comparison turns out violated: keep them all.
		comps = comps[:0]
		for c := range in {
			in[c] = true
			comps = append(comps, c)
		}
	}
	best := sol
	alpha := make([]float64, nc)
	g := make([]float64, p.dim)
	var start *ipmPoint
	for round := 0; round < p.tune.interior.maxRounds; round++ {
		// The cheaper Newton system: K-space for small blocks such as
		// LPOE on a few features, comparison space otherwise.
		var cp *conicProblem
		if kCost, tCost := p.newtonSystemCosts(len(comps)); kCost <= tCost {
			set := p.wholeSet(comps)
			cp, _ = p.restrict(set)
		} else {
			cp = p.pairConic(comps)
		}
		// Σα equals the optimum at the solution: start every multiplier at
		// the mean that the optimum's estimate suggests. The estimate is
		// the geometric mean of the best objective and the certified bound
		// (when there is one): at large β the first-order point at the
		// hand-over is far from optimal (on the fixture at β = 1e7, an
		// objective of 1.4e5 against the optimum's 853 and a bound of 15),
		// and a start hundreds of times too large cost 8–13 extra Newton
		// steps.
		cp.alpha0 = optimumEstimate(best) / float64(len(comps))
		cp.balancedStart = true
		cp.step = newtonReporter(s.Recorder, &best)
		if cp.pairs != nil {
			// A later round starts from the previous round's iterate at
			// relative gap warmBackup (same cone: pairConic's blocks do
			// not depend on comps, which only grow at the end).
			cp.snapshotGap = p.tune.interior.warmBackup
			if start != nil && len(start.x) == cp.dim && len(start.alpha) <= cp.nT {
				cp.start = start
			}
		}
		mu := p.beta / float64(nc)
		// evaluate maps an interior-point result to the whole problem: its
		// point, exact objective and certified bound (m, alpha, g hold the
		// margins, multipliers and dual slack afterwards).
		evaluate := func(res ipmResult) (xn []float64, f, bound float64) {
			xn = make([]float64, p.dim)
			for q, bl := range cp.blocks {
				blk := &p.blocks[q]
				smatOf(bl.k, res.x[bl.off:bl.off+bl.size], xn[blk.off:blk.off+blk.size])
			}
			p.projectMargins(ws, xn, dist, m)
			f = p.regularizer(xn) + p.lossAndWeights(m, 0, nil)
			for c := range alpha {
				alpha[c] = 0
			}
			for r, c := range comps {
				alpha[c] = math.Min(math.Max(res.alpha[r], 0), mu)
			}
			p.gradient(ws, alpha, pw, g)
			return xn, f, p.dualScale(ws, g) * floats.Sum(alpha)
		}
		// The last evaluation is kept: when the method stops because accept
		// said yes, the caller needs exactly that one.
		var lastX []float64
		var lastXn []float64
		var lastF, lastBound float64
		evaluateOnce := func(res ipmResult) ([]float64, float64, float64) {
			if len(res.x) > 0 && len(lastX) > 0 && &res.x[0] == &lastX[0] {
				return lastXn, lastF, lastBound
			}
			lastX = res.x
			lastXn, lastF, lastBound = evaluate(res)
			return lastXn, lastF, lastBound
		}
		cp.accept = func(res ipmResult) bool {
			xn, f, bound := evaluateOnce(res)
			fb, lb := math.Min(f, best.objective), math.Max(bound, best.bound)
			if p.certifiedAtQuarterTol(f, p.regularizer(xn), fb, lb, s.Tol) || (res.final && fb-lb <= s.Tol*fb) {
				return true
			}
			// Solved, but a dropped comparison is needed: next round.
			return res.final && comparisonJoins(in, m, p.tune.laterSlack)
		}
		cp.askFrom = s.Tol
		steps := p.newtonBudget(s, best.iters)
		if steps == 0 {
			return best, nil
		}
		res, err := solveConic(ctx, cp, s.Tol*0.05, steps)
		if cp.start != nil && (errors.Is(err, errIPMStalled) || p.tune.hooks.forceWarmStall) {
			// The method could not follow the warm start: this round
			// again from the cold start, if MaxIter leaves steps.
			if rest := p.newtonBudget(s, best.iters+res.iterations); rest > 0 {
				best.iters += res.iterations
				cp.start, lastX = nil, nil
				res, err = solveConic(ctx, cp, s.Tol*0.05, rest)
			}
		}
		if err != nil && !(errors.Is(err, errIPMStalled) && res.x != nil) {
			if errors.Is(err, errIPMStalled) {
				return best, nil
			}
			return best, err
		}
		xn, f, bound := evaluateOnce(res)
		if best.endRun(s, res.iterations, xn, f, bound, alpha) {
			return best, nil
		}
		var grew bool
		comps, grew = joinComparisons(in, comps, m, p.tune.laterSlack)
		if !grew {
			return best, nil
		}
		start = res.snapshot
	}
	return best, nil
}

// losesTenfold reports whether a point of objective f = reg + loss (reg
// the trace regulariser, loss the weighted hinge loss) certified by the
// lower bound lb loses a Tol/2 certificate at ten times β, although its
// loss is only the margins a hair above zero that an interior point leaves
// (loss ≤ Tol·f: the solution separates the comparisons). At 10β the same
// multipliers stay feasible, so lb still bounds the optimum, while the
// loss weighs ten times as much: f becomes f + 9·loss. interiorFull then
// takes more Newton steps before it accepts the point, which shrink the
// loss with the gap, so that the next fit of a β grid is certified by this
// one's dual point alone (warmCertificate, Sec. 5's grids step by 10).
// Where the loss is real (comparisons the solution violates, as on every
// aset400 fold) no certificate survives a tenfold β and nothing changes.
// On the benchmark fixture's warm path the fit at β = 1e4 took one more
// step (gap 2.4e-4 → 5e-5) and the fit at 1e5, 13 Newton steps (5–6 s),
// was certified from it: the path took 34.6 s against 40.3–44.4 s
// (docs/solver.md, "Warm starts").
func losesTenfold(f, reg, lb, tol float64) bool {
	loss := f - reg
	f10 := f + 9*loss
	return loss <= tol*f && f10-lb > tol/2*f10
}

// certifiedAtQuarterTol is the interior-point stages' rule for stopping
// on the whole problem's certificate (interiorFull, and the diagonal
// rounds of crossover): the best objective fb and bound lb within Tol/4,
// and, where the point (objective f, regulariser reg) is the best one,
// a certificate that does not lose Tol/2 at ten times β (losesTenfold).
// Tol/4 rather than Tol: about one more Newton step buys a certificate
// that survives a tenfold β. Along a warm β path the fits above β = 1e4
// are then certified by the previous dual point alone (on the fixture a
// 1e4 fit left at gap 4e-4 reached 9e-4 at 1e6 and cost a 9 s refit at
// 1e7; at 1e-4 the whole tail took 0.7 s).
func (p *problem) certifiedAtQuarterTol(f, reg, fb, lb, tol float64) bool {
	tight := fb-lb <= tol*fb/4
	if tight && f <= fb && !p.tune.hooks.noTenfoldRefine {
		tight = !losesTenfold(f, reg, lb, tol)
	}
	return tight
}

// optimumEstimate is a guess at the optimal objective from the best
// objective f and certified lower bound l of sol: √(l·f) when l > 0 (the
// middle of the bracket on a log scale, which can span orders of
// magnitude after a short first-order run), f otherwise.
func optimumEstimate(sol solution) float64 {
	if sol.bound > 0 && sol.bound < sol.objective {
		return math.Sqrt(sol.bound * sol.objective)
	}
	return sol.objective
}

// newtonCost estimates the work, in multiply-adds, of one Newton step of
// the comparison-space method on nT comparisons: its system
// (newtonSystemCosts) and each block's scalings, congruences and
// step-length eigenvalues (about 120 r³ at the speed of a matrix product,
// measured with OpenBLAS at r ≈ 300).
func (p *problem) newtonCost(nT int) float64 {
	_, cost := p.newtonSystemCosts(nT)
	for b := range p.blocks {
		r := float64(p.blocks[b].r)
		cost += 120 * r * r * r
	}
	return cost
}

// acceleratedCost estimates the work of one iteration of the accelerated
// method on full blocks: each block's eigendecomposition (projection) and
// its distances and gradient through the n×r coordinates, about 16·n·r²
// in all (measured at 8–33 ms per iteration for Σ n·r² = 2.6e7–7.2e7).
func (p *problem) acceleratedCost() float64 {
	cost := 0.0
	for b := range p.blocks {
		r := float64(p.blocks[b].r)
		cost += 16 * float64(p.n) * r * r
	}
	return cost
}

// pairConic builds the comparison-space conic program over the kept
// comparisons comps, every block whole (cost: its regulariser weights).
func (p *problem) pairConic(comps []int) *conicProblem {
	cp := &conicProblem{mu: p.beta / float64(len(p.left)), nT: len(comps)}
	po := &pairOperator{}
	index := map[data.Pair]int32{}
	lookup := func(q data.Pair) int32 {
		if k, ok := index[q]; ok {
			return k
		}
		k := int32(len(po.pairs))
		index[q] = k
		po.pairs = append(po.pairs, q)
		return k
	}
	for _, c := range comps {
		po.left = append(po.left, lookup(p.pairs[p.left[c]]))
		po.right = append(po.right, lookup(p.pairs[p.right[c]]))
	}
	off := 0
	for b := range p.blocks {
		blk := &p.blocks[b]
		bl := coneBlock{psd: true, k: blk.r, off: off, size: svecLen(blk.r)}
		cp.blocks = append(cp.blocks, bl)
		po.phi = append(po.phi, blk.phi)
		off += bl.size
	}
	cp.dim = off
	cp.c = make([]float64, off)
	for q, bl := range cp.blocks {
		blk := &p.blocks[q]
		pos := 0
		for i := 0; i < bl.k; i++ {
			cp.c[bl.off+pos] = blk.regWeight(i)
			pos += bl.k - i
		}
	}
	cp.pairs = po
	return cp
}
