package eval

import (
	"fmt"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// Distance returns the squared distance between items i and j.
type Distance func(i, j int) float64

// Accuracy returns the fraction of comparisons (i,j,k,l) in cs with
// d(i,j) < d(k,l) strictly (ties are errors): GAUC of McFee & Lanckriet
// (2011, Appendix C, Eq. 18). It returns 0 for an empty cs. d must accept
// every index in cs.
func Accuracy(cs []data.Comparison, d Distance) float64 {
	if len(cs) == 0 {
		return 0
	}
	correct := 0
	for _, c := range cs {
		if d(c.I, c.J) < d(c.K, c.L) {
			correct++
		}
	}
	return float64(correct) / float64(len(cs))
}

// EmbeddingDistance returns the squared Euclidean distance between rows of
// the embedding x (one row per item).
func EmbeddingDistance(x mat.Matrix) Distance {
	return func(i, j int) float64 {
		_, c := x.Dims()
		s := 0.0
		for t := 0; t < c; t++ {
			v := x.At(i, t) - x.At(j, t)
			s += v * v
		}
		return s
	}
}

// NativeDistance returns the squared distance of a kernel's native feature
// space, d(i,j) = K_ii + K_jj − 2K_ij (the "Native" columns of McFee &
// Lanckriet 2011, Tables 1–3).
func NativeDistance(k mat.Symmetric) Distance {
	return func(i, j int) float64 { return k.At(i, i) + k.At(j, j) - 2*k.At(i, j) }
}

// NativeAccuracy is Accuracy in the native space of kernel k. It returns an
// error if a comparison names an item outside k.
func NativeAccuracy(k mat.Symmetric, cs []data.Comparison) (float64, error) {
	if err := data.ValidateComparisons(cs, k.SymmetricDim()); err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	return Accuracy(cs, NativeDistance(k)), nil
}
