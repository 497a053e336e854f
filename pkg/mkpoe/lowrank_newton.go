package mkpoe

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// The augmented Lagrangian's inner minimisation by truncated Newton-CG
// (docs/solver.md, "Augmented-Lagrangian method"). The smoothed objective
// f_δ(L) = ‖L‖²_F + Σ_c μ·h_δ(m_c + s_c) is twice differentiable except
// where a shifted margin crosses 0 or δ; its generalised Hessian applied
// to a direction V (U = ΦV per block) is
//
//	H·V = 2V + Φᵀ·Σ_q 2(w_q (u_a − u_b) + ω_q (y_a − y_b)) e_a…,
//
// w_q the pair weights of the multipliers α (as in the gradient), ω_q the
// same sums of σ·dm_c over the comparisons whose shifted margin lies in
// (0, δ) (σ = μ/δ, the Huber piece's curvature), and dm_c = dd_left −
// dd_right with dd_q = 2(y_a − y_b)·(u_a − u_b) the directional derivative
// of a pair's squared distance. A product costs about one and a half
// evaluations. CG stops at negative curvature (the factored problem is not
// convex in L), at a residual below newtonForcing·‖g‖, or after
// newtonMaxCG products; the step is then backtracked on sufficient
// decrease like descend's.

// newtonScratch holds the Hessian products' work space.
type newtonScratch struct {
	u, gu [][]float64 // per block: ΦV and ∂/∂Y of the product
	dd    []float64   // per pair: directional derivative of its distance
	omega []float64   // per pair: Σ σ·dm_c over the quadratic comparisons
	// quad lists the comparisons whose shifted margin lies in (0, δ), the
	// Huber pieces with curvature, and need marks their pairs: the only
	// pairs whose dd a product reads (markQuadratic).
	quad []int
	need []bool
	diag []float64 // Jacobi preconditioner (1/diagonal), nil for none
	// CG's residual, preconditioned residual, direction and its product;
	// the Newton direction and the line search's point and gradient.
	r, z, p, hp, d, zn, gn []float64
	// jacobiDelta and jacobiAge: the δ diag was computed at and the
	// Newton steps since (a stale diagonal is still a preconditioner).
	jacobiDelta float64
	jacobiAge   int
}

func (lr *lowRank) newtonScratch() *newtonScratch {
	ns := &newtonScratch{dd: make([]float64, len(lr.p.pairs)), omega: make([]float64, len(lr.p.pairs))}
	ns.u = make([][]float64, len(lr.blocks))
	ns.gu = make([][]float64, len(lr.blocks))
	return ns
}

// markQuadratic fills ns.quad and ns.need at the point of the last
// evaluate: the comparisons in the quadratic piece at δ and their pairs.
// They stay the same through a Newton step's CG iterations.
func (lr *lowRank) markQuadratic(ns *newtonScratch, delta float64) {
	p := lr.p
	ns.quad = ns.quad[:0]
	if len(ns.need) != len(p.pairs) {
		ns.need = make([]bool, len(p.pairs))
	}
	clear(ns.need)
	for c, sc := range lr.lossMargins() {
		if sc > 0 && sc < delta {
			ns.quad = append(ns.quad, c)
			ns.need[p.left[c]], ns.need[p.right[c]] = true, true
		}
	}
}

// hessianProduct writes H·v to hv at the point of the last evaluate with a
// gradient (lr's embedding, multipliers, pair weights and shifted margins
// are that point's), after markQuadratic at that point and δ. The pair
// loops skip the pairs the product cannot reach: directional derivatives
// outside ns.need, and pairs whose weights w and ω are both zero, so the
// sums are those of the full loops.
func (lr *lowRank) hessianProduct(ns *newtonScratch, delta float64, v, hv []float64) {
	p, n := lr.p, lr.p.n
	clear(ns.dd)
	for b, fb := range lr.blocks {
		k, r := fb.k, fb.blk.r
		if k == 0 {
			continue
		}
		ns.u[b] = resize(ns.u[b], n*k)
		lr.toEmbedding(b, v[fb.off:fb.off+r*k], ns.u[b])
		if lr.dense != nil {
			lr.dense.directional(fb.y, ns.u[b], k, ns.dd)
		} else {
			addPairDirectional(fb.y, ns.u[b], k, p.pairs, ns.need, ns.dd)
		}
	}
	clear(ns.omega)
	sigma := lr.mu / delta
	for _, c := range ns.quad {
		l, r := p.left[c], p.right[c]
		t := sigma * (ns.dd[l] - ns.dd[r])
		ns.omega[l] += t
		ns.omega[r] -= t
	}
	for b, fb := range lr.blocks {
		k, r := fb.k, fb.blk.r
		if k == 0 {
			continue
		}
		ns.gu[b] = resize(ns.gu[b], n*k)
		clear(ns.gu[b])
		if lr.dense != nil {
			lr.dense.gradientPair(ns.u[b], fb.y, k, lr.w, ns.omega, ns.gu[b])
		} else {
			lr.parts = addEmbeddedGradientPair(ns.u[b], fb.y, k, p.pairs, lr.w, ns.omega, ns.gu[b], lr.parts)
		}
		out := hv[fb.off : fb.off+r*k]
		lr.fromEmbedding(b, ns.gu[b], out)
		floats.AddScaled(out, 2, v[fb.off:fb.off+r*k])
	}
}

// jacobi sets ns.diag to the reciprocal of the Hessian's diagonal at the
// current point, for blocks with a diagonal Φ (GNMDS and diagonal
// kernels); other blocks get the regulariser's 1/2. Entries are floored
// at the regulariser's curvature 2 (the pair-weight term can be negative).
func (lr *lowRank) jacobi(ns *newtonScratch, delta float64, dim int) {
	p := lr.p
	ns.diag = resize(ns.diag, dim)
	for i := range ns.diag {
		ns.diag[i] = 2
	}
	sigma, shifted := lr.mu/delta, lr.lossMargins()
	// The pair-weight term is the same for every column of an item.
	perItem := make([]float64, p.n)
	for q, pr := range p.pairs {
		perItem[pr.A] += 2 * lr.w[q]
		perItem[pr.B] += 2 * lr.w[q]
	}
	for _, fb := range lr.blocks {
		k, d := fb.k, fb.blk.phiDiag
		if k == 0 || d == nil {
			continue
		}
		diag := ns.diag[fb.off : fb.off+fb.blk.r*k]
		for i, v := range perItem {
			dd := v * d[i] * d[i]
			for t := i * k; t < (i+1)*k; t++ {
				diag[t] += dd
			}
		}
		y := fb.y
		// The comparisons in fixed chunks on both cores (accumulatePairs),
		// each chunk's sums added in chunk order.
		lr.parts = accumulatePairs(len(shifted), k, diag, lr.parts, func(out []float64, lo, hi int) {
			var ends [4]int
			var grads [4][]float64
			for e := range grads {
				grads[e] = make([]float64, k)
			}
			for c := lo; c < hi; c++ {
				if sc := shifted[c]; !(sc > 0 && sc < delta) {
					continue
				}
				// ∂m_c/∂y_e for the four ends (+ for the left pair, − for
				// the right), summed where an item recurs (a triplet's
				// anchor).
				l, r := p.pairs[p.left[c]], p.pairs[p.right[c]]
				items := [4]int{l.A, l.B, r.A, r.B}
				distinct := 0
				for e, item := range items {
					sign, partner := 2.0, items[e^1]
					if e >= 2 {
						sign = -2
					}
					slot := slices.Index(ends[:distinct], item)
					if slot < 0 {
						slot, ends[distinct] = distinct, item
						clear(grads[slot])
						distinct++
					}
					g, yi, yp := grads[slot], y[item*k:(item+1)*k], y[partner*k:(partner+1)*k]
					for t := range g {
						g[t] += sign * (yi[t] - yp[t])
					}
				}
				for slot := 0; slot < distinct; slot++ {
					item := ends[slot]
					s := sigma * d[item] * d[item]
					dst := out[item*k : (item+1)*k]
					for t, g := range grads[slot] {
						dst[t] += s * g * g
					}
				}
			}
		})
	}
	for i, v := range ns.diag {
		ns.diag[i] = 1 / math.Max(v, 2)
	}
}

// newtonDirection solves H·d = −g approximately by preconditioned CG
// (Steihaug's truncation at negative curvature) and writes d: the
// preconditioned steepest descent direction when the first one already has
// non-positive curvature.
func (lr *lowRank) newtonDirection(ns *newtonScratch, delta float64, g, d []float64) {
	tn := lr.p.tune.alm
	dim := len(g)
	ns.r, ns.z, ns.p, ns.hp = resize(ns.r, dim), resize(ns.z, dim), resize(ns.p, dim), resize(ns.hp, dim)
	r, z, pv, hp := ns.r, ns.z, ns.p, ns.hp
	floats.ScaleTo(r, -1, g)
	clear(d)
	lr.markQuadratic(ns, delta)
	precond := func() {
		if ns.diag != nil {
			floats.MulTo(z, ns.diag, r)
		} else {
			copy(z, r)
		}
	}
	precond()
	copy(pv, z)
	rz := floats.Dot(r, z)
	stop := tn.newtonForcing * floats.Norm(g, 2)
	for j := 0; j < tn.newtonMaxCG; j++ {
		lr.hessianProduct(ns, delta, pv, hp)
		php := floats.Dot(pv, hp)
		if !(php > 1e-12*floats.Dot(pv, pv)) {
			if j == 0 {
				copy(d, pv)
			}
			return
		}
		a := rz / php
		floats.AddScaled(d, a, pv)
		floats.AddScaled(r, -a, hp)
		if floats.Norm(r, 2) <= stop {
			return
		}
		precond()
		rzNext := floats.Dot(r, z)
		floats.AddScaledTo(pv, z, rzNext/rz, pv)
		rz = rzNext
	}
}

// newtonDescend takes up to steps Newton-CG steps on f_δ from pt, with the
// same backtracking, best point and report as descend. pt.g must be the
// gradient at pt.z from the last evaluate.
func (lr *lowRank) newtonDescend(ctx context.Context, ns *newtonScratch, pt *lbfgsPoint, steps int, report func(step int, objective float64)) (int, error) {
	g := pt.g
	dim := len(pt.z)
	ns.d, ns.zn, ns.gn = resize(ns.d, dim), resize(ns.zn, dim), resize(ns.gn, dim)
	d, zn, gn := ns.d, ns.zn, ns.gn
	for it := 0; it < steps; it++ {
		if err := ctx.Err(); err != nil {
			return it, err
		}
		if tn := lr.p.tune.alm; tn.newtonJacobi && (len(ns.diag) != dim || ns.jacobiDelta != pt.delta || ns.jacobiAge >= tn.newtonJacobiEvery) {
			lr.jacobi(ns, pt.delta, dim)
			ns.jacobiDelta, ns.jacobiAge = pt.delta, 0
		}
		ns.jacobiAge++
		lr.newtonDirection(ns, pt.delta, g, d)
		gd := floats.Dot(g, d)
		if !(gd < 0) {
			floats.ScaleTo(d, -1, g)
			gd = -floats.Dot(g, g)
		}
		if gd == 0 {
			return it, nil
		}
		fn, fe, accepted, err := lr.backtrack(ctx, pt, d, gd, 1, zn, gn)
		if err != nil {
			return it, err
		}
		if !accepted {
			return it, nil
		}
		lr.accept(pt, zn, gn, fn, fe)
		report(it+1, fe)
	}
	return steps, nil
}
