package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// MulVec sets y = A x for the row-major r×k matrix a: gonum's Dgemv (in
// both builds: the product is bound by memory bandwidth, and OpenBLAS's
// kernel was no faster on one core), split over the cores by Parallel
// into blocks of matVecRows rows from parallelMatVecMin entries on.
//
// The split does not change a single bit of the result. gonum's kernel
// works through the rows in groups of four from the first, each row's
// entry by the same operations, so blocks that start at a multiple of four
// rows compute every entry as one call would. TestMatVecSplitIsExact
// checks this, so a change of gonum's kernel that broke it would fail
// there instead of changing results silently. (The transposed product
// has no such split: gonum's kernel for Aᵀx split by columns ran no faster
// than one call, so MulTransVec splits by rows and rounds differently.)
func MulVec(r, k int, a, x, y []float64) {
	if len(a) < r*k || len(x) != k || len(y) != r {
		panic("linalg: MulVec: a needs r×k entries, x k and y r")
	}
	if r == 0 {
		return
	}
	if r*k < parallelMatVecMin {
		gonum.Implementation{}.Dgemv(blas.NoTrans, r, k, 1, a, max(k, 1), x, 1, 0, y, 1)
		return
	}
	ParallelRows(r, matVecRows, func(_, i0, i1 int) {
		gonum.Implementation{}.Dgemv(blas.NoTrans, i1-i0, k, 1, a[i0*k:], k, x, 1, 0, y[i0:i1], 1)
	})
}

// matVecRows must be a multiple of four (see MulVec); MulTransVec's
// results depend on it. parallelMatVecMin: below 2¹⁶ entries (0.5 MB,
// tens of µs) a product is not worth splitting.
const (
	matVecRows        = 256
	parallelMatVecMin = 1 << 16
)

// MulTransVec sets y = Aᵀ x for the row-major r×k matrix a. From
// parallelMatVecMin entries on, the rows are cut into blocks of
// matVecRows, each block's product Aᵢᵀxᵢ is gonum's Dgemv, the blocks
// spread over the cores by Parallel, and their products are added in
// block order. The result therefore differs in rounding from one Dgemv
// call, but depends only on r and k, never on the number of cores
// (TestMulTransVecBlocks). On 3902×454, the diagonal crossover's first
// Newton systems on the benchmark fixture, it took 0.40–0.42 ms against
// 0.60–0.68 ms for one call, and MulVec 0.37–0.40 ms against 0.58–0.65 ms
// (two cores, BenchmarkMatVec).
func MulTransVec(r, k int, a, x, y []float64) {
	if len(a) < r*k || len(x) != r || len(y) != k {
		panic("linalg: MulTransVec: a needs r×k entries, x r and y k")
	}
	if k == 0 {
		return
	}
	if r == 0 {
		clear(y)
		return
	}
	if r*k < parallelMatVecMin {
		gonum.Implementation{}.Dgemv(blas.Trans, r, k, 1, a, k, x, 1, 0, y, 1)
		return
	}
	blocks := (r + matVecRows - 1) / matVecRows
	part := make([]float64, blocks*k)
	ParallelRows(r, matVecRows, func(t, i0, i1 int) {
		gonum.Implementation{}.Dgemv(blas.Trans, i1-i0, k, 1, a[i0*k:], k, x[i0:i1], 1, 0, part[t*k:(t+1)*k], 1)
	})
	copy(y, part[:k])
	for t := 1; t < blocks; t++ {
		for j, v := range part[t*k : (t+1)*k] {
			y[j] += v
		}
	}
}
