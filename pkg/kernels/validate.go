package kernels

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Sentinel errors of [ValidateGram]; test with errors.Is.
var (
	ErrNotSymmetric = errors.New("kernels: Gram matrix is not symmetric")
	ErrNotPSD       = errors.New("kernels: Gram matrix is not positive semi-definite")
)

// DefaultTol is the relative tolerance [ValidateGram] uses when tol is 0.
const DefaultTol = 1e-9

// MinEigenvalue returns the smallest eigenvalue of the symmetric matrix k.
// It returns an error if k is empty or the eigendecomposition fails.
func MinEigenvalue(k mat.Symmetric) (float64, error) {
	if k.SymmetricDim() == 0 {
		return 0, errors.New("kernels: MinEigenvalue of an empty matrix")
	}
	var e mat.EigenSym
	if !e.Factorize(k, false) {
		return 0, errors.New("kernels: eigendecomposition did not converge")
	}
	return e.Values(nil)[0], nil // ascending
}

// ValidateGram checks that k is a square matrix of finite values, symmetric
// (|K_ij − K_ji| ≤ tol·s) and positive semi-definite (smallest eigenvalue
// ≥ −tol·n·s), where s = max(1, max_ij |K_ij|) and n is the size. tol = 0
// means [DefaultTol]. The error wraps [ErrNotSymmetric] or [ErrNotPSD] and
// names the offending entry or eigenvalue.
func ValidateGram(k mat.Matrix, tol float64) error {
	if tol == 0 {
		tol = DefaultTol
	}
	if !(tol > 0) {
		return fmt.Errorf("kernels: ValidateGram: tol must be ≥ 0, got %v", tol)
	}
	r, c := k.Dims()
	if r != c {
		return fmt.Errorf("kernels: Gram matrix must be square, got %d×%d", r, c)
	}
	if r == 0 {
		return errors.New("kernels: Gram matrix is empty")
	}
	s := 1.0
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			v := k.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("kernels: Gram matrix must be finite, got %v at (%d, %d)", v, i, j)
			}
			s = math.Max(s, math.Abs(v))
		}
	}
	sym := mat.NewSymDense(r, nil)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			a, b := k.At(i, j), k.At(j, i)
			if math.Abs(a-b) > tol*s {
				return fmt.Errorf("%w: K[%d][%d] = %g but K[%d][%d] = %g (tolerance %.3g)", ErrNotSymmetric, i, j, a, j, i, b, tol*s)
			}
			sym.SetSym(i, j, (a+b)/2)
		}
	}
	min, err := MinEigenvalue(sym)
	if err != nil {
		return err
	}
	if min < -tol*float64(r)*s {
		return fmt.Errorf("%w: smallest eigenvalue %g < −%.3g", ErrNotPSD, min, tol*float64(r)*s)
	}
	return nil
}
