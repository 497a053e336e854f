package conic

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// NewtonSystem is the linear system of a Newton step, in one of three
// forms: NormalEquations, K×K for B given explicitly; PCGNormalEquations,
// the same solved by preconditioned conjugate gradients (pcg.go); or a
// PairOperator, |T|×|T| in comparison space (pairs.go). A Problem's System
// is one of them (its methods are the package's own).
type NewtonSystem interface {
	// mulB computes out = B x, mulBT out = Bᵀ a.
	mulB(cp *Problem, x, out []float64)
	mulBT(cp *Problem, a, out []float64)
	// factor forms and factors the Newton matrix of the step ns.
	factor(cp *Problem, ns *newtonStep) (*cholFactor, bool)
	// solve computes into d the Newton direction of the step ns for the
	// complementarity targets t. It reports false if the solve fails or
	// its result is not finite.
	solve(cp *Problem, ns *newtonStep, t targets, d direction) bool
}

// NormalEquations reduces the Newton system to the K×K normal matrix
//
//	M = 𝒲⁻¹ + Bᵀ diag(1/Δ) B,   Δ_c = ξ_c/(μ−α_c) + s_c/α_c,
//
// (K = dimension of x), for B given explicitly: small when the caller
// restricts x to a working subspace (pkg/mkpoe's restrict).
type NormalEquations struct {
	B *mat.Dense // |T|×K, row c is b_c

	// The K-space Newton matrix and its factors' inputs, kept between
	// iterations, and gram the last Newton matrix's part Bᵀ diag(1/Δ) B
	// (upper triangle), with which a solve recovers Bᵀ Δα (factor).
	w, m, gram []float64
	scaled     linalg.ScaledGram

	// pcg is the current step's preconditioned solve (pcg.go), nil when
	// the step's M was formed whole; stats counts them.
	pcg   *pcgStep
	stats PCGStats
}

// mulB computes out = B x. B is a whole mat.Dense (pkg/mkpoe's restrict),
// so its data are row-major with stride K. Split over the cores by rows,
// bit for bit the product of one call.
func (ne *NormalEquations) mulB(_ *Problem, x, out []float64) {
	nT, K := ne.B.Dims()
	linalg.MulVec(nT, K, ne.B.RawMatrix().Data, x, out)
}

// mulBT computes out = Bᵀ a: split over the cores by blocks of rows
// (linalg.MulTransVec), whose sums round differently from one product
// but never depend on the number of cores.
func (ne *NormalEquations) mulBT(_ *Problem, a, out []float64) {
	nT, K := ne.B.Dims()
	linalg.MulTransVec(nT, K, ne.B.RawMatrix().Data, a, out)
}

// factor forms and factors M = 𝒲⁻¹ + Bᵀ diag(1/Δ) B. Rows whose
// weight is below 1e-14 of the largest contribute nothing at double
// precision and are skipped.
func (ne *NormalEquations) factor(cp *Problem, ns *newtonStep) (*cholFactor, bool) {
	rows, _ := weightedRows(ns.delta)
	ne.pcg = nil
	return ne.factorWhole(cp, ns, rows)
}

// PCGNormalEquations is the third Newton system: NormalEquations whose
// K-space system is solved by conjugate gradients preconditioned by the
// rows of the largest weights (pcg.go) where forming M whole costs much
// more (K ≥ Settings.PCGMinDim), formed whole below that or when the
// conjugate gradients do not converge. pkg/mkpoe's low-rank method uses it
// for its restricted problems.
type PCGNormalEquations struct {
	NormalEquations
}

// factor forms and factors the preconditioner of the step ns, or M whole
// where the direct solve is taken for it (pcgFactor).
func (pe *PCGNormalEquations) factor(cp *Problem, ns *newtonStep) (*cholFactor, bool) {
	rows, maxW := weightedRows(ns.delta)
	pe.pcg = nil
	if f, ok := pe.pcgFactor(cp, ns, rows, maxW); ok {
		return f, true
	}
	pe.stats.Dense++
	return pe.factorWhole(cp, ns, rows)
}

// weightedRows returns the comparisons whose weight 1/Δ_c is at least
// 1e-14 of the largest, maxW.
func weightedRows(delta []float64) (rows []int, maxW float64) {
	for _, d := range delta {
		maxW = math.Max(maxW, 1/d)
	}
	for c, d := range delta {
		if 1/d >= 1e-14*maxW {
			rows = append(rows, c)
		}
	}
	return rows, maxW
}

// factorWhole forms and factors M over the rows (see factor).
func (ne *NormalEquations) factorWhole(cp *Problem, ns *newtonStep, rows []int) (*cholFactor, bool) {
	K := ne.prepare(rows, ns.delta)
	fill := func(md []float64) {
		// Only the upper triangle is formed and read (factorSPD).
		ne.scaled.Upper(ne.B.RawMatrix().Data, K, rows, ne.w, md)
		copy(ne.gram, md)
		ne.addScalingInverse(cp, ns, md)
	}
	fill(ne.m)
	return factorSPD(K, ne.m, fill)
}

// prepare sets ne.w to the rows' weights 1/√Δ_c (the rows of B a Newton
// matrix is formed from) and sizes ne.m and ne.gram for it, returning K.
// The scratch is reused across iterations: these are the largest
// allocations of the method, and reallocating them kept the garbage
// collector busy.
func (ne *NormalEquations) prepare(rows []int, delta []float64) int {
	_, K := ne.B.Dims()
	ne.w = linalg.Grow(ne.w, len(rows))
	for r, c := range rows {
		ne.w[r] = 1 / math.Sqrt(delta[c])
	}
	ne.m = linalg.Grow(ne.m, K*K)
	ne.gram = linalg.Grow(ne.gram, K*K)
	return K
}

// addScalingInverse adds 𝒲⁻¹ to the upper triangle of the K×K row-major
// md: z/x on orthants; W⁻¹ ⊗ₛ W⁻¹ on PSD blocks, W⁻¹ = G⁻ᵀG⁻¹.
func (ne *NormalEquations) addScalingInverse(cp *Problem, ns *newtonStep, md []float64) {
	nts, x, sd := ns.nts, ns.pt.x, ns.pt.sd
	_, K := ne.B.Dims()
	m := mat.NewSymDense(K, md)
	for b, bl := range cp.Blocks {
		if !bl.PSD {
			for t := 0; t < bl.K; t++ {
				i := bl.Off + t
				md[i*K+i] += sd[i] / x[i]
			}
			continue
		}
		addKronSym(m, bl.Off, bl.K, nts[b].winv)
	}
}

// solve computes the Newton direction from the normal equations
//
//	M Δx = 𝒲⁻¹ r_c − r_d − Bᵀh,   h = (r_p − r_ξ/(μ−α) + r_s/α)/Δ,
//
// then Δα = BΔx/Δ + h, ΔS = BᵀΔα + r_d, and Δξ, Δs from the box
// complementarity.
func (ne *NormalEquations) solve(cp *Problem, ns *newtonStep, t targets, d direction) bool {
	nT, K, mu := cp.NT, cp.Dim, cp.Mu
	pt, delta, rp, rd := ns.pt, ns.delta, ns.res.rp, ns.res.rd
	xi, sl, alpha := pt.xi, pt.sl, pt.alpha
	rc, rxi, rs := t.rc, t.rxi, t.rs
	h := make([]float64, nT)
	for c := range h {
		h[c] = (rp[c] - rxi[c]/(mu-alpha[c]) + rs[c]/alpha[c]) / delta[c]
	}
	rhs := make([]float64, K)
	cp.applyScaling(ns.nts, pt.x, pt.sd, rc, rhs, true)
	bth := make([]float64, K)
	cp.mulBT(h, bth)
	for k := range rhs {
		rhs[k] -= rd[k] + bth[k]
	}
	copy(d.x, rhs)
	st := ne.pcg
	if st != nil && st.ns != ns {
		st = nil
	}
	if st != nil && !ne.pcgSolve(cp.Settings, st, d.x) {
		// The conjugate gradients did not converge: form this step's M
		// whole after all.
		ne.stats.Fallbacks++
		ne.pcg, st = nil, nil
		rows, _ := weightedRows(delta)
		f, ok := ne.factorWhole(cp, ns, rows)
		if !ok {
			return false
		}
		ns.chol = f
		copy(d.x, rhs)
	}
	if st == nil && !ns.chol.solve(d.x) {
		return false
	}
	bdx := make([]float64, nT)
	cp.MulB(d.x, bdx)
	for c := range d.alpha {
		d.alpha[c] = bdx[c]/delta[c] + h[c]
		d.xi[c] = (rxi[c] + xi[c]*d.alpha[c]) / (mu - alpha[c])
		d.sl[c] = (rs[c] - sl[c]*d.alpha[c]) / alpha[c]
	}
	if st != nil {
		// ΔS = BᵀΔα + r_d by a product with B: P's Gram part is not M's.
		cp.mulBT(d.alpha, d.sd)
		for k := range d.sd {
			d.sd[k] += rd[k]
		}
		return allFinite(d.x)
	}
	// ΔS = Bᵀ Δα + r_d with Bᵀ Δα = Bᵀ diag(1/Δ) B Δx + Bᵀ h: the
	// Newton matrix's Gram part times Δx (a K×K product) instead
	// of a product with the |𝒞_w|×K matrix B, which is bound by
	// memory bandwidth (docs/solver.md, "Where the time goes").
	linalg.SymMulVec(K, ne.gram[:K*K], d.x, d.sd)
	for k := range d.sd {
		d.sd[k] += bth[k] + rd[k]
	}
	for _, v := range d.x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// addKronSym adds the svec matrix of Y ↦ A Y A (A symmetric k×k) to m at
// offset off: entry (ij, kl) = (A_ik A_jl + A_il A_jk)·s_ij·s_kl/2 with
// s = 1 on the diagonal and √2 off it.
func addKronSym(m *mat.SymDense, off, k int, a *mat.Dense) {
	type pos struct {
		i, j int
		s    float64
	}
	idx := make([]pos, 0, SvecLen(k))
	for i := 0; i < k; i++ {
		idx = append(idx, pos{i, i, 1})
		for j := i + 1; j < k; j++ {
			idx = append(idx, pos{i, j, math.Sqrt2})
		}
	}
	ad := a.RawMatrix()
	at := func(i, j int) float64 { return ad.Data[i*ad.Stride+j] }
	for p, pi := range idx {
		for q := p; q < len(idx); q++ {
			qi := idx[q]
			v := (at(pi.i, qi.i)*at(pi.j, qi.j) + at(pi.i, qi.j)*at(pi.j, qi.i)) * pi.s * qi.s / 2
			m.SetSym(off+p, off+q, m.At(off+p, off+q)+v)
		}
	}
}
