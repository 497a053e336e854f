package kernels

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// FeatureGram is the linear kernel's Gram matrix K = XXᵀ of the rows of an
// n×D feature matrix X, held as X: n·D numbers instead of n², each entry
// computed when read, k_ij = x_iᵀx_j, the value [Linear]'s Gram holds
// (unnormalised, no missing item). It suits readers of a few entries,
// such as the native space's distances of held-out comparisons; a solver
// that reads every entry several times is better served by the dense Gram.
// It implements mat.Symmetric and must not be modified.
type FeatureGram struct {
	x *mat.Dense
}

// NewFeatureGram returns the linear Gram of the rows of x (a private
// copy). It returns an error for an empty or non-finite x.
func NewFeatureGram(x *mat.Dense) (*FeatureGram, error) {
	if x == nil {
		return nil, fmt.Errorf("kernels: linear kernel needs Input.Features (an n×D matrix)")
	}
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("kernels: linear kernel needs a non-empty feature matrix, got %d×%d", n, d)
	}
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("kernels: linear: feature %d of item %d is %v", j, i, v)
			}
		}
	}
	return &FeatureGram{x: mat.DenseCopyOf(x)}, nil
}

// Dims implements mat.Matrix.
func (g *FeatureGram) Dims() (int, int) {
	n, _ := g.x.Dims()
	return n, n
}

// SymmetricDim implements mat.Symmetric.
func (g *FeatureGram) SymmetricDim() int {
	n, _ := g.x.Dims()
	return n
}

// At implements mat.Matrix: x_iᵀx_j.
func (g *FeatureGram) At(i, j int) float64 {
	return dot(g.x.RawRowView(i), g.x.RawRowView(j))
}

// T implements mat.Matrix: K is symmetric.
func (g *FeatureGram) T() mat.Matrix { return g }

// Cross returns the t×n linear kernel values of the rows of test against
// the training rows and the t self-similarities, as [Linear]'s fitted
// kernel gives them (unnormalised, no missing item).
func (g *FeatureGram) Cross(test *mat.Dense) (*mat.Dense, []float64, error) {
	n, d := g.x.Dims()
	t, dt := test.Dims()
	if dt != d {
		return nil, nil, fmt.Errorf("kernels: linear: new items have %d features but the training items have %d", dt, d)
	}
	rows := mat.NewDense(t, n, nil)
	self := make([]float64, t)
	for r := 0; r < t; r++ {
		x := test.RawRowView(r)
		self[r] = dot(x, x)
		row := rows.RawRowView(r)
		for j := range row {
			row[j] = dot(x, g.x.RawRowView(j))
		}
	}
	return rows, self, nil
}
