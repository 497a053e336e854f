package linalg

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// normals returns n standard normal draws.
func normals(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// TestMatVecSplitIsExact checks that MulVec, split over the cores, gives
// bit for bit what one gonum Dgemv call gives, on shapes
// below and above the split threshold, with row counts that are and are
// not multiples of four.
func TestMatVecSplitIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{0, 5}, {5, 0}, {37, 29}, {101, 454}, {3902, 309}, {1027, 131}, {258, 257}, {4096, 17}} {
		r, k := sz[0], sz[1]
		a, x := normals(rng, r*k), normals(rng, k)
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

// TestMulTransVecBlocks checks MulTransVec against its definition (the
// blocks' products added in block order) bit for bit, with one core and
// with two, and against one Dgemv call to rounding.
func TestMulTransVecBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, sz := range [][2]int{{0, 5}, {5, 0}, {37, 29}, {101, 454}, {3902, 309}, {1027, 131}, {4096, 17}} {
		r, k := sz[0], sz[1]
		a, x := normals(rng, r*k), normals(rng, r)
		serial := make([]float64, k)
		if r > 0 && k > 0 {
			gonum.Implementation{}.Dgemv(blas.Trans, r, k, 1, a, k, x, 1, 0, serial, 1)
		}
		want := append([]float64(nil), serial...)
		if r*k >= parallelMatVecMin {
			clear(want)
			part := make([]float64, k)
			for i0 := 0; i0 < r; i0 += matVecRows {
				i1 := min(i0+matVecRows, r)
				gonum.Implementation{}.Dgemv(blas.Trans, i1-i0, k, 1, a[i0*k:], k, x[i0:i1], 1, 0, part, 1)
				for j := range want {
					if i0 == 0 {
						want[j] = part[j]
					} else {
						want[j] += part[j]
					}
				}
			}
		}
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			got := make([]float64, k)
			for j := range got {
				got[j] = math.NaN() // must be overwritten
			}
			MulTransVec(r, k, a, x, got)
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("%d×%d, GOMAXPROCS %d: entry %d is %v, the block sum %v", r, k, procs, j, got[j], want[j])
				}
				if d := math.Abs(got[j] - serial[j]); d > 1e-12*(1+math.Abs(serial[j]))*math.Sqrt(float64(r)) {
					t.Errorf("%d×%d: entry %d is %v, one Dgemv gives %v", r, k, j, got[j], serial[j])
				}
			}
		}
	}
}

// BenchmarkMatVec times MulVec and MulTransVec against one Dgemv call on
// the shape of the diagonal crossover's first Newton systems on the
// solver's benchmark fixture.
func BenchmarkMatVec(b *testing.B) {
	const r, k = 3902, 454
	a := make([]float64, r*k)
	for i := range a {
		a[i] = float64(i%97) * 0.01
	}
	short, long := make([]float64, k), make([]float64, r)
	for _, bc := range []struct {
		name string
		f    func()
	}{
		{"MulVec/serial", func() { gonum.Implementation{}.Dgemv(blas.NoTrans, r, k, 1, a, k, short, 1, 0, long, 1) }},
		{"MulVec/split", func() { MulVec(r, k, a, short, long) }},
		{"MulTransVec/serial", func() { gonum.Implementation{}.Dgemv(blas.Trans, r, k, 1, a, k, long, 1, 0, short, 1) }},
		{"MulTransVec/split", func() { MulTransVec(r, k, a, long, short) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bc.f()
			}
		})
	}
}
