package kernels_test

import (
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/kernels"
)

var seedFlag = flag.Uint64("seed", 1, "seed of the randomized property tests")

const tol = 1e-10

// TestFitHandComputed checks small Gram matrices against values computed by
// hand (the derivation of each number is in the case's comment).
func TestFitHandComputed(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name  string
		k     kernels.Kernel
		train kernels.Input
		want  []float64 // n×n, row-major
	}{
		{
			// xᵀy: (1,2)·(1,2) = 5, (1,2)·(3,4) = 11, (3,4)·(3,4) = 25.
			name:  "linear",
			k:     kernels.Linear{},
			train: kernels.Input{Features: mat.NewDense(2, 2, []float64{1, 2, 3, 4})},
			want:  []float64{5, 11, 11, 25},
		},
		{
			// ‖(0,0) − (1,1)‖² = 2, σ = 1: exp(−2/2) = e⁻¹.
			name:  "rbf fixed bandwidth",
			k:     kernels.RBF{Bandwidth: 1},
			train: kernels.Input{Features: mat.NewDense(2, 2, []float64{0, 0, 1, 1})},
			want:  []float64{1, math.Exp(-1), math.Exp(-1), 1},
		},
		{
			// Points 0, 1, 3: distances 1, 3, 2, median σ = 2, so
			// k = exp(−d²/8): exp(−1/8), exp(−9/8), exp(−4/8).
			name:  "rbf median heuristic",
			k:     kernels.RBF{},
			train: kernels.Input{Features: mat.NewDense(3, 1, []float64{0, 1, 3})},
			want: []float64{
				1, math.Exp(-1.0 / 8), math.Exp(-9.0 / 8),
				math.Exp(-1.0 / 8), 1, math.Exp(-4.0 / 8),
				math.Exp(-9.0 / 8), math.Exp(-4.0 / 8), 1,
			},
		},
		{
			// The same points with median_scale 0.5: σ = 1, k = exp(−d²/2).
			name:  "rbf half the median",
			k:     kernels.RBF{MedianScale: 0.5},
			train: kernels.Input{Features: mat.NewDense(3, 1, []float64{0, 1, 3})},
			want: []float64{
				1, math.Exp(-1.0 / 2), math.Exp(-9.0 / 2),
				math.Exp(-1.0 / 2), 1, math.Exp(-4.0 / 2),
				math.Exp(-9.0 / 2), math.Exp(-4.0 / 2), 1,
			},
		},
		{
			// q1 = (.5,.5,0), q2 = (1,0,0): (−.5)²/1.5 + .5²/.5 + 0/0 (= 0)
			// = 1/6 + 1/2 = 2/3, σ = 1: exp(−2/3).
			name:  "chi2 sigma 1",
			k:     kernels.ChiSquare{Sigma: 1},
			train: kernels.Input{Features: mat.NewDense(2, 3, []float64{.5, .5, 0, 1, 0, 0})},
			want:  []float64{1, math.Exp(-2.0 / 3), math.Exp(-2.0 / 3), 1},
		},
		{
			// As above with the paper's default σ = 256.
			name:  "chi2 default sigma",
			k:     kernels.ChiSquare{},
			train: kernels.Input{Features: mat.NewDense(2, 3, []float64{.5, .5, 0, 1, 0, 0})},
			want:  []float64{1, math.Exp(-256 * 2.0 / 3), math.Exp(-256 * 2.0 / 3), 1},
		},
		{
			// Terms 0,1,2 are each in 2 of 3 documents (idf log 1.5 for all),
			// term 3 is in all three (idf 0, dropped), so the cosines are
			// those of the raw counts (2,1,0), (0,1,3), (1,0,1):
			// 1/√50, 2/√10, 3/√20.
			name: "tfidf",
			k:    kernels.TFIDF{},
			train: kernels.Input{Counts: []map[int]float64{
				{0: 2, 1: 1, 3: 5}, {1: 1, 2: 3, 3: 1}, {0: 1, 2: 1, 3: 7},
			}},
			want: []float64{
				1, 1 / math.Sqrt(50), 2 / math.Sqrt(10),
				1 / math.Sqrt(50), 1, 3 / math.Sqrt(20),
				2 / math.Sqrt(10), 3 / math.Sqrt(20), 1,
			},
		},
		{
			// |{1,2,3} ∩ {2,3,4,5}| / √(3·4) = 2/√12; the empty set gets an
			// identity row; duplicates are ignored.
			name:  "cf",
			k:     kernels.Cosine{},
			train: kernels.Input{Sets: [][]int{{3, 1, 2, 2}, {2, 3, 4, 5}, nil}},
			want:  []float64{1, 2 / math.Sqrt(12), 0, 2 / math.Sqrt(12), 1, 0, 0, 0, 1},
		},
		{
			// The count matrix binarised: rows {0,1}, {1,2}: 1/√(2·2).
			name:  "cf from counts",
			k:     kernels.Cosine{},
			train: kernels.Input{Features: mat.NewDense(2, 3, []float64{5, 1, 0, 0, 7, 2})},
			want:  []float64{1, .5, .5, 1},
		},
		{
			name:  "identity",
			k:     kernels.Identity{},
			train: kernels.Input{N: 2},
			want:  []float64{1, 0, 0, 1},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			m, err := kernels.Fit(test.k, test.train, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := m.N()
			want := mat.NewDense(n, n, test.want)
			if got := m.Gram(); !mat.EqualApprox(got, want, 1e-14) {
				t.Errorf("Gram =\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(want))
			}
		})
	}
}

// TestRowsHandComputed checks out-of-sample rows against hand values.
func TestRowsHandComputed(t *testing.T) {
	t.Parallel()
	// TF-IDF: training as in TestFitHandComputed. The new item {0:1, 9:4}
	// has the unseen term 9 (weight 0), so its vector is (log 1.5, 0, 0):
	// cosines 2/√5 with (2,1,0), 0 with (0,1,3), 1/√2 with (1,0,1).
	train := kernels.Input{Counts: []map[int]float64{{0: 2, 1: 1, 3: 5}, {1: 1, 2: 3, 3: 1}, {0: 1, 2: 1, 3: 7}}}
	m, err := kernels.Fit(kernels.TFIDF{}, train, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Rows(kernels.Input{Counts: []map[int]float64{{0: 1, 9: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(1, 3, []float64{2 / math.Sqrt(5), 0, 1 / math.Sqrt(2)})
	if !mat.EqualApprox(got, want, 1e-14) {
		t.Errorf("tfidf rows = %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}

	// Linear with unit diagonal: x = (1,0) against (1,2), (3,4):
	// 1/√5 and 3/5.
	m, err = kernels.Fit(kernels.Linear{}, kernels.Input{Features: mat.NewDense(2, 2, []float64{1, 2, 3, 4})}, kernels.Options{Normalize: kernels.NormDiag})
	if err != nil {
		t.Fatal(err)
	}
	got, err = m.Rows(kernels.Input{Features: mat.NewDense(1, 2, []float64{1, 0})})
	if err != nil {
		t.Fatal(err)
	}
	want = mat.NewDense(1, 2, []float64{1 / math.Sqrt(5), 3.0 / 5})
	if !mat.EqualApprox(got, want, 1e-14) {
		t.Errorf("linear diag rows = %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}

	// Linear centred: training points 1 and 3 (mean 2) centre to −1, 1;
	// the new point 4 centres to 2: rows (−2, 2).
	m, err = kernels.Fit(kernels.Linear{}, kernels.Input{Features: mat.NewDense(2, 1, []float64{1, 3})}, kernels.Options{Normalize: kernels.NormCenter})
	if err != nil {
		t.Fatal(err)
	}
	got, err = m.Rows(kernels.Input{Features: mat.NewDense(1, 1, []float64{4})})
	if err != nil {
		t.Fatal(err)
	}
	if want := mat.NewDense(1, 2, []float64{-2, 2}); !mat.EqualApprox(got, want, 1e-12) {
		t.Errorf("linear center rows = %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}

	// Identity: no out-of-sample extension, zero rows.
	m, err = kernels.Fit(kernels.Identity{}, kernels.Input{N: 3}, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = m.Rows(kernels.Input{N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, mat.NewDense(2, 3, nil)) {
		t.Errorf("identity rows = %v, want zeros", mat.Formatted(got))
	}
}

// TestProductKernelHandComputed checks the Gaussian PPK closed form.
func TestProductKernelHandComputed(t *testing.T) {
	t.Parallel()
	gauss := func(w []float64, mu, v []float64) *kernels.GMM {
		return &kernels.GMM{Weights: w, Means: mat.NewDense(len(w), len(mu)/len(w), mu), Vars: mat.NewDense(len(w), len(v)/len(w), v)}
	}
	for _, test := range []struct {
		name string
		p, q *kernels.GMM
		rho  float64
		want float64
	}{
		// Bhattacharyya coefficient of N(0,1), N(1,1):
		// sqrt(2·1/2) exp(−1/(4·2)) = exp(−1/8).
		{"bhattacharyya shift", gauss([]float64{1}, []float64{0}, []float64{1}), gauss([]float64{1}, []float64{1}, []float64{1}), 0.5, math.Exp(-1.0 / 8)},
		// N(0,1), N(0,4): sqrt(2·2/5) = sqrt(0.8).
		{"bhattacharyya scale", gauss([]float64{1}, []float64{0}, []float64{1}), gauss([]float64{1}, []float64{0}, []float64{4}), 0.5, math.Sqrt(0.8)},
		// Two independent dimensions multiply: exp(−1/8)·sqrt(0.8).
		{"bhattacharyya 2-D", gauss([]float64{1}, []float64{0, 0}, []float64{1, 1}), gauss([]float64{1}, []float64{1, 0}, []float64{1, 4}), 0.5, math.Exp(-1.0/8) * math.Sqrt(0.8)},
		// ρ = 1: ∫ N(x;0,1) N(x;1,1) dx = N(1; 0, 2) = exp(−1/4)/sqrt(4π).
		{"expected likelihood", gauss([]float64{1}, []float64{0}, []float64{1}), gauss([]float64{1}, []float64{1}, []float64{1}), 1, math.Exp(-0.25) / math.Sqrt(4*math.Pi)},
		// Mixture of two identical components with weights 1/2: the
		// component-wise sum is 4 · sqrt(1/2 · 1/2) · 1 = 2 (an upper bound of
		// the exact value 1).
		{"mixture upper bound", gauss([]float64{.5, .5}, []float64{0, 0}, []float64{1, 1}), gauss([]float64{.5, .5}, []float64{0, 0}, []float64{1, 1}), 0.5, 2},
	} {
		if got := kernels.ProductKernel(test.p, test.q, test.rho); !scalar.EqualWithinAbsOrRel(got, test.want, 1e-14, 1e-14) {
			t.Errorf("%s: ProductKernel = %v, want %v", test.name, got, test.want)
		}
	}
}

// randomInputs returns a train and a test input of n and t items for a
// kernel type, from rng.
func randomInputs(typ string, n, t int, rng *rand.Rand) (kernels.Input, kernels.Input) {
	dense := func(r, c int, f func() float64) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, f())
			}
		}
		return m
	}
	switch typ {
	case "linear", "rbf":
		return kernels.Input{Features: dense(n, 4, rng.NormFloat64)}, kernels.Input{Features: dense(t, 4, rng.NormFloat64)}
	case "chi2":
		hist := func() float64 {
			if rng.IntN(3) == 0 {
				return 0
			}
			return rng.Float64()
		}
		return kernels.Input{Features: dense(n, 6, hist)}, kernels.Input{Features: dense(t, 6, hist)}
	case "tfidf":
		counts := func(r int) []map[int]float64 {
			out := make([]map[int]float64, r)
			for i := range out {
				out[i] = map[int]float64{}
				for a := rng.IntN(6); a >= 0; a-- {
					out[i][rng.IntN(25)] = float64(1 + rng.IntN(5))
				}
			}
			return out
		}
		return kernels.Input{Counts: counts(n)}, kernels.Input{Counts: counts(t)}
	case "cf":
		sets := func(r int) [][]int {
			out := make([][]int, r)
			for i := range out {
				for a := 1 + rng.IntN(7); a > 0; a-- { // non-empty: an empty set has a defined K_ii = 1 but a zero row
					out[i] = append(out[i], rng.IntN(40))
				}
			}
			return out
		}
		return kernels.Input{Sets: sets(n)}, kernels.Input{Sets: sets(t)}
	case "ppk":
		frames := func(r int) []*mat.Dense {
			out := make([]*mat.Dense, r)
			for i := range out {
				c := rng.NormFloat64() * 2
				out[i] = dense(20, 2, func() float64 { return c + rng.NormFloat64() })
			}
			return out
		}
		return kernels.Input{Frames: frames(n)}, kernels.Input{Frames: frames(t)}
	case "identity", "noise":
		return kernels.Input{N: n}, kernels.Input{N: t}
	}
	panic("unknown type " + typ)
}

func newKernel(t *testing.T, typ string) kernels.Kernel {
	params := map[string]map[string]float64{
		"chi2":  {"sigma": 2},
		"ppk":   {"components": 2, "max_iter": 15, "seed": 3},
		"noise": {"seed": 5},
	}[typ]
	k, err := kernels.New(typ, params)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func stackInputs(a, b kernels.Input) kernels.Input {
	var out kernels.Input
	if a.Features != nil {
		ra, c := a.Features.Dims()
		rb, _ := b.Features.Dims()
		out.Features = mat.NewDense(ra+rb, c, nil)
		out.Features.Stack(a.Features, b.Features)
	}
	if a.Counts != nil {
		out.Counts = append(append([]map[int]float64{}, a.Counts...), b.Counts...)
	}
	if a.Sets != nil {
		out.Sets = append(append([][]int{}, a.Sets...), b.Sets...)
	}
	if a.Frames != nil {
		out.Frames = append(append([]*mat.Dense{}, a.Frames...), b.Frames...)
	}
	if a.N != 0 {
		out.N = a.N + b.N
	}
	return out
}

var norms = []kernels.Normalization{kernels.NormNone, kernels.NormDiag, kernels.NormTrace, kernels.NormCenter}

// TestFitProperties checks, on seeded random inputs for every kernel type and
// normalisation: the Gram matrix is symmetric and PSD; the normalisation
// invariant holds; and the out-of-sample rows of train ∪ test, computed with
// the model fitted on train (training statistics only), reproduce the
// training Gram in their first n rows and Rows(test) in the last t rows.
func TestFitProperties(t *testing.T) {
	t.Parallel()
	seed := *seedFlag
	for _, typ := range kernels.Types() {
		for _, norm := range norms {
			t.Run(typ+"/"+norm.String(), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(seed, seed))
				n, nt := 12, 5
				train, test := randomInputs(typ, n, nt, rng)
				m, err := kernels.Fit(newKernel(t, typ), train, kernels.Options{Normalize: norm})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				g := m.Gram()
				if err := kernels.ValidateGram(g, 0); err != nil {
					t.Errorf("seed %d: %v", seed, err)
				}
				switch norm {
				case kernels.NormDiag:
					for i := 0; i < n; i++ {
						if !scalar.EqualWithinAbs(g.At(i, i), 1, tol) {
							t.Errorf("seed %d: K[%d][%d] = %v, want 1", seed, i, i, g.At(i, i))
						}
					}
				case kernels.NormTrace:
					if tr := mat.Trace(g); !scalar.EqualWithinAbsOrRel(tr, float64(n), tol, tol) {
						t.Errorf("seed %d: trace = %v, want %d", seed, tr, n)
					}
				case kernels.NormCenter:
					for i := 0; i < n; i++ {
						if s := rowSum(g, i); !scalar.EqualWithinAbs(s, 0, 1e-9) {
							t.Errorf("seed %d: row %d sums to %v, want 0", seed, i, s)
						}
					}
				}
				rows, err := m.Rows(test)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if r, c := rows.Dims(); r != nt || c != n {
					t.Fatalf("Rows is %d×%d, want %d×%d", r, c, nt, n)
				}
				switch typ {
				case "identity":
					if !mat.Equal(rows, mat.NewDense(nt, n, nil)) {
						t.Errorf("identity rows are not zero")
					}
					return
				case "noise":
					// The union's Gram from n+t points holds Rows(test) in its
					// lower-left block (new items are the next points).
					mu, err := kernels.Fit(newKernel(t, typ), stackInputs(train, test), kernels.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if norm == kernels.NormNone && !mat.EqualApprox(mat.DenseCopyOf(mu.Gram()).Slice(n, n+nt, 0, n), rows, tol) {
						t.Errorf("noise rows differ from the union Gram block")
					}
					return
				}
				all, err := m.Rows(stackInputs(train, test))
				if err != nil {
					t.Fatal(err)
				}
				if !mat.EqualApprox(all.Slice(0, n, 0, n), g, 1e-9) {
					t.Errorf("seed %d: rows of the training items differ from the Gram matrix", seed)
				}
				if !mat.EqualApprox(all.Slice(n, n+nt, 0, n), rows, 1e-12) {
					t.Errorf("seed %d: rows of the new items depend on the other new items", seed)
				}
			})
		}
	}
}

// TestRowsExplicitFeatures compares the normalised linear kernel with explicit
// feature-space computations using training statistics only.
func TestRowsExplicitFeatures(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seedFlag, 2))
	n, nt, d := 9, 4, 3
	x, y := mat.NewDense(n, d, nil), mat.NewDense(nt, d, nil)
	for _, m := range []*mat.Dense{x, y} {
		r, c := m.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rng.NormFloat64()+1)
			}
		}
	}
	// Centring: subtract the training mean from both.
	mean := make([]float64, d)
	for j := range mean {
		mean[j] = mat.Sum(x.ColView(j)) / float64(n)
	}
	center := func(m *mat.Dense) *mat.Dense {
		c := mat.DenseCopyOf(m)
		r, _ := c.Dims()
		for i := 0; i < r; i++ {
			for j := range mean {
				c.Set(i, j, c.At(i, j)-mean[j])
			}
		}
		return c
	}
	unit := func(m *mat.Dense) *mat.Dense {
		c := mat.DenseCopyOf(m)
		r, _ := c.Dims()
		for i := 0; i < r; i++ {
			row := c.RawRowView(i)
			nrm := math.Sqrt(mat.Dot(mat.NewVecDense(d, row), mat.NewVecDense(d, row)))
			for j := range row {
				row[j] /= nrm
			}
		}
		return c
	}
	for _, test := range []struct {
		norm       kernels.Normalization
		trainF, yF *mat.Dense
	}{
		{kernels.NormCenter, center(x), center(y)},
		{kernels.NormDiag, unit(x), unit(y)},
	} {
		m, err := kernels.Fit(kernels.Linear{}, kernels.Input{Features: x}, kernels.Options{Normalize: test.norm})
		if err != nil {
			t.Fatal(err)
		}
		var wantG, wantR mat.Dense
		wantG.Mul(test.trainF, test.trainF.T())
		wantR.Mul(test.yF, test.trainF.T())
		if !mat.EqualApprox(m.Gram(), &wantG, 1e-12) {
			t.Errorf("%v: Gram differs from the explicit feature-space kernel", test.norm)
		}
		got, err := m.Rows(kernels.Input{Features: y})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got, &wantR, 1e-12) {
			t.Errorf("%v: Rows differ from the explicit feature-space kernel", test.norm)
		}
	}
}

// TestFitMissing checks the paper's rule for missing items (Sec. 5.2.1):
// identity rows and columns, statistics from the present items only, zero
// rows for missing new items and zero entries against missing training items.
func TestFitMissing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seedFlag, 3))
	for _, typ := range []string{"tfidf", "cf", "rbf", "ppk"} {
		t.Run(typ, func(t *testing.T) {
			train, test := randomInputs(typ, 8, 3, rng)
			miss := []bool{false, true, false, false, true, false, false, false}
			train.Missing = miss
			m, err := kernels.Fit(newKernel(t, typ), train, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := m.Gram()
			var keep []int
			for i := range miss {
				if !miss[i] {
					keep = append(keep, i)
				}
			}
			sub := subset(train, keep)
			ms, err := kernels.Fit(newKernel(t, typ), sub, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			gs := ms.Gram()
			for i := range miss {
				for j := range miss {
					want := 0.0
					switch {
					case i == j && (miss[i] || miss[j]):
						want = 1
					case !miss[i] && !miss[j]:
						want = gs.At(index(keep, i), index(keep, j))
					}
					if !scalar.EqualWithinAbsOrRel(g.At(i, j), want, 1e-12, 1e-12) {
						t.Errorf("K[%d][%d] = %v, want %v", i, j, g.At(i, j), want)
					}
				}
			}
			test.Missing = []bool{false, true, false}
			rows, err := m.Rows(test)
			if err != nil {
				t.Fatal(err)
			}
			test.Missing = nil
			rs, err := ms.Rows(test)
			if err != nil {
				t.Fatal(err)
			}
			for r := 0; r < 3; r++ {
				for j := range miss {
					want := 0.0
					if r != 1 && !miss[j] {
						want = rs.At(r, index(keep, j))
					}
					if !scalar.EqualWithinAbsOrRel(rows.At(r, j), want, 1e-12, 1e-12) {
						t.Errorf("row %d, column %d = %v, want %v", r, j, rows.At(r, j), want)
					}
				}
			}
		})
	}
}

func index(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func subset(in kernels.Input, keep []int) kernels.Input {
	var out kernels.Input
	for _, i := range keep {
		switch {
		case in.Counts != nil:
			out.Counts = append(out.Counts, in.Counts[i])
		case in.Sets != nil:
			out.Sets = append(out.Sets, in.Sets[i])
		case in.Frames != nil:
			out.Frames = append(out.Frames, in.Frames[i])
		}
	}
	if in.Features != nil {
		_, c := in.Features.Dims()
		out.Features = mat.NewDense(len(keep), c, nil)
		for a, i := range keep {
			out.Features.SetRow(a, in.Features.RawRowView(i))
		}
	}
	return out
}

// TestFitGMM checks that EM is deterministic for a seed, that its
// log-likelihood never falls, and that it finds two well separated clusters.
func TestFitGMM(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seedFlag, 4))
	frames := mat.NewDense(200, 3, nil)
	for i := 0; i < 200; i++ {
		c := 0.0
		if i%4 == 0 { // a quarter of the frames around 10
			c = 10
		}
		for j := 0; j < 3; j++ {
			frames.Set(i, j, c+rng.NormFloat64())
		}
	}
	before := mat.DenseCopyOf(frames)
	for _, k := range []kernels.PPK{{Components: 2, Seed: 7}, {Seed: 8}, {Components: 5, Seed: 9, VarFloor: 0.5}} {
		g1, err := k.FitGMM(frames)
		if err != nil {
			t.Fatal(err)
		}
		g2, err := k.FitGMM(frames)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(g1.Means, g2.Means) || !mat.Equal(g1.Vars, g2.Vars) || len(g1.LogLik) != len(g2.LogLik) {
			t.Errorf("%+v: two fits with the same seed differ", k)
		}
		for i := 1; i < len(g1.LogLik); i++ {
			if g1.LogLik[i] < g1.LogLik[i-1]-1e-12 {
				t.Errorf("%+v: log-likelihood fell at iteration %d: %v -> %v", k, i, g1.LogLik[i-1], g1.LogLik[i])
			}
		}
		var sum float64
		for _, w := range g1.Weights {
			sum += w
		}
		if !scalar.EqualWithinAbs(sum, 1, 1e-12) {
			t.Errorf("%+v: weights sum to %v", k, sum)
		}
		floor := k.VarFloor
		if floor == 0 {
			floor = 1e-3
		}
		if mat.Min(g1.Vars) < floor {
			t.Errorf("%+v: variance %v below the floor %v", k, mat.Min(g1.Vars), floor)
		}
		if k.Components == 2 {
			w := math.Min(g1.Weights[0], g1.Weights[1])
			if !scalar.EqualWithinAbs(w, 0.25, 0.02) {
				t.Errorf("two clusters: smaller weight %v, want about 0.25", w)
			}
		}
	}
	if !mat.Equal(frames, before) {
		t.Error("FitGMM modified its input")
	}
}

// TestFitGMMPinned pins every bit of two small EM fits: one that stops on
// the tolerance, one on MaxIter with every variance at the floor. The
// numbers were printed by FitGMM itself (amd64, pure Go) and guard its
// refactoring, not its correctness, which TestFitGMM checks; Go may fuse
// multiply-adds on other architectures, so the test runs on amd64 only.
func TestFitGMMPinned(t *testing.T) {
	t.Parallel()
	if runtime.GOARCH != "amd64" {
		t.Skipf("bit-exact pins are for amd64, this is %s", runtime.GOARCH)
	}
	// 12 frames in 2 dimensions: x_ij = (i² + 3j) mod 7 + i/10.
	frames := mat.NewDense(12, 2, nil)
	for i := 0; i < 12; i++ {
		for j := 0; j < 2; j++ {
			frames.Set(i, j, float64((i*i+3*j)%7)+0.1*float64(i))
		}
	}
	for _, test := range []struct {
		name                string
		k                   kernels.PPK
		weights, means, vrs []float64 // means and vrs: Components×2, row-major
		logLik              []float64
	}{
		{
			name:    "tolerance stop",
			k:       kernels.PPK{Components: 2, Seed: 3},
			weights: []float64{0.7500004177524873, 0.24999958224751265},
			means:   []float64{1.777779423162382, 4.777775524141339, 4.533333001736967, 0.5333330017369668},
			vrs:     []float64{0.9683994267006902, 0.9684036844611651, 0.08222216207039891, 0.08222216207039888},
			logLik:  []float64{-4.170766863615179, -3.223991144181644, -2.7850897970284394, -2.751543010758928, -2.751543010758914},
		},
		{
			name:    "MaxIter stop at the variance floor",
			k:       kernels.PPK{Components: 3, Seed: 5, MaxIter: 4, VarFloor: 0.5},
			weights: []float64{0.27749808649951174, 0.47250191350074183, 0.24999999999974645},
			means:   []float64{0.7193072821898224, 3.7193072820507003, 2.399412376009856, 5.399412375998805, 4.53333333325183, 0.533333333420041},
			vrs:     []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5},
			logLik:  []float64{-3.9586563782554642, -2.840929645471608, -2.6063341034521224, -2.6010559425754685, -2.6010016237103404},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			g, err := test.k.FitGMM(frames)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				what      string
				got, want []float64
			}{
				{"weights", g.Weights, test.weights},
				{"means", g.Means.RawMatrix().Data, test.means},
				{"variances", g.Vars.RawMatrix().Data, test.vrs},
				{"log-likelihoods", g.LogLik, test.logLik},
			} {
				if i := firstBitDiff(c.got, c.want); i >= 0 {
					t.Errorf("%s: %#v, want %#v (first difference at %d)", c.what, c.got, c.want, i)
				}
			}
		})
	}
}

// firstBitDiff returns the first index where got and want differ in any bit,
// len(want) if got is shorter or longer, or −1 if they are identical.
func firstBitDiff(got, want []float64) int {
	for i := range want {
		if i >= len(got) || math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			return i
		}
	}
	if len(got) != len(want) {
		return len(want)
	}
	return -1
}

// TestFitErrors checks the error messages for bad parameters and inputs.
func TestFitErrors(t *testing.T) {
	t.Parallel()
	feat := kernels.Input{Features: mat.NewDense(2, 2, []float64{1, 2, 3, 4})}
	for _, test := range []struct {
		name  string
		k     kernels.Kernel
		train kernels.Input
		test  *kernels.Input
		want  string
	}{
		{"negative bandwidth", kernels.RBF{Bandwidth: -1}, feat, nil, "bandwidth must be > 0"},
		{"negative median scale", kernels.RBF{MedianScale: -1}, feat, nil, "median_scale must be > 0"},
		{"median scale with a bandwidth", kernels.RBF{Bandwidth: 1, MedianScale: 2}, feat, nil, "only with the median heuristic"},
		{"median of equal rows", kernels.RBF{}, kernels.Input{Features: mat.NewDense(3, 1, []float64{1, 1, 1})}, nil, "median pairwise distance"},
		{"chi2 negative", kernels.ChiSquare{}, kernels.Input{Features: mat.NewDense(2, 2, []float64{1, 0, 0.5, -0.25})}, nil, "got -0.25 at row 1, column 1 (0-based) of the training items"},
		{"chi2 negative new", kernels.ChiSquare{}, feat, &kernels.Input{Features: mat.NewDense(1, 2, []float64{-3, 0})}, "got -3 at row 0, column 0 (0-based) of the new items"},
		{"chi2 negative sigma", kernels.ChiSquare{Sigma: -2}, feat, nil, "sigma must be > 0"},
		{"dimension mismatch", kernels.Linear{}, feat, &kernels.Input{Features: mat.NewDense(1, 3, nil)}, "new items have 3 features but the training items have 2"},
		{"wrong input", kernels.Linear{}, kernels.Input{N: 3}, nil, "needs Input.Features"},
		{"negative count", kernels.TFIDF{}, kernels.Input{Counts: []map[int]float64{{4: -1}}}, nil, "got -1 for item 0, term 4"},
		{"negative user id", kernels.Cosine{}, kernels.Input{Sets: [][]int{{1}, {-2}}}, nil, "Input.Sets[1] has id -2"},
		{"missing length", kernels.Linear{}, kernels.Input{Features: mat.NewDense(2, 2, nil), Missing: []bool{true}}, nil, "Input.Missing must have one entry per item (2), got 1"},
		{"inconsistent fields", kernels.Linear{}, kernels.Input{Features: mat.NewDense(2, 2, nil), N: 3}, nil, "Input.N has 3 items but Input.Features has 2"},
		{"few frames", kernels.PPK{}, kernels.Input{Frames: []*mat.Dense{mat.NewDense(3, 2, nil)}}, nil, "need at least components = 8 frames, got 3 (training item 0)"},
		{"nil frames", kernels.PPK{Components: 1}, kernels.Input{Frames: []*mat.Dense{nil}}, nil, "training item 0 has no frames"},
		{"frame dimension", kernels.PPK{Components: 1}, kernels.Input{Frames: []*mat.Dense{mat.NewDense(2, 2, []float64{0, 1, 2, 3}), mat.NewDense(2, 3, nil)}}, nil, "training item 1 has frames of dimension 3"},
		{"bad rho", kernels.PPK{Rho: -1}, kernels.Input{Frames: []*mat.Dense{mat.NewDense(9, 1, nil)}}, nil, "rho must be > 0"},
		{"bad noise dim", kernels.Noise{Dim: -3}, kernels.Input{N: 2}, nil, "dim must be ≥ 1"},
	} {
		t.Run(test.name, func(t *testing.T) {
			m, err := kernels.Fit(test.k, test.train, kernels.Options{})
			if err == nil && test.test != nil {
				_, err = m.Rows(*test.test)
			}
			if err == nil || !strings.Contains(err.Error(), test.want) || !strings.HasPrefix(err.Error(), "kernels: ") {
				t.Errorf("error = %v, want one containing %q", err, test.want)
			}
		})
	}
}

// TestNew checks the registry's errors and that every type builds.
func TestNew(t *testing.T) {
	t.Parallel()
	want := []string{"cf", "chi2", "identity", "linear", "noise", "ppk", "rbf", "tfidf"}
	if got := kernels.Types(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Types() = %v, want %v", got, want)
	}
	k, err := kernels.New("rbf", map[string]float64{"bandwidth": 2})
	if err != nil || k != (kernels.RBF{Bandwidth: 2}) {
		t.Errorf("New(rbf) = %v, %v", k, err)
	}
	k, err = kernels.New("ppk", map[string]float64{"components": 4, "seed": 11, "rho": 1})
	if err != nil || k != (kernels.PPK{Components: 4, Seed: 11, Rho: 1}) {
		t.Errorf("New(ppk) = %v, %v", k, err)
	}
	for _, test := range []struct {
		typ    string
		params map[string]float64
		want   string
	}{
		{"gauss", nil, `unknown kernel type "gauss" (valid: cf, chi2, identity, linear, noise, ppk, rbf, tfidf)`},
		{"rbf", map[string]float64{"sigma": 1}, `unknown parameter "sigma" for kernel type "rbf" (valid: bandwidth, median_scale)`},
		{"linear", map[string]float64{"x": 1}, `(valid: none)`},
		{"noise", map[string]float64{"seed": -1}, `"seed" of kernel type "noise" must be ≥ 0, got -1`},
		{"noise", map[string]float64{"seed": 1 << 60}, `"seed" of kernel type "noise" must be an integer in [0, 2^53], got 1.152921504606847e+18`},
		{"rbf", map[string]float64{"bandwidth": -0.5}, `"bandwidth" of kernel type "rbf" must be ≥ 0, got -0.5`},
		{"ppk", map[string]float64{"components": 2.5}, `"components" of kernel type "ppk" must be an integer, got 2.5`},
		{"chi2", map[string]float64{"sigma": math.NaN()}, `must be finite`},
	} {
		if _, err := kernels.New(test.typ, test.params); err == nil || !strings.Contains(err.Error(), test.want) {
			t.Errorf("New(%q, %v) error = %v, want %q", test.typ, test.params, err, test.want)
		}
	}
	if _, err := kernels.ParseNormalization("unit"); err == nil {
		t.Error("ParseNormalization(unit) gave no error")
	}
	for _, z := range norms {
		if got, err := kernels.ParseNormalization(z.String()); err != nil || got != z {
			t.Errorf("ParseNormalization(%q) = %v, %v", z.String(), got, err)
		}
	}
}

// TestValidateGram checks the symmetry and PSD checks.
func TestValidateGram(t *testing.T) {
	t.Parallel()
	// Eigenvalues of [[1,2],[2,1]] are 3 and −1.
	if err := kernels.ValidateGram(mat.NewDense(2, 2, []float64{1, 2, 2, 1}), 0); !errors.Is(err, kernels.ErrNotPSD) {
		t.Errorf("indefinite: error = %v, want ErrNotPSD", err)
	}
	if err := kernels.ValidateGram(mat.NewDense(2, 2, []float64{1, 0.5, 0.4, 1}), 0); !errors.Is(err, kernels.ErrNotSymmetric) {
		t.Errorf("asymmetric: error = %v, want ErrNotSymmetric", err)
	}
	if err := kernels.ValidateGram(mat.NewDense(2, 3, nil), 0); err == nil {
		t.Error("non-square: no error")
	}
	if err := kernels.ValidateGram(mat.NewDense(2, 2, []float64{2, 1, 1, 2}), 0); err != nil {
		t.Errorf("PSD: %v", err)
	}
	if v, err := kernels.MinEigenvalue(mat.NewSymDense(2, []float64{1, 2, 2, 1})); err != nil || !scalar.EqualWithinAbs(v, -1, 1e-12) {
		t.Errorf("MinEigenvalue = %v, %v, want -1", v, err)
	}
}

// TestFitNoInputMutation checks that Fit and Rows leave their inputs alone.
func TestFitNoInputMutation(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 7})
	y := mat.NewDense(2, 2, []float64{0, 1, 1, 0})
	x0, y0 := mat.DenseCopyOf(x), mat.DenseCopyOf(y)
	sets := [][]int{{3, 1, 1}, {2}, {}}
	m, err := kernels.Fit(kernels.RBF{}, kernels.Input{Features: x}, kernels.Options{Normalize: kernels.NormCenter})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Rows(kernels.Input{Features: y}); err != nil {
		t.Fatal(err)
	}
	g := m.Gram()
	g.SetSym(0, 0, 99)
	if m.Gram().At(0, 0) == 99 {
		t.Error("Gram returned the model's own matrix")
	}
	if _, err := kernels.Fit(kernels.Cosine{}, kernels.Input{Sets: sets}, kernels.Options{}); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(x, x0) || !mat.Equal(y, y0) || sets[0][0] != 3 || len(sets[0]) != 3 {
		t.Error("Fit or Rows modified its input")
	}
}

func rowSum(g mat.Matrix, i int) float64 {
	_, c := g.Dims()
	var s float64
	for j := 0; j < c; j++ {
		s += g.At(i, j)
	}
	return s
}
