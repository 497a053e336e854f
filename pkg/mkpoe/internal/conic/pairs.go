package conic

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// The Newton system of ipm.go in comparison space, for full blocks
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

// PairOperator is the Newton system in comparison space (a NewtonSystem):
// it gives B through the item coordinates of each cone block (every block
// a PSD cone), every comparison being the difference of two item pairs.
type PairOperator struct {
	phi         []*mat.Dense // per cone block: n×r item coordinates
	pairs       []data.Pair  // distinct item pairs of the kept comparisons
	left, right []int32      // per kept comparison: its pairs' indices
	buf         []float64    // the |T|×|T| Newton matrix, reused across iterations
	items       []int32      // per kept comparison c: items i, j, k, l at 4c … 4c+3
	rows        [][]float64  // per cone block: its pair rows (pairRows), reused across iterations
	lowOrder    []float64    // the low-order blocks' comparison vectors (lowOrderRows), reused
	mixed       mixedState   // the Newton matrix's single-precision factorisation (chol.go)
}

// NewPairOperator returns the operator of blocks whose item coordinates are
// phi (per cone block, in the order of Problem.Blocks: n×K_b) over the
// distinct item pairs pairs, comparison c being pairs[left[c]] against
// pairs[right[c]].
func NewPairOperator(phi []*mat.Dense, pairs []data.Pair, left, right []int32) *PairOperator {
	return &PairOperator{phi: phi, pairs: pairs, left: left, right: right}
}

// MixedStats counts a run's single-precision factorisations of the
// comparison-space Newton matrix (chol.go) and their refinement steps,
// and reports whether single precision failed and the run fell back to
// double precision (for tests and measurements).
type MixedStats struct {
	Factored, Refined int
	Failed            bool
}

// MixedStats returns the counts of the Newton matrices factored through
// po so far.
func (po *PairOperator) MixedStats() MixedStats {
	return MixedStats{Factored: po.mixed.factored, Refined: po.mixed.refined, Failed: po.mixed.failed}
}

// mulB computes out_c = Σ_b ⟨A_c, X_b⟩ = Σ_b d_b(i,j) − d_b(k,l).
func (po *PairOperator) mulB(cp *Problem, x, out []float64) {
	for c := range out {
		out[c] = 0
	}
	dists := make([][]float64, len(cp.Blocks))
	cp.forPSDBlocks(func(q int) {
		bl := cp.Blocks[q]
		k := bl.K
		xm := make([]float64, k*k)
		SmatOf(k, x[bl.Off:bl.Off+bl.Size], xm)
		phi := po.phi[q]
		var f mat.Dense
		f.Mul(phi, mat.NewDense(k, k, xm))
		dists[q] = make([]float64, len(po.pairs))
		AddPairForms(phi, &f, po.pairs, dists[q])
	})
	for _, dist := range dists { // in block order, whatever the scheduling
		for c := range out {
			out[c] += dist[po.left[c]] - dist[po.right[c]]
		}
	}
}

// mulBT computes out = Bᵀa = svec(Φ_bᵀ S(a) Φ_b) per block, S(a) =
// Σ_c a_c (E_ij − E_kl).
func (po *PairOperator) mulBT(cp *Problem, a, out []float64) {
	pw := make([]float64, len(po.pairs))
	for c, v := range a {
		pw[po.left[c]] += v
		pw[po.right[c]] -= v
	}
	cp.forPSDBlocks(func(q int) {
		bl := cp.Blocks[q]
		k := bl.K
		phi := po.phi[q]
		n, _ := phi.Dims()
		tm := mat.NewDense(n, k, nil)
		AddPairDifferences(tm, phi, po.pairs, pw)
		var g mat.Dense
		g.Mul(phi.T(), tm)
		SvecOf(k, g.RawMatrix().Data, out[bl.Off:bl.Off+bl.Size])
	})
}

// factor forms and factors M_T = diag(Δ) + B 𝒲 Bᵀ (see above).
func (po *PairOperator) factor(cp *Problem, ns *newtonStep) (*cholFactor, bool) {
	nts, delta := ns.nts, ns.delta
	nT := cp.NT
	if len(po.buf) != nT*nT {
		po.buf = make([]float64, nT*nT)
	}
	if len(po.rows) != len(cp.Blocks) {
		po.rows = make([][]float64, len(cp.Blocks))
	}
	// Blocks of small order go through one matrix product (lowOrderRows),
	// the others through the look-ups of addBlocks (every block of a
	// pairConic is a PSD cone).
	cp.forPSDBlocks(func(q int) {
		if !cp.takesProduct(cp.Blocks[q]) {
			po.rows[q] = po.pairRows(po.rows[q], po.phi[q], nts[q].g)
		}
	})
	var low []int
	var qms [][]float64
	for q, bl := range cp.Blocks {
		if cp.takesProduct(bl) {
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
	return factorMixed(nT, po.buf, fill, &po.mixed, cp.Settings)
}

// pairRows returns, for a block's item coordinates phi and NT factor g,
// the rows H(e_a − e_b) of H = ΦGGᵀΦᵀ for every pair p = (a,b) (row-major,
// one row of length n per pair), so that the pair Gram value e_pᵀ H e_q
// is row_p[c] − row_p[d] for q = (c,d). It writes into dst, grown if
// needed (tens of megabytes per block at |T| ≈ 4400).
func (po *PairOperator) pairRows(dst []float64, phi, g *mat.Dense) []float64 {
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

// takesProduct reports whether a block's Newton-matrix terms are formed by
// lowOrderRows (its order is at most Settings.LowOrderMax).
func (cp *Problem) takesProduct(bl Block) bool { return bl.K <= cp.Settings.LowOrderMax }

// lowOrderRows writes into dst (grown if needed) the vectors y_c of the
// Newton-matrix terms of the blocks low, one row of length |T| per
// coordinate, and returns it with its number of rows. For a block with
// F = ΦG (n×k, W = GGᵀ its NT scaling) and a pair p = (a,b), let
// f_p = F_a − F_b and z_p = svec(f_p f_pᵀ) (off-diagonal entries times √2),
// so that ⟨z_p, z_q⟩ = (f_p·f_q)² = (e_pᵀ H e_q)²; a comparison's
// vector is y_c = z_ij − z_kl, and the block's term of the matrix is
// ⟨y_c, y_c'⟩ = a² − b² − d² + e² of addBlocks: the Gram matrix of the
// y_c, which linalg.GramUpperAdd forms at matrix-product speed.
func (po *PairOperator) lowOrderRows(dst []float64, cp *Problem, nts []ntBlock, low []int) ([]float64, int) {
	rows := 0
	for _, q := range low {
		_, k := nts[q].g.Dims()
		rows += SvecLen(k)
	}
	nT := len(po.left)
	dst = linalg.Grow(dst, rows*nT)
	off := 0
	for _, q := range low {
		var f mat.Dense
		f.Mul(po.phi[q], nts[q].g)
		fr := f.RawMatrix()
		k := fr.Cols
		m := SvecLen(k)
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
// SvecOf: row by row of the upper triangle, off-diagonal entries times √2).
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
func (po *PairOperator) addBlocks(md []float64, nT int, qms [][]float64) {
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

// solve computes the Newton direction in comparison space:
//
//	(Δ + B𝒲Bᵀ) Δα = h + B(r_c − 𝒲 r_d),   h = r_p − r_ξ/(μ−α) + r_s/α,
//	ΔS = BᵀΔα + r_d,   Δx = r_c − 𝒲 ΔS,
//
// then Δξ and Δs from the box complementarity (ipm.go). 𝒲 r_d is the
// same for every solve of the step: the first computes it (ns.wrd).
func (po *PairOperator) solve(cp *Problem, ns *newtonStep, t targets, d direction) bool {
	nT, K, mu := cp.NT, cp.Dim, cp.Mu
	if ns.wrd == nil {
		ns.wrd = make([]float64, K)
		cp.applyScaling(ns.nts, ns.pt.x, ns.pt.sd, ns.res.rd, ns.wrd, false)
	}
	pt, rp, rd := ns.pt, ns.res.rp, ns.res.rd
	xi, sl, alpha := pt.xi, pt.sl, pt.alpha
	rc, rxi, rs := t.rc, t.rxi, t.rs
	y := make([]float64, K)
	for k := range y {
		y[k] = rc[k] - ns.wrd[k]
	}
	by := make([]float64, nT)
	cp.MulB(y, by)
	rhs := make([]float64, nT)
	for c := range rhs {
		rhs[c] = rp[c] - rxi[c]/(mu-alpha[c]) + rs[c]/alpha[c] + by[c]
	}
	copy(d.alpha, rhs)
	if !ns.chol.solve(d.alpha) {
		return false
	}
	cp.mulBT(d.alpha, d.sd)
	for k := range d.sd {
		d.sd[k] += rd[k]
	}
	wds := make([]float64, K)
	cp.applyScaling(ns.nts, pt.x, pt.sd, d.sd, wds, false)
	for k := range d.x {
		d.x[k] = rc[k] - wds[k]
	}
	for c := range d.alpha {
		d.xi[c] = (rxi[c] + xi[c]*d.alpha[c]) / (mu - alpha[c])
		d.sl[c] = (rs[c] - sl[c]*d.alpha[c]) / alpha[c]
	}
	for _, v := range d.alpha {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// The pair kernels: B and Bᵀ of a block through its item coordinates
// (PairOperator), which pkg/mkpoe's distances and gradients use too.

// AddPairForms adds (φ_a − φ_b)ᵀ X (φ_a − φ_b) to dist[k] for every pair
// k = (a,b), given the item coordinates phi (n×r) and f = phi·X, X
// symmetric. It expands the form as
//
//	h_aa + h_bb − 2 h_ab,   h_ab = f_a·φ_b = φ_aᵀ X φ_b,
//
// one dot product per pair (gonum's assembly kernel) and n for the h_aa,
// instead of the subtractions and products of (f_a − f_b)·(φ_a − φ_b):
// 4–5× faster on the aset400-scale fixture (pkg/mkpoe's BenchmarkPairKernels/forms). The
// expansion loses up to about ε(h_aa + h_bb) to cancellation: h_aa ≤
// tr X·K_aa, so about 1e-9 at β = 1e7 for K_aa ≤ 1, against margins of
// order 1 (docs/solver.md, "Pair kernels").
func AddPairForms(phi, f *mat.Dense, pairs []data.Pair, dist []float64) {
	n, r := phi.Dims()
	pr, fr := phi.RawMatrix(), f.RawMatrix()
	h := make([]float64, n)
	for a := range h {
		h[a] = floats.Dot(fr.Data[a*fr.Stride:a*fr.Stride+r], pr.Data[a*pr.Stride:a*pr.Stride+r])
	}
	for k, q := range pairs {
		fa := fr.Data[q.A*fr.Stride : q.A*fr.Stride+r]
		pb := pr.Data[q.B*pr.Stride : q.B*pr.Stride+r]
		dist[k] += h[q.A] + h[q.B] - 2*floats.Dot(fa, pb)
	}
}

// AddPairDifferences adds S·phi to tm (both n×r), S = Σ_k pw_k E_ab over
// the pairs k = (a,b), E_ab = (e_a − e_b)(e_a − e_b)ᵀ: row a of S·phi is
// deg_a φ_a − Σ_k pw_k φ_b over the pairs k that hold a (the other item
// b), deg_a the sum of their weights. Two axpys per pair (gonum's assembly
// kernel) and one per item: about 3× faster than forming pw_k(φ_a − φ_b)
// element by element (pkg/mkpoe's BenchmarkPairKernels/differences).
func AddPairDifferences(tm, phi *mat.Dense, pairs []data.Pair, pw []float64) {
	n, r := phi.Dims()
	pr, tr := phi.RawMatrix(), tm.RawMatrix()
	deg := make([]float64, n)
	for k, q := range pairs {
		w := pw[k]
		if w == 0 {
			continue
		}
		deg[q.A] += w
		deg[q.B] += w
		floats.AddScaled(tr.Data[q.A*tr.Stride:q.A*tr.Stride+r], -w, pr.Data[q.B*pr.Stride:q.B*pr.Stride+r])
		floats.AddScaled(tr.Data[q.B*tr.Stride:q.B*tr.Stride+r], -w, pr.Data[q.A*pr.Stride:q.A*pr.Stride+r])
	}
	for a, d := range deg {
		if d != 0 {
			floats.AddScaled(tr.Data[a*tr.Stride:a*tr.Stride+r], d, pr.Data[a*pr.Stride:a*pr.Stride+r])
		}
	}
}
