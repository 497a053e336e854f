package mkpoe

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// scaling records the change of variables made by precondition: the
// solver's variable U relates to the problem's X by a congruence
// X = D U D for a full block (D diagonal positive, which keeps the PSD
// cone) and by x_t = s_t u_t for a diagonal block (which keeps x ≥ 0).
type scaling struct {
	full [][]float64 // per block: D_kk (full blocks), nil for diagonal blocks
	diag [][]float64 // per block: s_t (diagonal blocks), nil for full blocks
}

// precondition rescales the blocks of p in place so that every coordinate
// (diagonal blocks) or every eigen-direction (full blocks: X_kk) has unit
// mean squared effect on the margins: a Jacobi (diagonal) preconditioner
// for the accelerated solver. For a full block, D_kk = q_k^{-1/4} with
// q_k = mean_c (v_k² − u_k²)², so that the off-diagonal X_kl, whose effect
// is about √(q_k q_l), are balanced too. Kernels of very different scales (a linear kernel
// with entries ~40 next to unit-diagonal ones) otherwise make the Lipschitz
// constant of one block set the step for all, and the others crawl. The
// optimum is unchanged (a change of variables); the duality-gap
// certificate is computed in the new variables for the same objective
// values. Scales are clamped to [1e-4, 1e4] times their median.
func (p *problem) precondition() scaling {
	sc := scaling{full: make([][]float64, len(p.blocks)), diag: make([][]float64, len(p.blocks))}
	nc := float64(len(p.left))
	if nc == 0 {
		return sc
	}
	var all []float64
	for b := range p.blocks {
		q := p.marginEffect(b)
		if p.blocks[b].diag {
			s := make([]float64, len(q))
			for t := range q {
				if q[t] > 0 {
					s[t] = 1 / math.Sqrt(q[t]/nc)
					all = append(all, s[t])
				}
			}
			sc.diag[b] = s
			continue
		}
		d := make([]float64, len(q))
		for t := range q {
			if q[t] > 0 {
				d[t] = math.Pow(q[t]/nc, -0.25)
				all = append(all, d[t]*d[t])
			}
		}
		sc.full[b] = d
	}
	if len(all) == 0 {
		// No coordinate affects any margin (all-zero kernels): nothing to
		// balance, and the zero scales must not be applied.
		return scaling{}
	}
	slices.Sort(all)
	med := all[len(all)/2]
	clamp := func(s float64) float64 {
		if s == 0 {
			return med
		}
		return math.Min(math.Max(s, med*1e-4), med*1e4)
	}
	for b := range p.blocks {
		blk := &p.blocks[b]
		phi := mat.DenseCopyOf(blk.phi)
		if blk.diag {
			c := make([]float64, blk.r)
			for t, s := range sc.diag[b] {
				s = clamp(s)
				sc.diag[b][t] = s
				col := math.Sqrt(s)
				for i := 0; i < phi.RawMatrix().Rows; i++ {
					phi.Set(i, t, phi.At(i, t)*col)
				}
				c[t] = blk.c[t] * s
			}
			blk.phi, blk.c = phi, c
			continue
		}
		d := sc.full[b]
		reg := make([]float64, blk.r)
		for k := range d {
			// clamp works on squared scales (the diagonal blocks' units).
			d[k] = math.Sqrt(clamp(d[k] * d[k]))
			for i := 0; i < phi.RawMatrix().Rows; i++ {
				phi.Set(i, k, phi.At(i, k)*d[k])
			}
			reg[k] = blk.regWeight(k) * d[k] * d[k]
		}
		blk.phi, blk.regDiag, blk.phiDiag = phi, reg, diagonalOf(phi)
	}
	return sc
}

// toProblem maps the solver's variable u to the problem's x (in place).
func (sc scaling) toProblem(p *problem, u []float64) {
	sc.apply(p, u, false)
}

// toSolver maps the problem's x to the solver's variable u (in place).
func (sc scaling) toSolver(p *problem, x []float64) {
	sc.apply(p, x, true)
}

func (sc scaling) apply(p *problem, v []float64, inverse bool) {
	for b := range p.blocks {
		blk := &p.blocks[b]
		vb := v[blk.off : blk.off+blk.size]
		if blk.diag {
			if sc.diag == nil || sc.diag[b] == nil {
				continue
			}
			for t, s := range sc.diag[b] {
				if inverse {
					vb[t] /= s
				} else {
					vb[t] *= s
				}
			}
			continue
		}
		if sc.full == nil || sc.full[b] == nil {
			continue
		}
		d := sc.full[b]
		r := blk.r
		for k := 0; k < r; k++ {
			for l := 0; l < r; l++ {
				if inverse {
					vb[k*r+l] /= d[k] * d[l]
				} else {
					vb[k*r+l] *= d[k] * d[l]
				}
			}
		}
	}
}

// marginEffect returns, for every coordinate t of block b, the summed
// squared effect of that coordinate on the margins,
//
//	q_t = Σ_c (u_t² − v_t²)²,  u = φ_i − φ_j, v = φ_k − φ_l,
//
// the diagonal of AᵀA for a diagonal block and of its (t,t) entries for a
// full block.
func (p *problem) marginEffect(b int) []float64 {
	blk := &p.blocks[b]
	phi := blk.phi.RawMatrix()
	row := func(i int) []float64 { return phi.Data[i*phi.Stride : i*phi.Stride+blk.r] }
	q := make([]float64, blk.r)
	for c := range p.left {
		a, bb := p.pairs[p.left[c]], p.pairs[p.right[c]]
		ra, rb, rc, rd := row(a.A), row(a.B), row(bb.A), row(bb.B)
		for t := range q {
			u, v := ra[t]-rb[t], rc[t]-rd[t]
			d := u*u - v*v
			q[t] += d * d
		}
	}
	return q
}
