package mkpoe

import (
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// The factored methods' pair loops (lowRank.evaluate): distances and the
// gradient's pair sums over the rows of an embedding Y (n×k, row-major).
// They run in pairChunks fixed chunks of the pairs as tasks of
// linalg.Parallel, so a lone fit uses both cores and the numbers do not
// depend on who ran which chunk; the inner loops are unrolled by four
// (1.5× faster than one accumulator at k = 95 in pure Go).

// pairChunks is the number of chunks of a pair loop with at least
// chunkMinWork multiply-adds; smaller loops run whole.
const (
	pairChunks   = 4
	chunkMinWork = 1 << 16
)

// chunksOf returns how many chunks a loop over np pairs of width k takes.
func chunksOf(np, k int) int {
	if np*k < chunkMinWork || np < pairChunks {
		return 1
	}
	return pairChunks
}

// addEmbeddedDistances adds ‖y_a − y_b‖² (rows of the n×k matrix y) to
// dist[q] for every pair q = {a, b}.
func addEmbeddedDistances(y []float64, k int, pairs []data.Pair, dist []float64) {
	chunks := chunksOf(len(pairs), k)
	linalg.ParallelRows(len(pairs), (len(pairs)+chunks-1)/chunks, func(_, lo, hi int) {
		for q := lo; q < hi; q++ {
			pr := pairs[q]
			dist[q] += squaredDistance(y[pr.A*k:(pr.A+1)*k], y[pr.B*k:(pr.B+1)*k])
		}
	})
}

// squaredDistance returns ‖a − b‖² with four accumulators.
func squaredDistance(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	c := 0
	for ; c+4 <= len(a); c += 4 {
		t0, t1, t2, t3 := a[c]-b[c], a[c+1]-b[c+1], a[c+2]-b[c+2], a[c+3]-b[c+3]
		s0 += t0 * t0
		s1 += t1 * t1
		s2 += t2 * t2
		s3 += t3 * t3
	}
	for ; c < len(a); c++ {
		t := a[c] - b[c]
		s0 += t * t
	}
	return (s0 + s1) + (s2 + s3)
}

// addEmbeddedGradient adds ∂/∂Y of Σ_q w_q ‖y_a − y_b‖² to gy: 2w_q(y_a −
// y_b) to row a and its negative to row b.
func addEmbeddedGradient(y []float64, k int, pairs []data.Pair, w, gy []float64, parts [][]float64) [][]float64 {
	return accumulatePairs(len(pairs), k, gy, parts, func(out []float64, lo, hi int) {
		for q := lo; q < hi; q++ {
			if wq := w[q]; wq != 0 {
				pr := pairs[q]
				addScaledDifference(out[pr.A*k:(pr.A+1)*k], out[pr.B*k:(pr.B+1)*k], 2*wq, y[pr.A*k:(pr.A+1)*k], y[pr.B*k:(pr.B+1)*k])
			}
		}
	})
}

// addEmbeddedGradientPair is addEmbeddedGradient for two embeddings and
// two weight vectors in one pass over the pairs: it adds 2w_q(u_a − u_b) +
// 2v_q(y_a − y_b) to row a of gy and its negative to row b (the Hessian
// product's two terms, lowrank_newton.go). Pairs whose two weights are
// zero add nothing and are skipped.
func addEmbeddedGradientPair(u, y []float64, k int, pairs []data.Pair, w, v, gy []float64, parts [][]float64) [][]float64 {
	return accumulatePairs(len(pairs), 2*k, gy, parts, func(out []float64, lo, hi int) {
		for q := lo; q < hi; q++ {
			pr := pairs[q]
			switch {
			case v[q] != 0:
				addScaledDifferences(out[pr.A*k:(pr.A+1)*k], out[pr.B*k:(pr.B+1)*k], 2*w[q], u[pr.A*k:(pr.A+1)*k], u[pr.B*k:(pr.B+1)*k], 2*v[q], y[pr.A*k:(pr.A+1)*k], y[pr.B*k:(pr.B+1)*k])
			case w[q] != 0:
				addScaledDifference(out[pr.A*k:(pr.A+1)*k], out[pr.B*k:(pr.B+1)*k], 2*w[q], u[pr.A*k:(pr.A+1)*k], u[pr.B*k:(pr.B+1)*k])
			}
		}
	})
}

// accumulatePairs runs body over the pairs [lo, hi) of each chunk
// (chunksOf(np, width)), the first chunk adding into gy and the others
// into their own scratch rows (parts, grown as needed and returned), which
// are then added to gy in chunk order: the sums do not depend on which
// core ran which chunk.
func accumulatePairs(np, width int, gy []float64, parts [][]float64, body func(out []float64, lo, hi int)) [][]float64 {
	chunks := chunksOf(np, width)
	for len(parts) < chunks-1 {
		parts = append(parts, nil)
	}
	for t := range chunks - 1 {
		parts[t] = resize(parts[t], len(gy))
		clear(parts[t])
	}
	linalg.ParallelRows(np, (np+chunks-1)/chunks, func(t, lo, hi int) {
		out := gy
		if t > 0 {
			out = parts[t-1]
		}
		body(out, lo, hi)
	})
	for t := range chunks - 1 {
		for i, x := range parts[t] {
			gy[i] += x
		}
	}
	return parts
}

// addScaledDifferences adds s(a − b) + r(c − d) to ga and subtracts it
// from gb.
func addScaledDifferences(ga, gb []float64, s float64, a, b []float64, r float64, c, d []float64) {
	b, c, d, ga, gb = b[:len(a)], c[:len(a)], d[:len(a)], ga[:len(a)], gb[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		t0 := s*(a[i]-b[i]) + r*(c[i]-d[i])
		t1 := s*(a[i+1]-b[i+1]) + r*(c[i+1]-d[i+1])
		t2 := s*(a[i+2]-b[i+2]) + r*(c[i+2]-d[i+2])
		t3 := s*(a[i+3]-b[i+3]) + r*(c[i+3]-d[i+3])
		ga[i] += t0
		ga[i+1] += t1
		ga[i+2] += t2
		ga[i+3] += t3
		gb[i] -= t0
		gb[i+1] -= t1
		gb[i+2] -= t2
		gb[i+3] -= t3
	}
	for ; i < len(a); i++ {
		t := s*(a[i]-b[i]) + r*(c[i]-d[i])
		ga[i] += t
		gb[i] -= t
	}
}

// addScaledDifference adds s(a − b) to ga and subtracts it from gb.
func addScaledDifference(ga, gb []float64, s float64, a, b []float64) {
	b, ga, gb = b[:len(a)], ga[:len(a)], gb[:len(a)]
	c := 0
	for ; c+4 <= len(a); c += 4 {
		t0, t1, t2, t3 := s*(a[c]-b[c]), s*(a[c+1]-b[c+1]), s*(a[c+2]-b[c+2]), s*(a[c+3]-b[c+3])
		ga[c] += t0
		ga[c+1] += t1
		ga[c+2] += t2
		ga[c+3] += t3
		gb[c] -= t0
		gb[c+1] -= t1
		gb[c+2] -= t2
		gb[c+3] -= t3
	}
	for ; c < len(a); c++ {
		t := s * (a[c] - b[c])
		ga[c] += t
		gb[c] -= t
	}
}

// addPairDirectional adds 2(y_a − y_b)·(u_a − u_b), the derivative of
// ‖y_a − y_b‖² along u, to dd[q] for every pair q = {a, b} with need[q]
// (every pair if need is nil).
func addPairDirectional(y, u []float64, k int, pairs []data.Pair, need []bool, dd []float64) {
	chunks := chunksOf(len(pairs), k)
	linalg.ParallelRows(len(pairs), (len(pairs)+chunks-1)/chunks, func(_, lo, hi int) {
		for q := lo; q < hi; q++ {
			if need != nil && !need[q] {
				continue
			}
			pr := pairs[q]
			dd[q] += 2 * differenceDot(y[pr.A*k:(pr.A+1)*k], y[pr.B*k:(pr.B+1)*k], u[pr.A*k:(pr.A+1)*k], u[pr.B*k:(pr.B+1)*k])
		}
	})
}

// differenceDot returns (a − b)·(c − d) with four accumulators.
func differenceDot(a, b, c, d []float64) float64 {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += (a[i] - b[i]) * (c[i] - d[i])
		s1 += (a[i+1] - b[i+1]) * (c[i+1] - d[i+1])
		s2 += (a[i+2] - b[i+2]) * (c[i+2] - d[i+2])
		s3 += (a[i+3] - b[i+3]) * (c[i+3] - d[i+3])
	}
	for ; i < len(a); i++ {
		s0 += (a[i] - b[i]) * (c[i] - d[i])
	}
	return (s0 + s1) + (s2 + s3)
}
