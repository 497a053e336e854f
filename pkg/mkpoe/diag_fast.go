package mkpoe

import (
	"runtime"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"gonum.org/v1/gonum/floats"
)

// Fast kernels for diagonal blocks (Sec. 4.4), where
//
//	d(a,b) = Σ_t w_t (φ_at − φ_bt)²,   ∂/∂w_t Σ_c α_c m_c = Σ_pairs π_ab (φ_at − φ_bt)²
//
// with π the per-pair weights of S = Σ_c α_c (E_ij − E_kl).
//
// Measured on the aset400-scale fixture (n = 330, 5 kernels, 8.6k distinct
// pairs, β = 100): after a few dozen iterations only 25–60 of the 1650
// coordinates of w are non-zero (the LP optimum is sparse), while ~70% of the
// comparisons keep a non-zero multiplier. So the distances loop over the
// non-zero coordinates only (gathered, O(pairs·nnz(w))), and the gradient loops
// over the pairs with non-zero weight only, split across cores by coordinate
// range. Both expand the squares into products, so that gonum's assembly dot
// and axpy do the work (docs/solver.md, "Pair kernels").
//
// Determinism: every output element is computed by the same sequence of
// floating-point operations whatever the number of workers (the work is split
// by output index, never by summation index), so results do not depend on
// scheduling or GOMAXPROCS.

// parallelFor runs f(lo, hi) over [0, n) cut into at most
// runtime.GOMAXPROCS(0) contiguous chunks of at least minChunk, as tasks of
// linalg.Parallel, and waits. A fit running beside another one (the
// harness's workers hold linalg.Occupy) thus gets no helpers, as the rest
// of its parallel work does.
func parallelFor(n, minChunk int, f func(lo, hi int)) {
	chunks := min(runtime.GOMAXPROCS(0), n/minChunk)
	if chunks <= 1 {
		f(0, n)
		return
	}
	linalg.ParallelRows(n, (n+chunks-1)/chunks, func(_, lo, hi int) { f(lo, hi) })
}

// diagDistances adds Σ_t w_t (φ_at − φ_bt)² to dist[k] for every pair k of a
// diagonal block with weights w (length r). It gathers the coordinates with
// w_t ≠ 0 (P, n×s) and their weighted copy (U = P·diag(w)), and expands
//
//	d(a,b) = q_a + q_b − 2 U_a·P_b,   q_a = U_a·P_a,
//
// one dot product per pair (gonum's assembly kernel) instead of a
// subtraction and two products per coordinate: about 1.7× faster with w
// dense (BenchmarkPairKernels/diagDistances).
// With w ≥ 0 the expansion loses at most about ε(q_a + q_b).
func (p *problem) diagDistances(blk *block, w []float64, dist []float64, sc *diagScratch) {
	phi := blk.phi.RawMatrix()
	r := blk.r
	idx, val := sc.idx[:0], sc.val[:0]
	for t, wt := range w[:r] {
		if wt != 0 {
			idx = append(idx, t)
			val = append(val, wt)
		}
	}
	sc.idx, sc.val = idx, val
	s := len(idx)
	if s == 0 {
		return
	}
	n := p.n
	sc.p = linalg.Grow(sc.p, n*s)
	sc.u = linalg.Grow(sc.u, n*s)
	sc.q = linalg.Grow(sc.q, n)
	pm, um, q := sc.p, sc.u, sc.q
	parallelFor(n, 64, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			row := phi.Data[a*phi.Stride : a*phi.Stride+r]
			pa, ua := pm[a*s:(a+1)*s], um[a*s:(a+1)*s]
			for j, t := range idx {
				pa[j] = row[t]
				ua[j] = val[j] * row[t]
			}
			q[a] = floats.Dot(ua, pa)
		}
	})
	pairs := p.pairs
	parallelFor(len(pairs), 2048, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			a, b := pairs[k].A, pairs[k].B
			dist[k] += q[a] + q[b] - 2*floats.Dot(um[a*s:(a+1)*s], pm[b*s:(b+1)*s])
		}
	})
}

// diagScratch is diagDistances' buffers, kept in the workspace between
// calls: a first-order iteration computes the distances of every diagonal
// block, and allocating P and U (n×s each) every time was 60% of the bytes
// a cold diagonal fit allocated on the benchmark fixture.
type diagScratch struct {
	idx          []int
	val, p, u, q []float64
}

// diagGradient adds Σ_k π_k (φ_at − φ_bt)² to gb[t] for every coordinate t
// of a diagonal block; act lists the pairs with non-zero weight π. It
// expands the sum as
//
//	Σ_a deg_a φ_at² − 2 Σ_a φ_at Σ_{k: a_k = a} π_k φ_{b_k t},   deg_a = Σ_{k ∋ a} π_k,
//
// and accumulates the inner sums one item a at a time (problem.pairs are
// sorted by their first item) with gonum's assembly axpy, in a buffer that
// stays in the first-level cache. The cores split the coordinates
// (parallelFor); every g_t sees the same operations in the same order
// whatever the split. About 3× faster than adding π_k (φ_at − φ_bt)²
// element by element (BenchmarkPairKernels/diagGradient). The expansion
// loses about ε Σ_k |π_k| (φ_at² + φ_bt²) to cancellation.
func (p *problem) diagGradient(blk *block, act []int32, pw []float64, gb []float64) {
	phi := blk.phi.RawMatrix()
	data, stride := phi.Data, phi.Stride
	pairs := p.pairs
	deg := make([]float64, p.n)
	for _, k := range act {
		deg[pairs[k].A] += pw[k]
		deg[pairs[k].B] += pw[k]
	}
	parallelFor(blk.r, 64, func(lo, hi int) {
		g := gb[lo:hi]
		for a, d := range deg {
			if d == 0 {
				continue
			}
			for t, v := range data[a*stride+lo : a*stride+hi] {
				g[t] += d * v * v
			}
		}
		acc := make([]float64, hi-lo)
		flush := func(a int) {
			for t, v := range data[a*stride+lo : a*stride+hi] {
				g[t] -= 2 * v * acc[t]
				acc[t] = 0
			}
		}
		last := -1
		for _, k := range act {
			q := pairs[k]
			if q.A != last {
				if last >= 0 {
					flush(last)
				}
				last = q.A
			}
			floats.AddScaled(acc, pw[k], data[q.B*stride+lo:q.B*stride+hi])
		}
		if last >= 0 {
			flush(last)
		}
	})
}

// incState carries the last gradient of gradientIncremental.
type incState struct {
	valid bool
	calls int       // incremental updates since the last full evaluation
	pw    []float64 // per-pair weights of the last gradient
	g     []float64 // the last gradient
	d     []float64 // scratch: weight changes
	act   []int32
}

// gradientIncremental writes into g the same gradient as gradient, for
// problems whose blocks are all diagonal, by updating the previous one:
// the gradient is linear in the per-pair weights π, and between successive
// iterates only the comparisons whose margin lies in the Huber zone (0, δ),
// or crosses it, change their multiplier. On the benchmark fixture that is
// a few hundred of ~6000 weighted pairs once δ is small, so the update costs
// a fraction of a full evaluation. It falls back to a full evaluation every
// acceleratedTuning.incRefresh calls or when many weights changed. Used only for the descent
// steps; certificates always use a freshly computed gradient.
func (p *problem) gradientIncremental(ws *workspace, alpha, pw, g []float64) {
	st := &ws.inc
	if st.pw == nil {
		st.pw = make([]float64, len(p.pairs))
		st.d = make([]float64, len(p.pairs))
		st.g = make([]float64, p.dim)
	}
	if st.valid && st.calls < p.tune.accelerated.incRefresh {
		for k := range pw {
			pw[k] = 0
		}
		for c, a := range alpha {
			if a != 0 {
				pw[p.left[c]] += a
				pw[p.right[c]] -= a
			}
		}
		st.act = st.act[:0]
		nz := 0
		for k, w := range pw {
			if w != 0 {
				nz++
			}
			if d := w - st.pw[k]; d != 0 {
				st.d[k] = d
				st.act = append(st.act, int32(k))
			}
		}
		if 2*len(st.act) < nz {
			copy(g, st.g)
			for b := range p.blocks {
				blk := &p.blocks[b]
				p.diagGradient(blk, st.act, st.d, g[blk.off:blk.off+blk.size])
			}
			st.calls++
			copy(st.pw, pw)
			copy(st.g, g)
			return
		}
	}
	p.gradient(ws, alpha, pw, g)
	st.valid, st.calls = true, 0
	copy(st.pw, pw)
	copy(st.g, g)
}
