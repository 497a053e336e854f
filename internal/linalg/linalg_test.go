package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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
		orig := randomSymmetric(rng, n)
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
	// OpenBLAS names the kernels it chose; the pure-Go build has none.
	if core := BLASCore(); (core != "") != (want == "openblas") {
		t.Fatalf("backend %q: BLASCore() = %q", want, core)
	}
	t.Logf("backend %q, BLAS core %q", Backend(), BLASCore())
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
	for _, n := range []int{1, 4, 33, 200, 700} { // 700: tiled
		orig := spdPlusIdentity(rng, n)
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

// TestCholeskySingle checks the single-precision factorisation like
// TestCholesky (a hand-computed 2×2, random GGᵀ + I solved to float32
// accuracy, an indefinite matrix refused), and SymMulVec against the plain
// product, both reading only the upper triangle.
func TestCholeskySingle(t *testing.T) {
	a := []float32{4, 2, 99, 5}
	if !CholeskySingle(2, a) {
		t.Fatal("2×2 refused")
	}
	if a[0] != 2 || a[1] != 1 || a[3] != 2 {
		t.Fatalf("2×2 factor %v, want upper [2 1; · 2]", a)
	}
	rng := rand.New(rand.NewPCG(7, 12))
	for _, n := range []int{1, 4, 33, 300, 700} { // 700: tiled
		orig := spdPlusIdentity(rng, n)
		f := make([]float32, n*n)
		upper := make([]float64, n*n)
		for i := range n {
			for j := range n {
				if j < i {
					f[i*n+j] = float32(math.NaN()) // lower triangle must not be read
					upper[i*n+j] = math.NaN()
					continue
				}
				f[i*n+j] = float32(orig[i*n+j])
				upper[i*n+j] = orig[i*n+j]
			}
		}
		if !CholeskySingle(n, f) {
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
		y := make([]float64, n)
		SymMulVec(n, upper, want, y)
		for i := range n {
			if math.Abs(y[i]-b[i]) > 1e-12*(1+math.Abs(b[i])) {
				t.Fatalf("n=%d: SymMulVec[%d] = %g, want %g", n, i, y[i], b[i])
			}
		}
		bs := make([]float32, n)
		for i, v := range b {
			bs[i] = float32(v)
		}
		CholeskySolveSingle(n, f, bs)
		// κ(GGᵀ + I) is about 4n here: float32 keeps 3-4 digits at n = 700.
		for i := range n {
			if math.Abs(float64(bs[i])-want[i]) > 2e-3*(1+math.Abs(want[i])) {
				t.Fatalf("n=%d: solution[%d] = %g, want %g", n, i, bs[i], want[i])
			}
		}
	}
	if CholeskySingle(2, []float32{1, 2, 2, 1}) {
		t.Fatal("indefinite [[1,2],[2,1]] accepted")
	}
}

// TestCholeskyTiled checks choleskyTiled, in both precisions, against the
// backend's own one-call factorisation of the whole matrix, at orders
// around the tile width (one tile and one row, whole tiles and a
// remainder); that it reads only the upper triangle; that the factor is
// the same bit for bit with 1 and 3 workers; and that a matrix that turns
// indefinite, or NaN, only in its last tile is refused.
func TestCholeskyTiled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for _, n := range []int{tileSize + 1, 2*tileSize + 88, 4*tileSize + 6} {
		orig := spdPlusIdentity(rng, n)
		want := append([]float64(nil), orig...)
		if !(tiles64{}).potrf(n, want, n) {
			t.Fatalf("n=%d: reference refused", n)
		}
		wantS := make([]float32, n*n)
		for i, v := range orig {
			wantS[i] = float32(v)
		}
		if !(tiles32{}).potrf(n, wantS, n) {
			t.Fatalf("n=%d: single reference refused", n)
		}
		var first64 []float64
		var first32 []float32
		for _, workers := range []int{1, 3} {
			prev := runtime.GOMAXPROCS(workers)
			f := append([]float64(nil), orig...)
			fs := make([]float32, n*n)
			for i := range n {
				for j := range n {
					fs[i*n+j] = float32(orig[i*n+j])
					if j < i {
						f[i*n+j], fs[i*n+j] = math.NaN(), float32(math.NaN())
					}
				}
			}
			ok64, ok32 := choleskyTiled(n, f, tiles64{}), choleskyTiled(n, fs, tiles32{})
			runtime.GOMAXPROCS(prev)
			if !ok64 || !ok32 {
				t.Fatalf("n=%d, %d workers: SPD matrix refused (double %v, single %v)", n, workers, ok64, ok32)
			}
			for i := range n {
				for j := i; j < n; j++ {
					k := i*n + j
					scale := math.Sqrt(orig[i*n+i]) // |U_ij| ≤ √A_ii
					if d := math.Abs(f[k] - want[k]); d > 1e-12*scale {
						t.Fatalf("n=%d, %d workers: U[%d,%d] = %g, one-call factor %g", n, workers, i, j, f[k], want[k])
					}
					if d := math.Abs(float64(fs[k] - wantS[k])); d > 1e-4*scale {
						t.Fatalf("n=%d, %d workers: single U[%d,%d] = %g, one-call factor %g", n, workers, i, j, fs[k], wantS[k])
					}
				}
			}
			if first64 == nil {
				first64, first32 = f, fs
				continue
			}
			for k := range f {
				if (f[k] != first64[k] && !math.IsNaN(f[k])) || (fs[k] != first32[k] && fs[k] == fs[k]) {
					t.Fatalf("n=%d: entry %d differs between 1 and %d workers", n, k, workers)
				}
			}
		}
	}

	n := 2*tileSize + 88
	for _, last := range []float64{-1, math.NaN()} {
		a := make([]float64, n*n)
		for i := range n {
			a[i*n+i] = 1
		}
		a[(n-3)*n+n-3] = last
		as := make([]float32, n*n)
		for i, v := range a {
			as[i] = float32(v)
		}
		if choleskyTiled(n, a, tiles64{}) || choleskyTiled(n, as, tiles32{}) {
			t.Fatalf("identity with diagonal entry %d = %g accepted", n-3, last)
		}
	}
}

// spdPlusIdentity is GGᵀ + I for an n×n standard normal G (row-major).
func spdPlusIdentity(rng *rand.Rand, n int) []float64 {
	g := make([]float64, n*n)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			s := 0.0
			for k := range n {
				s += g[i*n+k] * g[j*n+k]
			}
			if i == j {
				s++
			}
			a[i*n+j] = s
		}
	}
	return a
}

// TestSymEigenRange checks that the eigenpairs of a range are exactly those
// of the whole decomposition in that range, with A v = λ v.
func TestSymEigenRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{1, 2, 9, 40, 150} {
		orig := randomSymmetric(rng, n)
		all := make([]float64, n)
		if !SymEigen(n, append([]float64(nil), orig...), all, false) {
			t.Fatal("SymEigen failed")
		}
		big := 10 * float64(n)
		for _, r := range [][2]float64{{0, big}, {-big, 0}, {-0.5, 0.5}, {big, 2 * big}} {
			vals, vecs := make([]float64, n), make([]float64, n*n)
			m, ok := SymEigenRange(n, append([]float64(nil), orig...), r[0], r[1], vals, vecs)
			if !ok {
				t.Fatalf("n=%d range %v: did not converge", n, r)
			}
			var want []float64
			for _, v := range all {
				if v > r[0] && v <= r[1] {
					want = append(want, v)
				}
			}
			if m != len(want) {
				t.Fatalf("n=%d range %v: %d eigenvalues, want %d", n, r, m, len(want))
			}
			checkEigenpairs(t, fmt.Sprintf("n=%d range %v", n, r), orig, n, vals[:m], vecs, want)
		}
	}
}

// benchmarkProjection times the two ways of projecting a 330×330 matrix
// with the given fraction of positive eigenvalues: the whole
// decomposition, or only the positive eigenpairs.
func benchmarkProjection(b *testing.B, positive float64, rangeOnly bool) {
	const n = 330
	rng := rand.New(rand.NewPCG(1, 1))
	q := make([]float64, n*n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	// A = Q D Qᵀ with a random orthogonal-ish Q is costly to build; a
	// random symmetric matrix shifted puts about the wanted fraction of
	// its spectrum above zero (semicircle of radius 2√n).
	a := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			v := q[i*n+j]
			a[i*n+j], a[j*n+i] = v, v
		}
		a[i*n+i] += 2 * math.Sqrt(n) * (2*positive - 1)
	}
	work := make([]float64, n*n)
	vals, vecs := make([]float64, n), make([]float64, n*n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(work, a)
		if rangeOnly {
			SymEigenRange(n, work, 0, 1e6, vals, vecs)
		} else {
			SymEigen(n, work, vals, true)
		}
	}
}

func BenchmarkProjection330_Whole_10pct(b *testing.B) { benchmarkProjection(b, 0.1, false) }
func BenchmarkProjection330_Range_10pct(b *testing.B) { benchmarkProjection(b, 0.1, true) }
func BenchmarkProjection330_Range_50pct(b *testing.B) { benchmarkProjection(b, 0.5, true) }
func BenchmarkProjection330_Range_25pct(b *testing.B) { benchmarkProjection(b, 0.25, true) }
func BenchmarkProjection330_Range_3pct(b *testing.B)  { benchmarkProjection(b, 0.03, true) }

// TestGramUpper checks the upper triangle of aᵀa (GramUpper) and of
// c + aᵀa (GramUpperAdd) against sums computed term by term, on
// hand-computed cases and on random shapes on either side of the pure-Go
// panel width (64) and of the OpenBLAS build's tiling (from 256 columns),
// including no rows (a zero upper triangle over garbage, or c unchanged).
func TestGramUpper(t *testing.T) {
	// a = [[1,2],[3,4]]: aᵀa = [[10,14],[14,20]].
	c := []float64{-1, -1, -1, -1}
	GramUpper(2, 2, []float64{1, 2, 3, 4}, c)
	if c[0] != 10 || c[1] != 14 || c[3] != 20 {
		t.Fatalf("2×2: upper triangle %v, want [10 14; · 20]", c)
	}
	// GramUpperAdd adds: [[1,1],[·,1]] + aᵀa.
	c = []float64{1, 1, 1, 1}
	GramUpperAdd(2, 2, []float64{1, 2, 3, 4}, c)
	if c[0] != 11 || c[1] != 15 || c[3] != 21 {
		t.Fatalf("2×2 add: upper triangle %v, want [11 15; · 21]", c)
	}
	rng := rand.New(rand.NewPCG(3, 9))
	for _, shape := range []struct{ r, n int }{{0, 5}, {1, 1}, {7, 3}, {50, 64}, {130, 65}, {300, 150}, {200, 2*128 + 30}} {
		a := make([]float64, shape.r*shape.n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for _, add := range []bool{false, true} {
			c := make([]float64, shape.n*shape.n)
			start := make([]float64, len(c))
			for i := range c {
				c[i] = math.NaN() // GramUpper must overwrite the upper triangle
				if add {
					start[i] = rng.NormFloat64()
					c[i] = start[i]
				}
			}
			if add {
				GramUpperAdd(shape.r, shape.n, a, c)
			} else {
				GramUpper(shape.r, shape.n, a, c)
			}
			for i := range shape.n {
				for j := i; j < shape.n; j++ {
					want := start[i*shape.n+j]
					for k := range shape.r {
						want += a[k*shape.n+i] * a[k*shape.n+j]
					}
					if got := c[i*shape.n+j]; !(math.Abs(got-want) <= 1e-12*(1+math.Abs(want))) {
						t.Fatalf("%d×%d (add %v): (c + aᵀa)[%d,%d] = %g, want %g", shape.r, shape.n, add, i, j, got, want)
					}
				}
			}
		}
	}
}

// TestScaledGramUpper checks ScaledGram.Upper against the definition
// Σ_k w_k² a_{rows[k]} a_{rows[k]}ᵀ on row subsets of several shapes (none,
// one, fewer than a panel, several panels per half, an odd count), with
// weights spread over twelve orders of magnitude as the interior-point
// rounds' are, reusing one ScaledGram so that stale scratch would show,
// and checks that one goroutine and two give the same bits.
func TestScaledGramUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 13))
	var g ScaledGram
	for _, shape := range []struct{ r, n, kept int }{{4, 3, 0}, {1, 1, 1}, {9, 5, 7}, {600, 40, 555}, {700, 2*128 + 30, 699}, {90, 300, 31}} {
		a := make([]float64, shape.r*shape.n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		rows := rng.Perm(shape.r)[:shape.kept]
		w := make([]float64, len(rows))
		for k := range w {
			w[k] = math.Pow(10, 6*(2*rng.Float64()-1))
		}
		c := make([]float64, shape.n*shape.n)
		for i := range c {
			c[i] = math.NaN() // Upper must overwrite the upper triangle
		}
		g.Upper(a, shape.n, rows, w, c)
		n := shape.n
		for i := range n {
			for j := i; j < n; j++ {
				want, size := 0.0, 0.0
				for k, row := range rows {
					v := w[k] * w[k] * a[row*n+i] * a[row*n+j]
					want += v
					size += math.Abs(v)
				}
				if got := c[i*n+j]; !(math.Abs(got-want) <= 1e-13*(1+size)) {
					t.Fatalf("%d of %d rows × %d: c[%d,%d] = %g, want %g", shape.kept, shape.r, n, i, j, got, want)
				}
			}
		}
		if len(rows) <= 2*128 {
			// Up to two panels, both builds give the bits of GramUpper on
			// the scaled copy (the interior-point runs of the small test
			// problems are sensitive to rounding at β = 1e7).
			scaled := make([]float64, len(rows)*n)
			scaleRows(scaled, a, n, rows, w, 0, len(rows))
			copyC := make([]float64, n*n)
			GramUpper(len(rows), n, scaled, copyC)
			for i := range n {
				for j := i; j < n; j++ {
					if math.Float64bits(copyC[i*n+j]) != math.Float64bits(c[i*n+j]) {
						t.Fatalf("%d of %d rows × %d: c[%d,%d] = %v, GramUpper of the scaled rows %v", shape.kept, shape.r, n, i, j, c[i*n+j], copyC[i*n+j])
					}
				}
			}
		}
		prev := runtime.GOMAXPROCS(1)
		one := make([]float64, len(c))
		g.Upper(a, n, rows, w, one)
		runtime.GOMAXPROCS(prev)
		for i := range n {
			for j := i; j < n; j++ {
				if math.Float64bits(one[i*n+j]) != math.Float64bits(c[i*n+j]) {
					t.Fatalf("%d of %d rows × %d: c[%d,%d] is %v on one goroutine, %v on two", shape.kept, shape.r, n, i, j, one[i*n+j], c[i*n+j])
				}
			}
		}
	}
}

// BenchmarkCholesky4400 factors and solves a 4400×4400 SPD matrix (the size
// of the full-W Newton matrix on the aset400-scale fixture) in double and
// in single precision: the case for mixed precision (pkg/mkpoe/internal/conic, chol.go;
// docs/solver.md "Mixed precision"). Solve is one right-hand side; SymMulVec
// is the residual of one refinement step.
func BenchmarkCholesky4400(b *testing.B) {
	const n, r = 4400, 300
	rng := rand.New(rand.NewPCG(44, 0))
	g := make([]float64, r*n)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	m := make([]float64, n*n) // GᵀG + I, upper triangle
	GramUpper(r, n, g, m)
	for i := range n {
		m[i*n+i]++
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	b.Run("double/factor", func(b *testing.B) {
		a := make([]float64, n*n)
		for b.Loop() {
			copy(a, m)
			if !Cholesky(n, a) {
				b.Fatal("refused")
			}
		}
	})
	if !FastSingle {
		return // the pure-Go single-precision loop is a test reference
	}
	b.Run("single/factor", func(b *testing.B) {
		a := make([]float32, n*n)
		for b.Loop() {
			for i, v := range m {
				a[i] = float32(v)
			}
			if !CholeskySingle(n, a) {
				b.Fatal("refused")
			}
		}
	})
	a := append([]float64(nil), m...)
	Cholesky(n, a)
	b.Run("double/solve", func(b *testing.B) {
		y := make([]float64, n)
		for b.Loop() {
			copy(y, x)
			CholeskySolve(n, a, y)
		}
	})
	s := make([]float32, n*n)
	for i, v := range m {
		s[i] = float32(v)
	}
	CholeskySingle(n, s)
	b.Run("single/solve", func(b *testing.B) {
		y := make([]float32, n)
		for b.Loop() {
			for i := range y {
				y[i] = 1
			}
			CholeskySolveSingle(n, s, y)
		}
	})
	b.Run("SymMulVec", func(b *testing.B) {
		y := make([]float64, n)
		for b.Loop() {
			SymMulVec(n, m, x, y)
		}
	})
}

// BenchmarkGramUpper forms the K-space Newton matrix of a diagonal fit's
// first crossover round on the benchmark fixture (3900 comparisons, 470
// coordinates; measurements in docs/notes/solver-log.md) by GramUpper and, for comparison, by one
// dsyrk call on the whole triangle (what GramUpper was with -tags openblas
// before it split the triangle into panels that run in parallel).
func BenchmarkGramUpper(b *testing.B) {
	const r, n = 3900, 470
	rng := rand.New(rand.NewPCG(39, 47))
	a := make([]float64, r*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	c := make([]float64, n*n)
	b.Run("GramUpper", func(b *testing.B) {
		for b.Loop() {
			GramUpper(r, n, a, c)
		}
	})
	b.Run("one-dsyrk", func(b *testing.B) {
		for b.Loop() {
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: r, Cols: n, Stride: n, Data: a}, 0,
				blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c})
		}
	})
	// The diagonal rounds' weighted Gram matrix: every row scaled into one
	// buffer and GramUpper (the pure-Go build's way, and both builds'
	// before ScaledGram), against ScaledGram.Upper.
	rows := make([]int, r)
	w := make([]float64, r)
	for i := range rows {
		rows[i] = i
		w[i] = math.Exp(3 * rng.NormFloat64())
	}
	scaled := make([]float64, r*n)
	b.Run("scale-then-GramUpper", func(b *testing.B) {
		for b.Loop() {
			ParallelRows(r, 256, func(_, lo, hi int) { scaleRows(scaled[lo*n:hi*n], a, n, rows, w, lo, hi) })
			GramUpper(r, n, scaled, c)
		}
	})
	var g ScaledGram
	b.Run("ScaledGram", func(b *testing.B) {
		for b.Loop() {
			g.Upper(a, n, rows, w, c)
		}
	})
}

// TestParallel checks that Parallel runs every task exactly once, that a
// lone call with GOMAXPROCS = 2 runs two tasks at once, and that a call
// made while another one keeps both of its goroutines busy, or while two
// goroutines hold Occupy, gets no helper: its tasks run one at a time on
// its own goroutine.
func TestParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	Parallel(0, func(int) { t.Error("task of an empty call ran") })

	// overlap runs tasks that each stay busy for a while and returns how
	// many ran at once at most.
	overlap := func(tasks int, hold func()) (int, []int) {
		var mu sync.Mutex
		running, most := 0, 0
		count := make([]int, tasks)
		Parallel(tasks, func(k int) {
			mu.Lock()
			running++
			most = max(most, running)
			count[k]++
			mu.Unlock()
			hold()
			mu.Lock()
			running--
			mu.Unlock()
		})
		return most, count
	}
	most, count := overlap(6, func() { time.Sleep(30 * time.Millisecond) })
	if most != 2 {
		t.Errorf("lone call: %d tasks at once, want 2", most)
	}
	for k, c := range count {
		if c != 1 {
			t.Errorf("lone call: task %d ran %d times", k, c)
		}
	}

	started, release := make(chan bool), make(chan bool)
	done := make(chan bool)
	go func() {
		Parallel(2, func(int) { started <- true; <-release })
		done <- true
	}()
	<-started
	<-started // both goroutines of the first call are busy
	most, count = overlap(4, func() { time.Sleep(5 * time.Millisecond) })
	close(release)
	<-done
	if most != 1 {
		t.Errorf("call beside a busy one: %d tasks at once, want 1", most)
	}
	for k, c := range count {
		if c != 1 {
			t.Errorf("call beside a busy one: task %d ran %d times", k, c)
		}
	}

	// Two harness workers hold a core each: no helpers.
	r1, r2 := Occupy(), Occupy()
	most, _ = overlap(4, func() { time.Sleep(5 * time.Millisecond) })
	r1()
	r2()
	r2() // a second release is a no-op
	if most != 1 {
		t.Errorf("call beside two Occupy holders: %d tasks at once, want 1", most)
	}
	if b := busy.Load(); b != 0 {
		t.Errorf("busy = %d after every call returned and every Occupy was released", b)
	}
}

// BenchmarkCholeskyTiledVsOneCall factors, in single precision (which most
// Newton steps use, pkg/mkpoe/internal/conic), SPD matrices of the orders of the
// full-W Newton systems of the aset400 cv tasks (2343 and 3353
// comparisons) and of the benchmark fixture (4400) three ways: tiled on
// one goroutine (Occupy held, as in the harness with two workers), tiled
// with a helper (a lone fit), and by one LAPACK potrf call on the whole
// matrix (what the tiled factorisation replaced). Measured in
// docs/solver.md, "Parallel factorisation".
func BenchmarkCholeskyTiledVsOneCall(b *testing.B) {
	if !FastSingle {
		b.Skip("the pure-Go single-precision loop is a test reference")
	}
	for _, n := range []int{2343, 3353, 4400} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		const r = 300
		g := make([]float64, r*n)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		m := make([]float64, n*n)
		GramUpper(r, n, g, m)
		for i := range n {
			m[i*n+i]++
		}
		a := make([]float32, n*n)
		load := func() {
			for i, v := range m {
				a[i] = float32(v)
			}
		}
		for _, v := range []struct {
			name    string
			oneCore bool
		}{{"tiled", true}, {"tiled_parallel", false}} {
			b.Run(fmt.Sprintf("n%d/%s", n, v.name), func(b *testing.B) {
				if v.oneCore {
					release := Occupy()
					defer release()
				}
				for b.Loop() {
					load()
					if !choleskyTiled(n, a, tiles32{}) {
						b.Fatal("refused")
					}
				}
			})
		}
		b.Run(fmt.Sprintf("n%d/one_call", n), func(b *testing.B) {
			for b.Loop() {
				load()
				if !(tiles32{}).potrf(n, a, n) {
					b.Fatal("refused")
				}
			}
		})
	}
}

// TestBLASAdvice checks when the user is told to choose OpenBLAS's kernels,
// and which ones.
func TestBLASAdvice(t *testing.T) {
	for _, tc := range []struct {
		core         string
		avx2, avx512 bool
		want         string // the kernels advised; "" for no warning
	}{
		{"Prescott", true, false, "Haswell"}, // an unrecognised CPU with AVX2
		{"Prescott", true, true, "SkylakeX"}, // … and AVX-512 (Sapphire Rapids on 0.3.21)
		{"Prescott", false, false, ""},       // a CPU that has no better kernels
		{"Haswell", true, false, ""},         // recognised, or chosen by the user
		{"Haswell", true, true, ""},          // the user's choice stands
		{"SkylakeX", true, true, ""},
		{"", true, true, ""}, // the pure-Go build
	} {
		got := blasAdvice(tc.core, tc.avx2, tc.avx512)
		if tc.want == "" {
			if got != "" {
				t.Errorf("blasAdvice(%q, %v, %v) = %q, want no warning", tc.core, tc.avx2, tc.avx512, got)
			}
			continue
		}
		if !strings.Contains(got, "OPENBLAS_CORETYPE="+tc.want+" ") {
			t.Errorf("blasAdvice(%q, %v, %v) = %q, want advice to set OPENBLAS_CORETYPE=%s", tc.core, tc.avx2, tc.avx512, got, tc.want)
		}
	}
}

// TestSymEigenLeading checks the k leading eigenpairs against the whole
// decomposition's eigenvalues and the residuals ‖Av − λv‖, for k chosen
// from the spectrum (all, none, a few, a quarter and more, which the
// pure-Go build finishes by the QR iteration), and that keep sees every
// eigenvalue in ascending order.
func TestSymEigenLeading(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for _, n := range []int{1, 3, 40, 150} {
		orig := randomSymmetric(rng, n)
		all := make([]float64, n)
		if !SymEigen(n, append([]float64(nil), orig...), all, false) {
			t.Fatal("SymEigen failed")
		}
		for _, k := range []int{0, 1, 3, n / 3, n} {
			k = min(k, n)
			vals, vecs := make([]float64, n), make([]float64, n*n)
			m, ok := SymEigenLeading(n, append([]float64(nil), orig...), func(seen []float64) int {
				if len(seen) != n {
					t.Fatalf("n=%d: keep saw %d eigenvalues", n, len(seen))
				}
				for q := range seen {
					if math.Abs(seen[q]-all[q]) > 1e-11*float64(n) {
						t.Fatalf("n=%d: keep saw eigenvalue %d = %g, want %g", n, q, seen[q], all[q])
					}
				}
				return k
			}, vals, vecs)
			if !ok || m != k {
				t.Fatalf("n=%d k=%d: %d pairs (ok %v)", n, k, m, ok)
			}
			checkEigenpairs(t, fmt.Sprintf("n=%d k=%d", n, k), orig, n, vals[:m], vecs, all[n-k:])
		}
	}
}

// checkEigenpairs checks computed eigenpairs of the n×n orig (vector q at
// vecs[q*n:q*n+n]): each value within 1e-11·n of want[q], each residual
// entry (Av − λv)_i within 1e-10·n, each vector of unit norm to 1e-12·n.
func checkEigenpairs(t *testing.T, what string, orig []float64, n int, vals, vecs, want []float64) {
	t.Helper()
	for q := range vals {
		if math.Abs(vals[q]-want[q]) > 1e-11*float64(n) {
			t.Fatalf("%s: eigenvalue %d = %g, want %g", what, q, vals[q], want[q])
		}
		v := vecs[q*n : q*n+n]
		norm := 0.0
		for i := range n {
			av := 0.0
			for j := range n {
				av += orig[i*n+j] * v[j]
			}
			if math.Abs(av-vals[q]*v[i]) > 1e-10*float64(n) {
				t.Fatalf("%s: (Av − λv)[%d] = %g", what, i, av-vals[q]*v[i])
			}
			norm += v[i] * v[i]
		}
		if math.Abs(norm-1) > 1e-12*float64(n) {
			t.Fatalf("%s: ‖v‖² = %g", what, norm)
		}
	}
}

// randomSymmetric is an n×n symmetric matrix (row-major) of standard
// normal entries.
func randomSymmetric(rng *rand.Rand, n int) []float64 {
	a := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			v := rng.NormFloat64()
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	return a
}
