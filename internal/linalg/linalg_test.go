package linalg

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// TestSymEigen checks A V = V Λ, VᵀV = I and ascending eigenvalues on random
// symmetric matrices, a hand-computed 2×2 case, and that values alone match
// the values computed with vectors.
func TestSymEigen(t *testing.T) {
	// [[2,1],[1,2]]: eigenvalues 1 and 3, eigenvectors (1,−1)/√2, (1,1)/√2.
	a := []float64{2, 1, 1, 2}
	vals := make([]float64, 2)
	if !SymEigen(2, a, vals, true) {
		t.Fatal("2×2 did not converge")
	}
	if math.Abs(vals[0]-1) > 1e-14 || math.Abs(vals[1]-3) > 1e-14 {
		t.Fatalf("2×2 eigenvalues %v, want [1 3]", vals)
	}
	if r := math.Sqrt(0.5); math.Abs(math.Abs(a[0])-r) > 1e-14 || math.Abs(a[0]+a[2]) > 1e-14 || math.Abs(a[1]-a[3]) > 1e-14 {
		t.Fatalf("2×2 eigenvectors %v", a)
	}

	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{1, 3, 17, 120} {
		orig := make([]float64, n*n)
		for i := range n {
			for j := i; j < n; j++ {
				v := rng.NormFloat64()
				orig[i*n+j], orig[j*n+i] = v, v
			}
		}
		v := append([]float64(nil), orig...)
		vals := make([]float64, n)
		if !SymEigen(n, v, vals, true) {
			t.Fatalf("n=%d: did not converge", n)
		}
		tol := 1e-12 * float64(n)
		for k := range n {
			if k > 0 && vals[k] < vals[k-1] {
				t.Fatalf("n=%d: eigenvalues not ascending at %d", n, k)
			}
			for i := range n {
				av := 0.0
				for j := range n {
					av += orig[i*n+j] * v[j*n+k]
				}
				if math.Abs(av-vals[k]*v[i*n+k]) > tol {
					t.Fatalf("n=%d: (AV − VΛ)[%d,%d] = %g", n, i, k, av-vals[k]*v[i*n+k])
				}
			}
			for l := range n {
				dot := 0.0
				for i := range n {
					dot += v[i*n+k] * v[i*n+l]
				}
				want := 0.0
				if k == l {
					want = 1
				}
				if math.Abs(dot-want) > tol {
					t.Fatalf("n=%d: (VᵀV)[%d,%d] = %g", n, k, l, dot)
				}
			}
		}
		only := make([]float64, n)
		if !SymEigen(n, append([]float64(nil), orig...), only, false) {
			t.Fatalf("n=%d: values only did not converge", n)
		}
		for k := range n {
			if math.Abs(only[k]-vals[k]) > tol {
				t.Fatalf("n=%d: value %d is %g alone and %g with vectors", n, k, only[k], vals[k])
			}
		}
	}
}

// TestBackend checks that the build tag selected the backend CI asked for:
// MKPOE_EXPECT_BACKEND names it when set (CI runs the openblas build with it).
func TestBackend(t *testing.T) {
	want := os.Getenv("MKPOE_EXPECT_BACKEND")
	if want == "" {
		t.Skipf("backend %q; set MKPOE_EXPECT_BACKEND to check it", Backend())
	}
	if Backend() != want {
		t.Fatalf("backend %q, want %q", Backend(), want)
	}
}

// TestCholesky checks the factor of a hand-computed 2×2 case
// ([[4,2],[2,5]] = UᵀU with U = [[2,1],[0,2]]), that CholeskySolve inverts
// random SPD matrices (both the upper triangle only is read: the lower one
// holds garbage), and that indefinite matrices are refused.
func TestCholesky(t *testing.T) {
	a := []float64{4, 2, 99, 5}
	if !Cholesky(2, a) {
		t.Fatal("2×2 refused")
	}
	if a[0] != 2 || a[1] != 1 || a[3] != 2 {
		t.Fatalf("2×2 factor %v, want upper [2 1; · 2]", a)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 4, 33, 200} {
		g := make([]float64, n*n)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		orig := make([]float64, n*n) // GGᵀ + I
		for i := range n {
			for j := range n {
				s := 0.0
				for k := range n {
					s += g[i*n+k] * g[j*n+k]
				}
				if i == j {
					s++
				}
				orig[i*n+j] = s
			}
		}
		f := append([]float64(nil), orig...)
		for i := range n {
			for j := range i {
				f[i*n+j] = math.NaN() // lower triangle must not be read
			}
		}
		if !Cholesky(n, f) {
			t.Fatalf("n=%d: SPD matrix refused", n)
		}
		want := make([]float64, n)
		for i := range want {
			want[i] = rng.NormFloat64()
		}
		b := make([]float64, n)
		for i := range n {
			for j := range n {
				b[i] += orig[i*n+j] * want[j]
			}
		}
		CholeskySolve(n, f, b)
		for i := range n {
			if math.Abs(b[i]-want[i]) > 1e-8*(1+math.Abs(want[i])) {
				t.Fatalf("n=%d: solution[%d] = %g, want %g", n, i, b[i], want[i])
			}
		}
	}
	if Cholesky(2, []float64{1, 2, 2, 1}) {
		t.Fatal("indefinite [[1,2],[2,1]] accepted")
	}
}
