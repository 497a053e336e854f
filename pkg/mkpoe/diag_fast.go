package mkpoe

import (
	"runtime"
	"sync"
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
// over the pairs with non-zero weight only, with a 4-way unrolled dense row
// update split across cores by coordinate range.
//
// Determinism: every output element is computed by the same sequence of
// floating-point operations whatever the number of workers (the work is split
// by output index, never by summation index), so results do not depend on
// scheduling or GOMAXPROCS.

// parallelFor runs f(lo, hi) over [0, n) split into at most
// runtime.GOMAXPROCS(0) contiguous chunks, and waits. Chunks smaller than
// minChunk are not split further.
func parallelFor(n, minChunk int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if max := n / minChunk; workers > max {
		workers = max
	}
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := step; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, hi)
	}
	f(0, min(step, n))
	wg.Wait()
}

// diagDistances adds Σ_t w_t (φ_at − φ_bt)² to dist[k] for every pair k of a
// diagonal block with weights w (length r).
func (p *problem) diagDistances(blk *block, w []float64, dist []float64) {
	phi := blk.phi.RawMatrix()
	r := blk.r
	var idx []int
	var val []float64
	for t, wt := range w[:r] {
		if wt != 0 {
			idx = append(idx, t)
			val = append(val, wt)
		}
	}
	if len(idx) == 0 {
		return
	}
	data, stride := phi.Data, phi.Stride
	pairs := p.pairs
	if 2*len(idx) < r {
		// Sparse w: gather the non-zero coordinates.
		parallelFor(len(pairs), 2048, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				q := pairs[k]
				ra := data[q.A*stride : q.A*stride+r]
				rb := data[q.B*stride : q.B*stride+r]
				s := 0.0
				for j, t := range idx {
					v := ra[t] - rb[t]
					s += val[j] * v * v
				}
				dist[k] += s
			}
		})
		return
	}
	parallelFor(len(pairs), 2048, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			q := pairs[k]
			dist[k] += weightedSqDist(w[:r], data[q.A*stride:q.A*stride+r], data[q.B*stride:q.B*stride+r])
		}
	})
}

// weightedSqDist returns Σ_t w_t (a_t − b_t)² (4-way unrolled).
func weightedSqDist(w, a, b []float64) float64 {
	n := len(w)
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float64
	t := 0
	for ; t+4 <= n; t += 4 {
		v0 := a[t] - b[t]
		v1 := a[t+1] - b[t+1]
		v2 := a[t+2] - b[t+2]
		v3 := a[t+3] - b[t+3]
		s0 += w[t] * v0 * v0
		s1 += w[t+1] * v1 * v1
		s2 += w[t+2] * v2 * v2
		s3 += w[t+3] * v3 * v3
	}
	for ; t < n; t++ {
		v := a[t] - b[t]
		s0 += w[t] * v * v
	}
	return (s0 + s1) + (s2 + s3)
}

// diagGradient adds Σ_k π_k (φ_at − φ_bt)² to gb[t] for every coordinate t
// of a diagonal block; act lists the pairs with non-zero weight π.
func (p *problem) diagGradient(blk *block, act []int32, pw []float64, gb []float64) {
	phi := blk.phi.RawMatrix()
	r := blk.r
	data, stride := phi.Data, phi.Stride
	pairs := p.pairs
	parallelFor(r, 64, func(lo, hi int) {
		g := gb[lo:hi]
		for _, k := range act {
			q := pairs[k]
			ra := data[q.A*stride+lo : q.A*stride+hi]
			rb := data[q.B*stride+lo : q.B*stride+hi]
			addWeightedSq(g, ra, rb, pw[k])
		}
	})
}

// addWeightedSq does g_t += w (a_t − b_t)² (4-way unrolled).
func addWeightedSq(g, a, b []float64, w float64) {
	n := len(g)
	a, b = a[:n], b[:n]
	t := 0
	for ; t+4 <= n; t += 4 {
		v0 := a[t] - b[t]
		v1 := a[t+1] - b[t+1]
		v2 := a[t+2] - b[t+2]
		v3 := a[t+3] - b[t+3]
		g[t] += w * v0 * v0
		g[t+1] += w * v1 * v1
		g[t+2] += w * v2 * v2
		g[t+3] += w * v3 * v3
	}
	for ; t < n; t++ {
		v := a[t] - b[t]
		g[t] += w * v * v
	}
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

// incRefresh bounds the number of incremental updates between full
// gradient evaluations, so rounding cannot accumulate.
const incRefresh = 16

// gradientIncremental writes into g the same gradient as gradient, for
// problems whose blocks are all diagonal, by updating the previous one:
// the gradient is linear in the per-pair weights π, and between successive
// iterates only the comparisons whose margin lies in the Huber zone (0, δ),
// or crosses it, change their multiplier. On the benchmark fixture that is
// a few hundred of ~6000 weighted pairs once δ is small, so the update costs
// a fraction of a full evaluation. It falls back to a full evaluation every
// incRefresh calls or when many weights changed. Used only for the descent
// steps; certificates always use a freshly computed gradient.
func (p *problem) gradientIncremental(ws *workspace, alpha, pw, g []float64) {
	st := &ws.inc
	if st.pw == nil {
		st.pw = make([]float64, len(p.pairs))
		st.d = make([]float64, len(p.pairs))
		st.g = make([]float64, p.dim)
	}
	if st.valid && st.calls < incRefresh {
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
