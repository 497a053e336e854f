package mkpoe

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
)

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
	in, comps := p.firstComparisons(ws, sol.x, dist, m)
	best := sol
	alpha := make([]float64, nc)
	g := make([]float64, p.dim)
	var start *conic.Point
	for round := 0; round < p.tune.interior.maxRounds; round++ {
		cp := p.roundConic(comps, &best, start, s)
		mu := p.beta / float64(nc)
		// evaluate maps an interior-point result to the whole problem: its
		// point, exact objective and certified bound (m, alpha, g hold the
		// margins, multipliers and dual slack afterwards).
		evaluate := func(res conic.Result) (xn []float64, f, bound float64) {
			xn = make([]float64, p.dim)
			for q, bl := range cp.Blocks {
				blk := &p.blocks[q]
				conic.SmatOf(bl.K, res.X[bl.Off:bl.Off+bl.Size], xn[blk.off:blk.off+blk.size])
			}
			p.projectMargins(ws, xn, dist, m)
			f = p.regularizer(xn) + p.lossAndWeights(m, 0, nil)
			for c := range alpha {
				alpha[c] = 0
			}
			for r, c := range comps {
				alpha[c] = math.Min(math.Max(res.Alpha[r], 0), mu)
			}
			p.gradient(ws, alpha, pw, g)
			return xn, f, p.dualScale(ws, g) * floats.Sum(alpha)
		}
		// The last evaluation is kept: when the method stops because accept
		// said yes, the caller needs exactly that one.
		var lastX []float64
		var lastXn []float64
		var lastF, lastBound float64
		evaluateOnce := func(res conic.Result) ([]float64, float64, float64) {
			if len(res.X) > 0 && len(lastX) > 0 && &res.X[0] == &lastX[0] {
				return lastXn, lastF, lastBound
			}
			lastX = res.X
			lastXn, lastF, lastBound = evaluate(res)
			return lastXn, lastF, lastBound
		}
		cp.Accept = func(res conic.Result) bool {
			xn, f, bound := evaluateOnce(res)
			fb, lb := math.Min(f, best.objective), math.Max(bound, best.bound)
			if p.certifiedAtQuarterTol(f, p.regularizer(xn), fb, lb, s.Tol) || (res.Final && fb-lb <= s.Tol*fb) {
				return true
			}
			// Solved, but a dropped comparison is needed: next round.
			return res.Final && comparisonJoins(in, m, p.tune.laterSlack)
		}
		cp.AskFrom = s.Tol
		steps := p.newtonBudget(s, best.iters)
		if steps == 0 {
			return best, nil
		}
		res, err := conic.Solve(ctx, cp, s.Tol*0.05, steps)
		if cp.Start != nil && (errors.Is(err, conic.ErrStalled) || p.tune.hooks.forceWarmStall) {
			// The method could not follow the warm start: this round
			// again from the cold start, if MaxIter leaves steps.
			if rest := p.newtonBudget(s, best.iters+res.Iterations); rest > 0 {
				best.iters += res.Iterations
				cp.Start, lastX = nil, nil
				res, err = conic.Solve(ctx, cp, s.Tol*0.05, rest)
			}
		}
		if h := p.tune.hooks.interiorRun; h != nil {
			h(cp)
		}
		if err != nil && !(errors.Is(err, conic.ErrStalled) && res.X != nil) {
			if errors.Is(err, conic.ErrStalled) {
				return best, nil
			}
			return best, err
		}
		xn, f, bound := evaluateOnce(res)
		if best.endRun(s, res.Iterations, xn, f, bound, alpha) {
			return best, nil
		}
		var grew bool
		comps, grew = joinComparisons(in, comps, m, p.tune.laterSlack)
		if !grew {
			return best, nil
		}
		start = res.Snapshot
	}
	return best, nil
}

// firstComparisons returns the comparisons the first round of interiorFull
// keeps, those whose margin at x exceeds −firstSlack (in marks them; m and
// dist hold x's margins and distances afterwards), or all of them when
// dropping the others saves too little per Newton step (dropWorth): the
// blocks' scalings cost the same whatever the comparisons, and a dropped
// comparison that turns out violated costs another run.
func (p *problem) firstComparisons(ws *workspace, x, dist, m []float64) (in []bool, comps []int) {
	nc := len(p.left)
	p.margins(ws, x, dist, m)
	in = make([]bool, nc)
	for c, mc := range m {
		if mc > -p.tune.firstSlack {
			in[c] = true
			comps = append(comps, c)
		}
	}
	if p.newtonCost(len(comps)) > p.tune.interior.dropWorth*p.newtonCost(nc) {
		comps = comps[:0]
		for c := range in {
			in[c] = true
			comps = append(comps, c)
		}
	}
	return in, comps
}

// roundConic is the conic problem of one round of interiorFull on comps,
// from the best solution so far (which its Newton steps report, as it
// changes) and the previous round's snapshot start (nil: none), in the
// cheaper Newton system (kSpaceNewton): K-space for
// small blocks such as LPOE on a few features, comparison space otherwise.
func (p *problem) roundConic(comps []int, best *solution, start *conic.Point, s Settings) *conic.Problem {
	var cp *conic.Problem
	if p.kSpaceNewton(len(comps)) {
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
	cp.Alpha0 = optimumEstimate(*best) / float64(len(comps))
	cp.BalancedStart = true
	cp.Step = newtonReporter(s.Recorder, best)
	if _, ok := cp.System.(*conic.PairOperator); ok {
		// A later round starts from the previous round's iterate at
		// relative gap warmBackup (same cone: pairConic's blocks do
		// not depend on comps, which only grow at the end).
		cp.SnapshotGap = p.tune.interior.warmBackup
		if start != nil {
			if dim, n := start.Sizes(); dim == cp.Dim && n <= cp.NT {
				cp.Start = start
			}
		}
	}
	return cp
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
func (p *problem) pairConic(comps []int) *conic.Problem {
	cp := &conic.Problem{Mu: p.beta / float64(len(p.left)), NT: len(comps), Settings: p.tune.conic}
	var pairs []data.Pair
	var left, right []int32
	index := map[data.Pair]int32{}
	lookup := func(q data.Pair) int32 {
		if k, ok := index[q]; ok {
			return k
		}
		k := int32(len(pairs))
		index[q] = k
		pairs = append(pairs, q)
		return k
	}
	for _, c := range comps {
		left = append(left, lookup(p.pairs[p.left[c]]))
		right = append(right, lookup(p.pairs[p.right[c]]))
	}
	var phi []*mat.Dense
	off := 0
	for b := range p.blocks {
		blk := &p.blocks[b]
		bl := conic.Block{PSD: true, K: blk.r, Off: off, Size: conic.SvecLen(blk.r)}
		cp.Blocks = append(cp.Blocks, bl)
		phi = append(phi, blk.phi)
		off += bl.Size
	}
	cp.Dim = off
	cp.C = make([]float64, off)
	for q, bl := range cp.Blocks {
		blk := &p.blocks[q]
		pos := 0
		for i := 0; i < bl.K; i++ {
			cp.C[bl.Off+pos] = blk.regWeight(i)
			pos += bl.K - i
		}
	}
	cp.System = conic.NewPairOperator(phi, pairs, left, right)
	return cp
}
