//go:build !openblas

package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

const backend = "gonum"

func blasCore() string { return "" }

// symEigen is gonum's EigenSym (LAPACK dsyev translated to Go: tridiagonal
// QR iteration).
func symEigen(n int, a, vals []float64, vectors bool) bool {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, a[:n*n]), vectors) {
		return false
	}
	eig.Values(vals)
	if vectors {
		eig.VectorsTo(mat.NewDense(n, n, a[:n*n]))
	}
	return true
}

// cholesky is gonum's blocked dpotrf, or from tiledMinSize on
// choleskyTiled on gonum's kernels: 3.7–3.8 s against 5.8–6.1 s at
// n = 4400 on this machine's 2 cores (BenchmarkCholesky4400).
func cholesky(n int, a []float64) bool {
	if n >= tiledMinSize {
		return choleskyTiled(n, a, tiles64{})
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Data: a, Stride: n})
	return ok
}

// In this build the kernels of choleskyTiled are gonum's: dpotrf
// (potrfSingle in single precision), trsm, syrk and gemm.
var tileBLAS level3 = gonum.Implementation{}

func (tiles64) potrf(m int, a []float64, ld int) bool {
	return lapackgo.Implementation{}.Dpotrf(blas.Upper, m, a, ld)
}

// choleskySolve is gonum's dpotrs.
func choleskySolve(n int, a, b []float64) {
	lapack64.Potrs(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Data: a, Stride: n},
		blas64.General{Rows: n, Cols: 1, Data: b, Stride: 1})
}

// symEigenRange is the whole decomposition by symEigen, filtered.
func symEigenRange(n int, a []float64, vl, vu float64, vals, vecs []float64) (int, bool) {
	all := make([]float64, n)
	if !symEigen(n, a, all, true) {
		return 0, false
	}
	m := 0
	for k, v := range all {
		if v > vl && v <= vu {
			vals[m] = v
			for i := 0; i < n; i++ {
				vecs[m*n+i] = a[i*n+k]
			}
			m++
		}
	}
	return m, true
}

// gramPanel is the panel width of the pure-Go GramUpper: 64 ran faster
// than 128 (0.28 s against 0.34 s at r = 3902, n = 553).
const gramPanel = 64

// gramUpper computes the upper triangle of aᵀa panel by panel: the rows
// i0…i1−1 of the result, from its diagonal on, are one matrix product.
func gramUpper(r, n int, a, c []float64) {
	for i0 := 0; i0 < n; i0 += gramPanel {
		i1 := min(i0+gramPanel, n)
		left := blas64.General{Rows: r, Cols: i1 - i0, Stride: n, Data: a[i0:]}
		right := blas64.General{Rows: r, Cols: n - i0, Stride: n, Data: a[i0:]}
		out := blas64.General{Rows: i1 - i0, Cols: n - i0, Stride: n, Data: c[i0*n+i0:]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, left, right, 0, out)
	}
}

const fastSingle = false

// choleskySingle is a right-looking float32 Cholesky factorisation, row by
// row of U (the layout of cholesky), tiled from tiledMinSize on: a
// reference for tests, not tuned.
func choleskySingle(n int, a []float32) bool {
	if n >= tiledMinSize {
		return choleskyTiled(n, a, tiles32{})
	}
	return potrfSingle(n, a, n)
}

// potrfSingle factors the m×m float32 matrix a (leading dimension ld) in
// place, row by row of U.
func potrfSingle(m int, a []float32, ld int) bool {
	for k := 0; k < m; k++ {
		d := a[k*ld+k]
		if !(d > 0) || math.IsInf(float64(d), 0) {
			return false
		}
		u := float32(math.Sqrt(float64(d)))
		row := a[k*ld : k*ld+m]
		row[k] = u
		for j := k + 1; j < m; j++ {
			row[j] /= u
		}
		for i := k + 1; i < m; i++ {
			f := row[i]
			ri := a[i*ld : i*ld+m]
			for j := i; j < m; j++ {
				ri[j] -= f * row[j]
			}
		}
	}
	return true
}

func (tiles32) potrf(m int, a []float32, ld int) bool { return potrfSingle(m, a, ld) }

// choleskySolveSingle solves UᵀU x = b by the two triangular solves.
func choleskySolveSingle(n int, a, b []float32) {
	for k := 0; k < n; k++ { // Uᵀ y = b
		b[k] /= a[k*n+k]
		row := a[k*n : k*n+n]
		for j := k + 1; j < n; j++ {
			b[j] -= row[j] * b[k]
		}
	}
	for i := n - 1; i >= 0; i-- { // U x = y
		row := a[i*n : i*n+n]
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= row[j] * b[j]
		}
		b[i] = s / row[i]
	}
}
