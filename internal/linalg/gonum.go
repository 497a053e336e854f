//go:build !openblas

package linalg

import "gonum.org/v1/gonum/mat"

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
