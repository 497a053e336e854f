package conic

import (
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// The K-space Newton solve by preconditioned conjugate gradients
// (PCGNormalEquations; docs/solver.md, "Low-rank method"). Forming
// M = 𝒲⁻¹ + Bᵀ diag(1/Δ) B costs |T|·K² multiply-adds, and late in an
// interior-point run the weights 1/Δ_c span many orders of magnitude: the
// comparisons at the hinge weigh most, those strictly satisfied or
// violated hardly at all. pcgFactor forms and factors only
//
//	P = 𝒲⁻¹ + Σ_{c ∈ R} (1/Δ_c) b_c b_cᵀ
//
// over the rows R of the largest weights, and pcgSolve solves M Δx = rhs
// by conjugate gradients preconditioned by P, with M applied exactly as
// P v + Σ_{c ∉ R} (1/Δ_c) b_c (b_cᵀ v): one pass over the other rows of B
// per product, O(|T|·K).

// PCGStats counts a PCGNormalEquations' iterative Newton solves (for tests and
// measurements).
type PCGStats struct {
	Steps      int // Newton steps preconditioned (P formed on part of the rows)
	Dense      int // Newton steps formed whole (PCG not worth it, or a fall back)
	Solves     int // PCG solves
	Iterations int // their conjugate-gradient iterations, in all
	MaxIter    int // the most of one solve
	Fallbacks  int // solves that did not converge and formed M whole
	PreRows    int // rows in the preconditioners, in all (Steps of them)
}

// PCGStats returns the counts of pe's iterative solves so far.
func (pe *PCGNormalEquations) PCGStats() PCGStats { return pe.stats }

// pcgStep is the state of one preconditioned Newton step.
type pcgStep struct {
	ns   *newtonStep
	chol *cholFactor
	p    []float64 // P, upper triangle (K×K row-major), for M v = P v + …
	rest []int     // the rows outside P (weight above 1e-14 of the largest)
	w    []float64 // their weights 1/Δ_c
}

// pcgFactor forms and factors the preconditioner P of the step ns from the
// rows (those of weight above 1e-14 of the largest maxW), or reports false
// when the direct solve is taken for this step.
func (ne *NormalEquations) pcgFactor(cp *Problem, ns *newtonStep, rows []int, maxW float64) (*cholFactor, bool) {
	_, K := ne.B.Dims()
	if K < cp.Settings.PCGMinDim {
		return nil, false
	}
	delta := ns.delta
	order := append([]int(nil), rows...)
	sort.SliceStable(order, func(a, b int) bool { return delta[order[a]] < delta[order[b]] })
	m := 0
	for m < len(order) && 1/delta[order[m]] >= cp.Settings.PCGRelWeight*maxW && float64(m) < cp.Settings.PCGMaxRows*float64(K) {
		m++
	}
	if 2*m > len(order) {
		return nil, false
	}
	pre := append([]int(nil), order[:m]...)
	sort.Ints(pre)
	rest := append([]int(nil), order[m:]...)
	sort.Ints(rest)
	ne.prepare(pre, delta)
	fill := func(md []float64) {
		if len(pre) > 0 {
			ne.scaled.Upper(ne.B.RawMatrix().Data, K, pre, ne.w, md)
		} else {
			for i := 0; i < K; i++ {
				clear(md[i*K+i : i*K+K])
			}
		}
		ne.addScalingInverse(cp, ns, md)
		copy(ne.gram, md)
	}
	fill(ne.m)
	chol, ok := factorSPD(K, ne.m, fill)
	if !ok {
		return nil, false
	}
	w := make([]float64, len(rest))
	for r, c := range rest {
		w[r] = 1 / delta[c]
	}
	ne.pcg = &pcgStep{ns: ns, chol: chol, p: ne.gram, rest: rest, w: w}
	ne.stats.Steps++
	ne.stats.PreRows += len(pre)
	return chol, true
}

// pcgRows is the rows of B per task of pcgMul (a multiple of four, like
// linalg's matVecRows; the partial sums are added in task order, so the
// product does not depend on the number of cores).
const pcgRows = 512

// pcgMul sets out = M v = P v + Σ_{c ∉ R} w_c b_c (b_cᵀ v), one pass over
// the rows outside P, split over the cores.
func (ne *NormalEquations) pcgMul(st *pcgStep, v, out, part []float64) {
	_, K := ne.B.Dims()
	bd := ne.B.RawMatrix().Data
	n := len(st.rest)
	tasks := (n + pcgRows - 1) / pcgRows
	linalg.ParallelRows(n, pcgRows, func(t, lo, hi int) {
		acc := part[t*K : (t+1)*K]
		clear(acc)
		for r := lo; r < hi; r++ {
			c := st.rest[r]
			row := bd[c*K : c*K+K]
			floats.AddScaled(acc, st.w[r]*floats.Dot(row, v), row)
		}
	})
	linalg.SymMulVec(K, st.p, v, out)
	for t := 0; t < tasks; t++ {
		floats.Add(out, part[t*K:(t+1)*K])
	}
}

// pcgSolve overwrites b with M⁻¹b by preconditioned conjugate gradients.
// It reports false if they do not reach Settings.PCGTol within
// PCGMaxIter iterations or the result is not finite.
func (ne *NormalEquations) pcgSolve(cs Settings, st *pcgStep, b []float64) bool {
	K := len(b)
	part := make([]float64, ((len(st.rest)+pcgRows-1)/pcgRows)*K)
	x := make([]float64, K)
	r := append([]float64(nil), b...)
	q := make([]float64, K)
	z := append([]float64(nil), r...)
	if !st.precondition(z) {
		return false
	}
	p := append([]float64(nil), z...)
	rz := floats.Dot(r, z)
	bn := floats.Norm(b, 2)
	ne.stats.Solves++
	if bn == 0 {
		clear(b)
		return true
	}
	for it := 1; it <= cs.PCGMaxIter; it++ {
		ne.pcgMul(st, p, q, part)
		pq := floats.Dot(p, q)
		if !(pq > 0) {
			return false
		}
		a := rz / pq
		floats.AddScaled(x, a, p)
		floats.AddScaled(r, -a, q)
		if floats.Norm(r, 2) <= cs.PCGTol*bn {
			ne.stats.Iterations += it
			ne.stats.MaxIter = max(ne.stats.MaxIter, it)
			copy(b, x)
			return allFinite(b)
		}
		copy(z, r)
		if !st.precondition(z) {
			return false
		}
		rzNew := floats.Dot(r, z)
		beta := rzNew / rz
		rz = rzNew
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	ne.stats.Iterations += cs.PCGMaxIter
	return false
}

// precondition overwrites z with P⁻¹z by two triangular solves with P's
// factor Uᵀ U (dtrsv: gonum's dpotrs goes through dtrsm, 6 ms a solve at
// K = 946 in pure Go against under 1 ms).
func (st *pcgStep) precondition(z []float64) bool {
	n := st.chol.n
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: st.chol.a}
	v := blas64.Vector{N: n, Inc: 1, Data: z}
	blas64.Trsv(blas.Trans, u, v)
	blas64.Trsv(blas.NoTrans, u, v)
	return allFinite(z)
}
