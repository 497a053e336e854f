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
// Aᵀx has no such split: by columns it ran no faster, and by rows it would
// sum partial results in a new order.)
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
	Parallel((r+matVecRows-1)/matVecRows, func(t int) {
		i0 := t * matVecRows
		i1 := min(i0+matVecRows, r)
		gonum.Implementation{}.Dgemv(blas.NoTrans, i1-i0, k, 1, a[i0*k:], k, x, 1, 0, y[i0:i1], 1)
	})
}

// matVecRows must be a multiple of four (see MulVec). parallelMatVecMin:
// below about 2¹⁶ entries (0.5 MB, tens of µs) a product is not worth
// splitting.
const (
	matVecRows        = 256
	matVecCols        = 456
	parallelMatVecMin = 1 << 16
)
