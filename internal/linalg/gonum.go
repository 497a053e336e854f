//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

const backend = "gonum"

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

// cholesky is gonum's blocked dpotrf.
func cholesky(n int, a []float64) bool {
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Data: a, Stride: n})
	return ok
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
