package mkpoe

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// warmStart fills x0 from a previous model on the same inputs.
func warmStart(p *problem, backs []*mat.Dense, init *Model, x0 []float64, in input) error {
	if init.Input != in.kind || init.N != in.n || init.Blocks() != len(p.blocks) {
		return invalidf("mkpoe: Settings.Init must be a model fitted on the same inputs (%s, n=%d, %d blocks), got %s, n=%d, %d blocks",
			in.kind, in.n, len(p.blocks), init.Input, init.N, init.Blocks())
	}
	for b := range p.blocks {
		blk := &p.blocks[b]
		w := init.Metric(b) // formed here for a factored Init (a low-rank fit's)
		xb := x0[blk.off : blk.off+blk.size]
		if blk.diag {
			if w.SymmetricDim() != blk.r {
				return invalidf("mkpoe: Settings.Init block %d has size %d, want %d (same mode and inputs)", b, w.SymmetricDim(), blk.r)
			}
			for t := range xb {
				xb[t] = math.Max(w.At(t, t), 0)
			}
			continue
		}
		z := mat.NewDense(blk.r, blk.r, xb)
		if backs[b] == nil {
			if w.SymmetricDim() != blk.r {
				return invalidf("mkpoe: Settings.Init block %d has size %d, want %d (same mode and inputs)", b, w.SymmetricDim(), blk.r)
			}
			z.Copy(w)
			continue
		}
		// Z = Φᵀ W Φ.
		var wp mat.Dense
		wp.Mul(w, blk.phi)
		z.Mul(blk.phi.T(), &wp)
	}
	p.project(p.newWorkspace(), x0)
	return nil
}

// lowRankWarmStart returns each block's factor L (r×k, X = LLᵀ) of the
// model init fitted on the same inputs, from its projection N (W = NᵀN):
// Z = ΦᵀWΦ = (NΦ)ᵀ(NΦ), so L = (NΦ)ᵀ, or Nᵀ where W-space and the
// eigenbasis coincide (features, the identity); rows of N that are zero
// (W = 0) give no column. O(n·r·k) per block.
func lowRankWarmStart(p *problem, init *Model, in input) ([]*mat.Dense, error) {
	if init.Input != in.kind || init.N != in.n || len(init.Proj) != len(p.blocks) {
		return nil, invalidf("mkpoe: Settings.Init was fitted on other inputs (%s, %d items, %d blocks), want %s, %d items, %d blocks",
			init.Input, init.N, len(init.Proj), in.kind, in.n, len(p.blocks))
	}
	out := make([]*mat.Dense, len(p.blocks))
	for b := range p.blocks {
		blk := &p.blocks[b]
		proj := init.Proj[b]
		k, d := proj.Dims()
		var rows []int
		for i := 0; i < k; i++ {
			if mat.Norm(proj.RowView(i), math.Inf(1)) > 0 {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			continue
		}
		nz := mat.NewDense(len(rows), d, nil)
		for c, i := range rows {
			nz.SetRow(c, proj.RawRowView(i))
		}
		l := mat.NewDense(blk.r, len(rows), nil)
		switch {
		case in.kind != InputKernels:
			if d != blk.r {
				return nil, invalidf("mkpoe: Settings.Init block %d has order %d, want %d (same inputs)", b, d, blk.r)
			}
			l.Copy(nz.T())
		case blk.phiDiag != nil:
			for i, di := range blk.phiDiag {
				for c := range rows {
					l.Set(i, c, di*nz.At(c, i))
				}
			}
		default:
			if d != in.n {
				return nil, invalidf("mkpoe: Settings.Init block %d has order %d, want %d (same inputs)", b, d, in.n)
			}
			l.Mul(blk.phi.T(), nz.T())
		}
		out[b] = l
	}
	return out, nil
}

// warmCertificate tries to certify the warm start x0 (problem
// coordinates) with the dual point of Settings.Init's fit, clipped to this
// β's box [0, β/|𝒞|]: along an increasing β grid, once no comparison is
// violated the solution stops changing (the paper's grids reach β = 1e7)
// and the previous multipliers stay feasible, so the fit costs one
// certificate instead of an interior-point run. At small β, where W = 0 is
// optimal, every multiplier is at the top of the previous box, and the
// multipliers scaled by the ratio of the βs certify W = 0 at the new β
// (the benchmark fixture's fits at β = 0.1 and 1 cost 0.03–0.04 s
// instead of 0.21–0.28 s); they are tried second. Any multipliers in the box
// give a valid bound after dual scaling (docs/solver.md, "Default
// solver"), so a mismatched Init can only fail to certify, never give a
// wrong certificate. When it does not certify, it returns false and, if
// there is an Init, the warm start's best multiple with its objective and
// no bound (where acceleratedMethod may start the interior-point stage).
func (p *problem) warmCertificate(x0 []float64, s Settings) (solution, bool) {
	if s.Init == nil {
		return solution{}, false
	}
	ws := p.newWorkspace()
	x, m := p.scaledStart(ws, x0)
	f := p.regularizer(x) + p.lossAndWeights(m, 0, nil)
	start := solution{x: x, objective: f}
	nc := len(p.left)
	if len(s.Init.dual) != nc || nc == 0 {
		return start, false
	}
	mu := p.beta / float64(nc)
	scales := warmDualScales(s.Beta, s.Init.Beta)
	alpha := make([]float64, nc)
	g := make([]float64, p.dim)
	pw := make([]float64, len(p.pairs))
	for _, sc := range scales {
		for c, a := range s.Init.dual {
			alpha[c] = math.Min(math.Max(sc*a, 0), mu)
		}
		p.gradient(ws, alpha, pw, g)
		bound := p.dualScale(ws, g) * floats.Sum(alpha)
		if f-bound <= s.Tol*f {
			return solution{x: x, objective: f, bound: bound, converged: true, dual: scaledDual(alpha, bound)}, true
		}
	}
	return start, false
}

// warmDualScales returns the factors a warm start's dual point is tried
// at, in order: 1, then the ratio of the βs where it differs (where W = 0
// stays optimal, every multiplier sits at the top of its box, μ, which the
// unscaled point misses by that ratio).
func warmDualScales(beta, initBeta float64) []float64 {
	scales := []float64{1}
	if r := beta / initBeta; r > 0 && r != 1 && !math.IsInf(r, 0) {
		scales = append(scales, r)
	}
	return scales
}

// scaledStart returns the best multiple of the warm start x0 (problem
// coordinates) and its margins. An interior-point solution leaves some
// margins a hair above zero, which a larger β multiplies: the best multiple
// of x removes them.
func (p *problem) scaledStart(ws *workspace, x0 []float64) (x, m []float64) {
	m = make([]float64, len(p.left))
	x = append([]float64(nil), x0...)
	p.margins(ws, x, make([]float64, len(p.pairs)), m)
	mu := p.beta / float64(max(len(p.left), 1))
	if sc := bestMultiple(p.regularizer(x), mu, m); sc != 1 {
		floats.Scale(sc, x)
		for c := range m {
			m[c] = 1 + sc*(m[c]-1)
		}
	}
	return x, m
}

// bestMultiple returns the s ≥ 0 minimising f(s·x) = s·reg + μ Σ_c
// max(0, 1 + s(m_c − 1)) for the margins m at x (the regulariser is linear
// and a margin's distance part scales with W), or 1 if no multiple is
// better than x itself. f is convex and piecewise linear in s, with a kink
// at s_c = 1/(1 − m_c) for every comparison with m_c < 1: its slope rises
// through the kinks, and the minimum is at s = 0 or at the first kink
// where the slope turns non-negative.
func bestMultiple(reg, mu float64, m []float64) float64 {
	type kink struct{ s, d float64 }
	var kinks []kink
	slope := reg
	for _, mc := range m {
		// Each term's slope at s = 0 is μ(m_c − 1); those with m_c < 1
		// reach zero at their kink and stay there.
		slope += mu * (mc - 1)
		if d := 1 - mc; d > 0 {
			kinks = append(kinks, kink{1 / d, d})
		}
	}
	best := 0.0
	if slope < 0 {
		sort.Slice(kinks, func(a, b int) bool { return kinks[a].s < kinks[b].s })
		for _, k := range kinks {
			best = k.s
			slope += mu * k.d
			if slope >= 0 {
				break
			}
		}
	}
	value := func(s float64) float64 {
		v := s * reg
		for _, mc := range m {
			v += mu * math.Max(0, 1+s*(mc-1))
		}
		return v
	}
	if value(best) < value(1) {
		return best
	}
	return 1
}

// marginsOf returns the margins 1 + d(i,j) − d(k,l) at x.
func marginsOf(p *problem, x []float64) []float64 {
	m := make([]float64, len(p.left))
	p.margins(p.newWorkspace(), x, make([]float64, len(p.pairs)), m)
	return m
}

// certifyMargins scales α_c = β/|𝒞|·1[m_c > 0] to dual feasibility and
// returns t·Σα (a lower bound on the optimum; docs/solver.md, "The dual and
// the certificate").
func certifyMargins(p *problem, m []float64) float64 {
	alpha := make([]float64, len(m))
	p.lossAndWeights(m, 0, alpha)
	ws := p.newWorkspace()
	g := make([]float64, p.dim)
	p.gradient(ws, alpha, make([]float64, len(p.pairs)), g)
	t := p.dualScale(ws, g)
	if math.IsNaN(t) {
		return 0
	}
	s := 0.0
	for _, a := range alpha {
		s += a
	}
	return t * s
}
