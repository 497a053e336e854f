package mkpoe

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

func TestKernelShares(t *testing.T) {
	t.Parallel()
	eye := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	cases := []struct {
		name  string
		w     []*mat.SymDense
		grams []mat.Symmetric
		want  []float64
	}{
		// tr(I·I) = 2 and tr(2I·[[1,1],[1,1]]) = 4: shares 1/3, 2/3.
		{"hand computed", []*mat.SymDense{eye, mat.NewSymDense(2, []float64{2, 0, 0, 2})},
			[]mat.Symmetric{eye, mat.NewSymDense(2, []float64{1, 1, 1, 1})}, []float64{1.0 / 3, 2.0 / 3}},
		{"all zero", []*mat.SymDense{mat.NewSymDense(2, nil), mat.NewSymDense(2, nil)},
			[]mat.Symmetric{eye, eye}, []float64{0, 0}},
		{"one W", []*mat.SymDense{eye}, []mat.Symmetric{eye}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := (&Model{W: tc.w}).KernelShares(tc.grams)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-15 {
					t.Errorf("share %d = %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
	if _, err := (&Model{W: []*mat.SymDense{eye, eye}}).KernelShares([]mat.Symmetric{eye}); err == nil {
		t.Error("KernelShares accepted one kernel for two W")
	}
	if _, err := (&Model{W: []*mat.SymDense{eye, eye}}).KernelShares([]mat.Symmetric{eye, mat.NewSymDense(3, nil)}); err == nil {
		t.Error("KernelShares accepted a 3×3 kernel for a 2×2 W")
	}
}

func TestEmbedWithTraining(t *testing.T) {
	t.Parallel()
	// One kernel, N = 2, projection [[1, 0], [0, 2]]: g(x) = (x₀, 2x₁).
	m := &Model{Input: InputKernels, N: 2, NumInputs: 1,
		W:     []*mat.SymDense{mat.NewSymDense(2, []float64{1, 0, 0, 4})},
		Proj:  []*mat.Dense{mat.NewDense(2, 2, []float64{1, 0, 0, 2})},
		Train: mat.NewDense(2, 2, []float64{1, 0, 0, 2})}
	all, err := m.EmbedWithTraining([]*mat.Dense{mat.NewDense(1, 2, []float64{3, 5})})
	if err != nil {
		t.Fatal(err)
	}
	if want := mat.NewDense(3, 2, []float64{1, 0, 0, 2, 3, 10}); !mat.Equal(all, want) {
		t.Errorf("got\n%v\nwant\n%v", mat.Formatted(all), mat.Formatted(want))
	}
	if _, err := (&Model{Input: InputIdentity}).EmbedWithTraining(nil); err != ErrNoOutOfSample {
		t.Errorf("GNMDS: err = %v, want ErrNoOutOfSample", err)
	}
}

// TestIsZero: at a tiny β the trace regulariser wins and W = 0 (every
// distance ties); at a large β it does not. A hand-made model with one
// non-zero coordinate is not zero.
func TestIsZero(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	x := testproblems.Features(rng, 12, 3)
	cs := testproblems.Comparisons(rng, x, 60, 0, testproblems.TripletsIf(true), 0)
	for _, tc := range []struct {
		beta float64
		want bool
	}{{1e-6, true}, {1e3, false}} {
		m, err := Fit([]mat.Symmetric{testproblems.Linear(x)}, cs, &Settings{Beta: tc.beta, Mode: Full})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.IsZero(); got != tc.want {
			t.Errorf("β = %g: IsZero %v, want %v", tc.beta, got, tc.want)
		}
	}
	m := &Model{Train: mat.NewDense(2, 1, []float64{0, 1e-300})}
	if m.IsZero() {
		t.Error("a model with a non-zero embedding entry reads as zero")
	}
	if (&Model{}).IsZero() {
		t.Error("a model without an embedding reads as zero")
	}
}

// TestDiagonalProjection checks projection's shortcut for diagonal W
// against hand-computed rows and against the eigendecomposition it
// replaces, whose rows it must match up to sign on random diagonals
// (distinct entries, some zero).
func TestDiagonalProjection(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		diag []float64
		want [][]float64 // rows of N
	}{
		{"distinct, by decreasing entry", []float64{1, 4, 0, 9},
			[][]float64{{0, 0, 0, 3}, {0, 2, 0, 0}, {1, 0, 0, 0}}},
		{"entry below the tolerance dropped", []float64{4, 1e-12, 1},
			[][]float64{{2, 0, 0}, {0, 0, 1}}},
		{"ties by index", []float64{1, 0, 1},
			[][]float64{{1, 0, 0}, {0, 0, 1}}},
		{"zero: one zero row", []float64{0, 0}, [][]float64{{0, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := len(tc.diag)
			w := mat.NewSymDense(d, nil)
			for k, v := range tc.diag {
				w.SetSym(k, k, v)
			}
			got := projection(w)
			if r, c := got.Dims(); r != len(tc.want) || c != d {
				t.Fatalf("N is %d×%d, want %d×%d", r, c, len(tc.want), d)
			}
			for r, row := range tc.want {
				for k, v := range row {
					if got.At(r, k) != v {
						t.Errorf("N[%d][%d] = %v, want %v", r, k, got.At(r, k), v)
					}
				}
			}
		})
	}
	// Against the eigendecomposition, on random diagonals with zeros.
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 20; trial++ {
		d := 1 + rng.IntN(12)
		w := mat.NewSymDense(d, nil)
		for k := 0; k < d; k++ {
			if rng.IntN(3) > 0 {
				w.SetSym(k, k, rng.ExpFloat64())
			}
		}
		got := diagonalProjection(w)
		vals, vecs := positiveEigen(w, projectionTolerance, "W")
		if r, _ := got.Dims(); r != max(len(vals), 1) {
			t.Fatalf("trial %d: %d rows, the eigendecomposition keeps %d eigenvalues", trial, r, len(vals))
		}
		for r := range vals {
			k := len(vals) - 1 - r
			s := math.Sqrt(vals[k])
			sign := 1.0
			if row := mat.Row(nil, r, got); mat.Dot(mat.NewVecDense(d, row), vecs.ColView(k)) < 0 {
				sign = -1
			}
			for i := 0; i < d; i++ {
				if diff := math.Abs(got.At(r, i) - sign*s*vecs.At(i, k)); diff > 1e-12 {
					t.Fatalf("trial %d: row %d differs from the eigendecomposition's by %g at %d", trial, r, diff, i)
				}
			}
		}
	}
}
