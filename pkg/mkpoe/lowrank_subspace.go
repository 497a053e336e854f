package mkpoe

import (
	"context"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// refine is the low-rank method's second phase (docs/solver.md, "Low-rank
// method"): the problem restricted to a subspace per block, X = VX̃Vᵀ with
// V (r×k) orthonormal, is the same problem on the features ΦV with k
// columns (tr X = tr X̃, and every distance is unchanged), small enough for
// the default method's interior-point stage, whose iteration count does not
// grow with β. Its dual point is certified on the whole problem by Lanczos;
// where the whole dual slack has negative directions the subspace was too
// small, and those Ritz vectors join V (column generation) for the next
// round. z holds the first phase's factors (the starting subspace: the
// range of each L); rz the last certificate's Ritz pairs.
func (lr *lowRank) refine(ctx context.Context, z []float64, rz []ritz, sol *solution, s Settings, it int) (int, error) {
	p, tn := lr.p, lr.p.tune.lowRank
	bases, xr := lr.subspaceStart(z, rz)
	for round := 0; round < tn.subspaceRounds && it < s.MaxIter; round++ {
		blocks := make([]block, len(lr.blocks))
		for b, fb := range lr.blocks {
			blocks[b] = block{phi: restrictFeatures(fb.blk, bases[b])}
			_, blocks[b].r = blocks[b].phi.Dims()
		}
		pr := p.restrictedProblem(blocks)
		x0 := make([]float64, pr.dim)
		for b := range blocks {
			copy(x0[blocks[b].off:], xr[b])
		}
		rs := s
		rs.Init, rs.Tol, rs.MaxIter = nil, s.Tol/4, s.MaxIter-it
		offset, bound := it, sol.bound
		rs.Recorder = func(i Iteration) {
			i.Iter += offset
			i.Bound = bound
			s.report(i)
		}
		sr, err := acceleratedMethod{}.solve(ctx, fitProblem{p: pr, x0: x0, s: rs, eigen: pr})
		it += sr.iters
		if err != nil {
			return it, err
		}
		if sr.objective < sol.objective {
			sol.objective = sr.objective
			sol.factors = liftFactors(bases, pr, sr.x)
		}
		if sr.dual == nil {
			break
		}
		copy(lr.alpha, sr.dual)
		lr.pairWeights()
		t, rzn, ok := lr.certificate(nil, tn.grow, math.Inf(-1))
		if err := ctx.Err(); err != nil {
			return it, err
		}
		if !ok {
			break
		}
		sol.keepBound(t*floats.Sum(lr.alpha), lr.alpha)
		s.report(Iteration{Iter: it, Objective: sr.objective, Best: sol.objective, Bound: sol.bound, Stage: StageLowRank, Rank: pr.totalOrder()})
		if sol.certified(s.Tol) {
			sol.converged = true
			break
		}
		grown := lr.growSubspace(bases, xr, rzn, blocks, sr.x, s.Tol)
		if !grown {
			break
		}
	}
	return it, nil
}

// subspaceStart returns refine's first subspace per block, an orthonormal
// basis of the columns of the factor L in z (or the first Ritz vector of
// rz for a block of rank 0, or e₀), and the restricted start
// X̃ = (VᵀL)(VᵀL)ᵀ per block.
func (lr *lowRank) subspaceStart(z []float64, rz []ritz) (bases []*mat.Dense, xr [][]float64) {
	bases = make([]*mat.Dense, len(lr.blocks))
	xr = make([][]float64, len(lr.blocks))
	for b, fb := range lr.blocks {
		r, k := fb.blk.r, fb.k
		var cols [][]float64
		if k > 0 {
			l := mat.NewDense(r, k, z[fb.off:fb.off+r*k])
			for c := 0; c < k; c++ {
				cols = append(cols, mat.Col(nil, c, l))
			}
		}
		if k == 0 && len(rz[b].vecs) > 0 {
			cols = append(cols, rz[b].vecs[0])
		}
		bases[b] = orthonormalAppend(nil, cols)
		if bases[b] == nil {
			bases[b] = orthonormalAppend(nil, [][]float64{unit(r, 0)})
		}
		_, kb := bases[b].Dims()
		xr[b] = make([]float64, kb*kb)
		if k > 0 {
			l := mat.NewDense(r, k, z[fb.off:fb.off+r*k])
			var vl mat.Dense
			vl.Mul(bases[b].T(), l)
			mat.NewDense(kb, kb, xr[b]).Mul(&vl, vl.T())
		}
	}
	return bases, xr
}

// growSubspace adds to each block's basis the Ritz vectors of rzn whose
// curvature is below −growTol, and pads the restricted solution x (on
// blocks) with zeros into xr as the next round's start. It reports
// whether any basis grew.
func (lr *lowRank) growSubspace(bases []*mat.Dense, xr [][]float64, rzn []ritz, blocks []block, x []float64, tol float64) bool {
	tn := lr.p.tune.lowRank
	grown := false
	for b := range lr.blocks {
		var add [][]float64
		for i, th := range rzn[b].vals {
			if 1+th < -growTol(tn, tol) {
				add = append(add, rzn[b].vecs[i])
			}
		}
		if len(add) == 0 {
			continue
		}
		_, kOld := bases[b].Dims()
		bases[b] = orthonormalAppend(bases[b], add)
		_, kNew := bases[b].Dims()
		if kNew == kOld {
			continue
		}
		grown = true
		// The restricted solution, padded with zeros, starts the next
		// round.
		old := x[blocks[b].off : blocks[b].off+blocks[b].size]
		xr[b] = make([]float64, kNew*kNew)
		for i := 0; i < kOld; i++ {
			copy(xr[b][i*kNew:i*kNew+kOld], old[i*kOld:(i+1)*kOld])
		}
	}
	return grown
}

// restrictFeatures returns ΦV (n×k), the features of the block restricted
// to the subspace spanned by V's columns.
func restrictFeatures(blk *block, v *mat.Dense) *mat.Dense {
	_, k := v.Dims()
	if d := blk.phiDiag; d != nil { // phi may be nil (diagonalBlock)
		out := mat.NewDense(len(d), k, nil)
		for i := range d {
			row := out.RawRowView(i)
			floats.ScaleTo(row, d[i], v.RawRowView(i))
		}
		return out
	}
	var out mat.Dense
	out.Mul(blk.phi, v)
	return &out
}

// orthonormalAppend returns v (r×k, orthonormal columns; nil for none)
// with the vectors cols orthonormalised against it and each other by
// Gram–Schmidt, twice (Parlett's "twice is enough"); a vector whose
// remainder is below 1e-8 of its norm is dropped. It returns nil if the
// result has no column.
func orthonormalAppend(v *mat.Dense, cols [][]float64) *mat.Dense {
	var basis [][]float64
	if v != nil {
		_, k := v.Dims()
		for c := 0; c < k; c++ {
			basis = append(basis, mat.Col(nil, c, v))
		}
	}
	for _, col := range cols {
		u := append([]float64(nil), col...)
		norm := floats.Norm(u, 2)
		if norm == 0 {
			continue
		}
		for pass := 0; pass < 2; pass++ {
			for _, q := range basis {
				floats.AddScaled(u, -floats.Dot(q, u), q)
			}
		}
		if rest := floats.Norm(u, 2); rest > 1e-8*norm {
			floats.Scale(1/rest, u)
			basis = append(basis, u)
		}
	}
	if len(basis) == 0 {
		return nil
	}
	r := len(basis[0])
	out := mat.NewDense(r, len(basis), nil)
	for c, q := range basis {
		out.SetCol(c, q)
	}
	return out
}

// unit returns the r-vector e_i.
func unit(r, i int) []float64 {
	u := make([]float64, r)
	u[i] = 1
	return u
}

// liftFactors returns per block F = VC (r×k) with X = FFᵀ, where the
// restricted solution X̃ = CCᵀ (C from X̃'s eigenpairs above 1e-12 of the
// largest; k×k, cheap); nil for X̃ = 0.
func liftFactors(bases []*mat.Dense, pr *problem, xr []float64) []*mat.Dense {
	out := make([]*mat.Dense, len(bases))
	for b := range bases {
		rb := &pr.blocks[b]
		xb := xr[rb.off : rb.off+rb.size]
		if floats.Norm(xb, math.Inf(1)) == 0 {
			continue
		}
		vals, vecs := positiveEigen(mat.NewSymDense(rb.r, append([]float64(nil), xb...)), 1e-12, "a restricted solution")
		if len(vals) == 0 {
			continue
		}
		c := mat.NewDense(rb.r, len(vals), nil)
		for j, v := range vals {
			sv := math.Sqrt(v)
			for i := 0; i < rb.r; i++ {
				c.Set(i, j, vecs.At(i, j)*sv)
			}
		}
		var f mat.Dense
		f.Mul(bases[b], c)
		out[b] = &f
	}
	return out
}
