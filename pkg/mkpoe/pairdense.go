package mkpoe

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// densePairs computes the factored methods' pair sums (pairloops.go) as
// matrix products, for item sets where most pairs are compared: with
// Lap(w) = Σ_q w_q (e_a − e_b)(e_a − e_b)ᵀ, the gradient's sum
// Σ_q 2w_q (y_a − y_b) into row a is 2·Lap(w)·Y, and a pair's
// directional derivative 2(y_a − y_b)·(u_a − u_b) is 2(G_aa − G_ab − G_ba
// + G_bb) with G = Y·Uᵀ. Forming Lap costs O(pairs) and the products
// O(n²k), against O(pairs·k) for the loops: with the OpenBLAS build and
// all pairs compared, the products are 2–4× faster (100 items at k = 76:
// 0.22 against 0.63–0.93 ms on one core); gonum's pure-Go products are
// not faster than the loops (lowRankTuning.denseMinFill). The distances
// of evaluate keep the loops: a difference of Gram entries would lose
// digits where two items are close, and the certificate needs exact
// margins.
type densePairs struct {
	n     int
	pairs []data.Pair
	lap   []float64 // n × 2n: [Lap(w) | Lap(v)] (row-major)
	g     []float64 // n × n: Y·Uᵀ
	stack []float64 // 2n × k: [U; Y]
	// wBuilt: lap's left half holds 2·Lap(w) of the pair weights last
	// given; lowRank.pairWeights clears it (weightsChanged) when they
	// change, so the Hessian products of one Newton step build it once.
	wBuilt bool
}

// newDensePairs returns the dense pair sums for n items and pairs when
// tn's rule holds for this build (denseMinFill of the n(n−1)/2 pairs
// compared, at most denseMaxItems items), else nil: the loops.
func newDensePairs(n int, pairs []data.Pair, tn lowRankTuning) *densePairs {
	if tn.denseMinFill <= 0 || n > tn.denseMaxItems || n < 2 || linalg.Backend() != "openblas" {
		return nil
	}
	if float64(len(pairs)) < tn.denseMinFill*float64(n*(n-1)/2) {
		return nil
	}
	return &densePairs{n: n, pairs: pairs, lap: make([]float64, 2*n*n), g: make([]float64, n*n)}
}

// weightsChanged marks lap's left half stale: the pair weights w changed.
func (d *densePairs) weightsChanged() { d.wBuilt = false }

// setW writes 2·Lap(w) into lap's left half, unless it holds it already
// (wBuilt: w unchanged since, as weightsChanged is told).
func (d *densePairs) setW(w []float64) {
	if d.wBuilt {
		return
	}
	d.fillHalf(0, w)
	d.wBuilt = true
}

// fillHalf writes 2·Lap(x) into lap's columns [off, off+n) (off 0: the
// left half, n: the right).
func (d *densePairs) fillHalf(off int, x []float64) {
	n := d.n
	for i := 0; i < n; i++ {
		clear(d.lap[i*2*n+off : i*2*n+off+n])
	}
	for q, pr := range d.pairs {
		if v := 2 * x[q]; v != 0 {
			a, b := pr.A*2*n+off, pr.B*2*n+off
			d.lap[a+pr.A] += v
			d.lap[b+pr.B] += v
			d.lap[a+pr.B] -= v
			d.lap[b+pr.A] -= v
		}
	}
}

// gradient adds Σ_q 2w_q(y_a − y_b) to row a of gy (and its negative to
// row b) for every pair: addEmbeddedGradient's sum, 2·Lap(w)·Y. w must
// be the weights last given unless weightsChanged was called since.
func (d *densePairs) gradient(y []float64, k int, w, gy []float64) {
	d.setW(w)
	d.mulRows(d.n, y, k, gy)
}

// gradientPair adds 2·Lap(w)·U + 2·Lap(v)·Y to gy: addEmbeddedGradientPair's
// sums, as one product of [2Lap(w) | 2Lap(v)] with [U; Y].
func (d *densePairs) gradientPair(u, y []float64, k int, w, v, gy []float64) {
	n := d.n
	d.setW(w)
	d.fillHalf(n, v)
	d.stack = resize(d.stack, 2*n*k)
	copy(d.stack, u[:n*k])
	copy(d.stack[n*k:], y[:n*k])
	d.mulRows(2*n, d.stack, k, gy)
}

// mulRows adds lap[:, :inner]·b (inner × k) to c (n × k), in two row
// halves on linalg.Parallel: each row is one product, so the numbers do
// not depend on who ran which half.
func (d *densePairs) mulRows(inner int, b []float64, k int, c []float64) {
	n, impl := d.n, blas64.Implementation()
	half := (n + 1) / 2
	linalg.ParallelRows(n, half, func(_, lo, hi int) {
		impl.Dgemm(blas.NoTrans, blas.NoTrans, hi-lo, k, inner, 1, d.lap[lo*2*n:], 2*n, b, k, 1, c[lo*k:], k)
	})
}

// directional adds 2(y_a − y_b)·(u_a − u_b) to dd[q] for every pair:
// addPairDirectional's sum, from G = Y·Uᵀ.
func (d *densePairs) directional(y, u []float64, k int, dd []float64) {
	n, impl := d.n, blas64.Implementation()
	half := (n + 1) / 2
	linalg.ParallelRows(n, half, func(_, lo, hi int) {
		impl.Dgemm(blas.NoTrans, blas.Trans, hi-lo, n, k, 1, y[lo*k:], k, u, k, 0, d.g[lo*n:], n)
	})
	g := d.g
	for q, pr := range d.pairs {
		a, b := pr.A*n, pr.B*n
		dd[q] += 2 * ((g[a+pr.A] - g[a+pr.B]) + (g[b+pr.B] - g[b+pr.A]))
	}
}
