package mkpoe

import (
	"context"
	"math"

	"gonum.org/v1/gonum/floats"
)

// almMethod is the augmented-Lagrangian method on the factored problem
// (docs/solver.md, "Augmented-Lagrangian method"; Burer & Monteiro 2003,
// Sec. 3). Each comparison's hinge is written with a slack ξ_c ≥ 0 of
// cost μ = β/|𝒞| and the constraint g_c = m_c − ξ_c ≤ 0, m_c the margin;
// the augmented Lagrangian with multipliers y_c ∈ [0, μ] and penalty σ,
// minimised over the slacks in closed form, is
//
//	‖L‖²_F + Σ_c μ·h_δ(m_c + y_c/σ) − y_c²/(2σ),   δ = μ/σ,
//
// the low-rank method's Huber smoothing at a fixed δ on margins shifted by
// y/σ. Its minimiser over L (Newton-CG, or L-BFGS; columns grown along
// negative directions of the dual slack as in lowRankMethod) gives the
// multiplier update y ← clip(y + σ·m, 0, μ), which is the smoothed
// multiplier α_c = μ·h_δ'(m_c + y_c/σ) at that point: the method of
// multipliers, a proximal point method on the dual, whose multipliers
// converge to the dual optimum for a fixed σ, so the certificate (dual
// scaling of α by λ_min of the dual slack) closes where the shrinking
// smoothing of lowRankMethod stalls. σ is almTuning.kappa·max(bound,
// β_min)/|𝒞|, the multipliers' natural scale (rescalePenalty).
type almMethod struct{}

func (almMethod) solve(ctx context.Context, fp fitProblem) (solution, error) {
	lr := newLowRank(fp.p)
	lr.stop = func() bool { return ctx.Err() != nil }
	lr.growTol = growTol(fp.p.tune.lowRank, fp.s.Tol)
	return lr.runALM(ctx, fp)
}

// runALM is the augmented-Lagrangian loop: Newton-CG (or L-BFGS) on the
// shifted smoothed objective between checks; at a stall, update the
// multipliers and prune the factor, then grow the blocks whose dual slack
// S(α) has negative directions on the complement of the factor (at the
// updated multipliers: y = α). The inner problem at a rank too small for
// its optimum is solved only up to that rank before y moves: an inexact
// method of multipliers, whose rank and multipliers converge together
// (almTuning.updateOnGrow). A certificate is computed at every stall and
// every almTuning.certEvery checks between them.
func (lr *lowRank) runALM(ctx context.Context, fp fitProblem) (solution, error) {
	p, tn, s := lr.p, lr.p.tune.lowRank, fp.s
	tn.checkEvery, tn.stallFraction = p.tune.alm.checkEvery, p.tune.alm.stallFraction
	z, ranks := lr.startFactors(fp.init)
	delta := lr.startMultipliers(fp)
	lr.layout(ranks)
	if warm, ok := lr.warmCertificate(fp, z); ok {
		return warm, nil
	}
	sol := solution{objective: math.Inf(1)}
	best := lowRankBest{f: math.Inf(1)}
	g := make([]float64, len(z))
	opt := newLBFGS(tn.memory)
	var ns *newtonScratch
	if p.tune.alm.newton {
		ns = lr.newtonScratch()
		tn.checkEvery = p.tune.alm.newtonCheckEvery
	}
	it, sinceCert := 0, 0
	prevSmooth := math.Inf(1)
	var pt lbfgsPoint // the last steps' end: fresh if lr's state is still z's
	for {
		if err := ctx.Err(); err != nil {
			return sol, err
		}
		fs, fe := pt.f, pt.exact
		if !pt.fresh {
			fs, fe = lr.evaluate(z, delta, g)
		}
		best.keep(lr, fe, z)
		sol.objective = best.f
		stalled := prevSmooth-fs <= tn.stallFraction*fs
		prevSmooth = fs
		var rz []ritz
		if stalled || it == 0 || it >= s.MaxIter || sinceCert >= p.tune.alm.certEvery {
			need := math.Inf(-1)
			if p.tune.alm.hopelessStop {
				need = certifiableLower(floats.Sum(lr.alpha), sol.objective, s.Tol)
			}
			_, r, ok, err := lr.certify(ctx, z, max(tn.grow, int(math.Ceil(p.tune.alm.growRank*float64(lr.totalRank())))), need, &sol)
			if err != nil {
				return sol, err
			}
			if !ok {
				break
			}
			rz, sinceCert = r, 0
		} else {
			sinceCert++
		}
		if lr.checkpoint(s, &sol, it, fe, delta, StageALM) {
			break
		}
		if stalled {
			// fresh: lr's state and g are z's (no evaluation needed).
			var grown, fresh bool
			if p.tune.alm.updateOnGrow {
				z = lr.updateMultipliers(z, delta)
				delta = lr.rescalePenalty(fp, delta, sol.bound)
				g = resize(g, len(z))
				fs, _ = lr.evaluate(z, delta, g)
				z, grown = lr.grow(z, rz, fs, delta, s.Tol)
				fresh = !grown // grow evaluates only when it adds columns
			} else if z, grown = lr.grow(z, rz, fs, delta, s.Tol); !grown {
				z = lr.updateMultipliers(z, delta)
				delta = lr.rescalePenalty(fp, delta, sol.bound)
			}
			opt.reset()
			prevSmooth = math.Inf(1) // a new column or shift: no stall yet
			if !fresh {
				g = resize(g, len(z))
				fs, _ = lr.evaluate(z, delta, g)
			}
		}
		pt = lbfgsPoint{z: z, g: g, f: fs, delta: delta, opt: opt, best: &best}
		report := lr.stepReport(s, StageALM, it, &best, sol.bound, delta)
		var steps int
		var err error
		if ns != nil {
			steps, err = lr.newtonDescend(ctx, ns, &pt, min(tn.checkEvery, s.MaxIter-it), report)
		} else {
			steps, err = lr.descend(ctx, &pt, min(tn.checkEvery, s.MaxIter-it), report)
		}
		it += steps
		if err != nil {
			return sol, err
		}
	}
	return lr.finish(sol, &best, it), nil
}

// certifiableLower is the lowest λ_min of the dual-slack term ΦᵀMΦ at
// which multipliers summing to sumAlpha certify the objective f within tol:
// the dual scaling t = 1/(−λ_min) (at most 1) gives the bound t·sumAlpha,
// which certifies when at least (1 − tol)·f.
func certifiableLower(sumAlpha, f, tol float64) float64 {
	if !(f > 0) || math.IsInf(f, 0) {
		return math.Inf(-1)
	}
	return -sumAlpha / ((1 - tol) * f)
}

// startMultipliers allocates the shifts y/σ and returns the first δ =
// β/(kappa·β_min) (penaltyDelta at no bound yet). A warm start (Settings.Init
// with one multiplier per comparison) starts from its dual point clipped
// to this β's box [0, μ]: a multiplier at the top of Init's box (above
// almTuning.topOfBox of it: a comparison violated at Init's β, which the dual
// scaling leaves a little below the top) is scaled by the ratio of the βs,
// since a comparison still violated has α = μ; its penalty starts from
// Init's dual bound, where the previous fit's penalty ended (the optimum
// rises with β, so the bound of a smaller β's fit is below this one's
// optimum). A cold start begins at y = 0.
func (lr *lowRank) startMultipliers(fp fitProblem) float64 {
	topOfBox := lr.p.tune.alm.topOfBox
	lr.shift = make([]float64, len(lr.m))
	lr.shifted = make([]float64, len(lr.m))
	delta := lr.penaltyDelta(fp, 0)
	if in := fp.s.Init; in != nil && len(in.dual) == len(lr.shift) && !lr.p.tune.alm.warmFactorsOnly {
		if in.Beta <= lr.p.beta && in.Stats.DualBound > 0 {
			delta = lr.penaltyDelta(fp, in.Stats.DualBound)
		}
		muOld, ratio := in.Beta/float64(len(lr.shift)), lr.p.beta/in.Beta
		for c, y := range in.dual {
			if ratio > 1 && y >= topOfBox*muOld {
				y *= ratio // violated at Init's β: its multiplier is at the top of the box
			}
			lr.shift[c] = math.Min(math.Max(y, 0), lr.mu) * delta / lr.mu
		}
	}
	return delta
}

// updateMultipliers is the method of multipliers' step: y ← clip(y + σm,
// 0, μ), which is the current α, so the shift y/σ becomes α·δ/μ; then the
// factors are pruned (almTuning.prune) and returned.
func (lr *lowRank) updateMultipliers(z []float64, delta float64) []float64 {
	for c, a := range lr.alpha {
		lr.shift[c] = a * delta / lr.mu
	}
	if prune := lr.p.tune.alm.prune; prune > 0 {
		return lr.prune(z, prune)
	}
	return z
}

// rescalePenalty sets σ = kappa·max(bound, β_min)/|𝒞| after a multiplier
// update, bound the best dual bound so far, and returns δ = μ/σ (the
// shifts y/σ rescaled, y unchanged). The multipliers' mean at the optimum
// is f*/|𝒞| (Σα = f* there), and the dual bound approaches f* from below,
// starting at β_min; a σ in proportion to that scale took the fewest
// steps on sets where f*/β_min is 3 (300 items × 8,000 triplets) and 32
// (100 × 16,000) alike, where a σ fixed in β_min was best on one only.
func (lr *lowRank) rescalePenalty(fp fitProblem, delta, bound float64) float64 {
	next := lr.penaltyDelta(fp, bound)
	if next >= delta {
		return delta // σ only grows: the bound only rises
	}
	for c := range lr.shift {
		lr.shift[c] *= next / delta
	}
	return next
}

// penaltyDelta returns δ = μ/σ for σ = kappa·max(bound, β_min)/|𝒞|, that
// is β/(kappa·max(bound, β_min)); 1 where β_min is unknown.
func (lr *lowRank) penaltyDelta(fp fitProblem, bound float64) float64 {
	kappa := lr.p.tune.alm.kappa
	if kappa <= 0 || !(fp.minBeta > 0) || math.IsInf(fp.minBeta, 0) {
		return 1
	}
	return lr.p.beta / (kappa * math.Max(bound, fp.minBeta))
}

// warmCertificate is warmCertificate (warm.go) for the factored methods:
// the warm start's factors z are replaced by their best multiple (√s·L,
// bestMultiple: a fit ending a hair inside the tolerance leaves margins
// just above zero, which a larger β multiplies), and Settings.Init's dual
// point, clipped to this β's box [0, μ] (and, second, scaled by the ratio
// of the βs), is tried as a certificate. Along an increasing grid, once no
// comparison is violated the solution stops changing with β and the fit
// costs one evaluation and one certificate. Any multipliers in the box
// give a valid bound after dual scaling, so a foreign Init can only fail
// to certify. z is scaled in place either way.
func (lr *lowRank) warmCertificate(fp fitProblem, z []float64) (solution, bool) {
	in, nc := fp.s.Init, len(lr.m)
	if in == nil || len(in.dual) != nc || nc == 0 || len(z) == 0 {
		return solution{}, false
	}
	_, f := lr.evaluate(z, 1, nil)
	if sc := bestMultiple(floats.Dot(z, z), lr.mu, lr.m); sc != 1 {
		floats.Scale(math.Sqrt(sc), z)
		_, f = lr.evaluate(z, 1, nil)
	}
	for _, sc := range warmDualScales(lr.p.beta, in.Beta) {
		for c, a := range in.dual {
			lr.alpha[c] = math.Min(math.Max(sc*a, 0), lr.mu)
		}
		lr.pairWeights()
		t, _, ok := lr.certificate(z, lr.p.tune.lowRank.grow, math.Inf(-1))
		if !ok {
			break
		}
		if bound := t * floats.Sum(lr.alpha); f-bound <= fp.s.Tol*f {
			return solution{objective: f, bound: bound, converged: true, dual: scaledDual(lr.alpha, bound), factors: lr.factors(z)}, true
		}
	}
	return solution{}, false // the caller's first evaluation resets lr's multipliers
}
