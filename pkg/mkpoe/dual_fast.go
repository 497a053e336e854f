package mkpoe

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// polishDualDiag returns a candidate dual point for the diagonal problem (an
// LP, Sec. 4.4), built from the multipliers alpha at the iterate x with
// margins m and gradient g = c + diag(Φᵀ S(α) Φ) of every block.
//
// The simple certificate scales α by t < 1 until every reduced cost
// g_t = c_t + Σ_c α_c a_ct is ≥ 0 (docs/solver.md, "The dual and the certificate"). Near the optimum the
// binding reduced costs are those of the support of w (complementary
// slackness: g_t = 0 where w_t > 0), and they are off by the current primal
// error, which costs (1−t)Σα of bound. This is a cheap crossover step: keep
// α fixed off the "tight" comparisons T (|m_c| < δ), and move α_T, within
// the box [0, β/|𝒞|], to zero the reduced costs on the support S of w by
// minimum-norm corrections (a few rounds, clipping to the box). The result
// is only a candidate: the caller recomputes its gradient from scratch and
// scales it to feasibility with dualScale, so the certificate stays valid
// whatever this returns. It returns nil when there is nothing to polish.
func (p *problem) polishDualDiag(x, m, alpha, g []float64, width float64) []float64 {
	nc := len(m)
	ub := p.beta / float64(nc)
	for b := range p.blocks {
		if !p.blocks[b].diag {
			return nil
		}
	}
	var tight []int
	for c, mc := range m {
		if math.Abs(mc) < width {
			tight = append(tight, c)
		}
	}
	if len(tight) == 0 || len(tight) > 4000 {
		return nil
	}
	// S starts as the support of w plus the coordinates whose reduced cost
	// is already negative; coordinates the correction drives negative join
	// it in later rounds.
	inS := make([]bool, p.dim)
	for k := range inS {
		inS[k] = x[k] > 0 || g[k] < 0
	}
	pwT := make([]float64, len(p.pairs))
	gn := make([]float64, p.dim)
	var out []float64
	for outer := 0; outer < 4; outer++ {
		out = p.polishOnSupport(inS, tight, alpha, g, ub)
		if out == nil {
			return nil
		}
		// Reduced costs at out: g + Σ_{c∈T} Δα_c a_c, accumulated per pair.
		var act []int32
		for _, c := range tight {
			if d := out[c] - alpha[c]; d != 0 {
				pwT[p.left[c]] += d
				pwT[p.right[c]] -= d
			}
		}
		for k, w := range pwT {
			if w != 0 {
				act = append(act, int32(k))
			}
		}
		grew := false
		for b := range p.blocks {
			blk := &p.blocks[b]
			gb := gn[blk.off : blk.off+blk.size]
			copy(gb, g[blk.off:blk.off+blk.size])
			p.diagGradient(blk, act, pwT, gb)
		}
		for k := range pwT {
			pwT[k] = 0
		}
		for k, v := range gn {
			if v < 0 && !inS[k] {
				inS[k], grew = true, true
			}
		}
		if !grew {
			break
		}
	}
	return out
}

// minNormCorrection returns the minimum-norm Δ over the columns cols of bm
// (ns×nt) with B_F Δ = −res, by a Cholesky solve of B_F B_Fᵀ (Tikhonov-
// regularised relative to its diagonal, so that it stays solvable when
// there are more rows than independent columns); false if that fails.
func minNormCorrection(bm *mat.Dense, cols []int, res []float64) (*mat.VecDense, bool) {
	ns, _ := bm.Dims()
	bf := mat.NewDense(ns, len(cols), nil)
	for s := 0; s < ns; s++ {
		for k, j := range cols {
			bf.Set(s, k, bm.At(s, j))
		}
	}
	var gram mat.SymDense
	gram.SymOuterK(1, bf)
	// Tikhonov term relative to the Gram diagonal keeps it solvable when
	// S has more elements than independent tight comparisons.
	tr := 0.0
	for s := 0; s < ns; s++ {
		tr += gram.At(s, s)
	}
	lam := 1e-10*tr/float64(ns) + 1e-300
	for s := 0; s < ns; s++ {
		gram.SetSym(s, s, gram.At(s, s)+lam)
	}
	var chol mat.Cholesky
	if !chol.Factorize(&gram) {
		return nil, false
	}
	rhs := mat.NewVecDense(ns, nil)
	for s := range res {
		rhs.SetVec(s, -res[s])
	}
	var yv, dv mat.VecDense
	if err := chol.SolveVecTo(&yv, rhs); err != nil {
		return nil, false
	}
	dv.MulVec(bf.T(), &yv)
	return &dv, true
}

// polishOnSupport moves α on the tight comparisons, within [0, ub], to zero
// the reduced costs g on the coordinates marked in inS (minimum-norm
// corrections, clipping to the box, up to a few rounds).
func (p *problem) polishOnSupport(inS []bool, tight []int, alpha, g []float64, ub float64) []float64 {
	type coord struct{ b, t int }
	var sup []coord
	for b := range p.blocks {
		blk := &p.blocks[b]
		for t := 0; t < blk.r; t++ {
			if inS[blk.off+t] {
				sup = append(sup, coord{b, t})
			}
		}
	}
	ns, nt := len(sup), len(tight)
	if ns == 0 {
		return nil
	}
	// B_st = a_{c,t} = (φ_it − φ_jt)² − (φ_kt − φ_lt)² for s ∈ S, c = tight[j].
	bm := mat.NewDense(ns, nt, nil)
	for s, ct := range sup {
		blk := &p.blocks[ct.b]
		phi := blk.phi.RawMatrix()
		at := func(i int) float64 { return phi.Data[i*phi.Stride+ct.t] }
		for j, c := range tight {
			l, r := p.pairs[p.left[c]], p.pairs[p.right[c]]
			u := at(l.A) - at(l.B)
			v := at(r.A) - at(r.B)
			bm.Set(s, j, u*u-v*v)
		}
	}
	res := make([]float64, ns) // reduced costs on S at the candidate
	for s, ct := range sup {
		res[s] = g[p.blocks[ct.b].off+ct.t]
	}
	out := append([]float64(nil), alpha...)
	free := make([]bool, nt)
	for j := range free {
		free[j] = true
	}
	for round := 0; round < 6; round++ {
		// Minimum-norm Δ over the free set with B_F Δ = −res.
		var cols []int
		for j, f := range free {
			if f {
				cols = append(cols, j)
			}
		}
		if len(cols) == 0 {
			break
		}
		dv, ok := minNormCorrection(bm, cols, res)
		if !ok {
			return nil
		}
		clipped := false
		for k, j := range cols {
			c := tight[j]
			old := out[c]
			nv := old + dv.AtVec(k)
			if nv <= 0 {
				nv, free[j], clipped = 0, false, true
			} else if nv >= ub {
				nv, free[j], clipped = ub, false, true
			}
			if d := nv - old; d != 0 {
				out[c] = nv
				for s := 0; s < ns; s++ {
					res[s] += bm.At(s, j) * d
				}
			}
		}
		if !clipped {
			break
		}
	}
	return out
}
