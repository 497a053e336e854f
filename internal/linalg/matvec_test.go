package linalg

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestMatVecSplitIsExact checks that MulVec, split over the cores, gives
// bit for bit what one gonum Dgemv call gives, on shapes
// below and above the split threshold, with row counts that are and are
// not multiples of four.
func TestMatVecSplitIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{0, 5}, {5, 0}, {37, 29}, {101, 454}, {3902, 309}, {1027, 131}, {258, 257}, {4096, 17}} {
		r, k := sz[0], sz[1]
		a := make([]float64, r*k)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		x := make([]float64, k)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		want := make([]float64, r)
		got := make([]float64, r)
		if r > 0 && k > 0 {
			gonum.Implementation{}.Dgemv(blas.NoTrans, r, k, 1, a, k, x, 1, 0, want, 1)
		}
		MulVec(r, k, a, x, got)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("MulVec %d×%d: entry %d is %v, one Dgemv gives %v", r, k, i, got[i], want[i])
			}
		}
	}
}

func BenchmarkMulVec(b *testing.B) {
	const r, k = 3902, 454
	a := make([]float64, r*k)
	for i := range a {
		a[i] = float64(i%97) * 0.01
	}
	x, y := make([]float64, k), make([]float64, r)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			gonum.Implementation{}.Dgemv(blas.NoTrans, r, k, 1, a, k, x, 1, 0, y, 1)
		}
	})
	b.Run("split", func(b *testing.B) {
		for b.Loop() {
			MulVec(r, k, a, x, y)
		}
	})
}
