package mkpoe

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// TestDiagonalKernelInputs: a diagonal kernel given as a *mat.DiagDense
// (read along its diagonal, diagonal.go) fits exactly as the same kernel
// given densely, for every method and for the identity and a diagonal
// with unequal entries: the same objective, bound, iterations, β_min and
// training embedding, bit for bit; the identity also matches FitIdentity.
func TestDiagonalKernelInputs(t *testing.T) {
	t.Parallel()
	const n = 60
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 3, Triplets: 900, Flip: 0.1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 1))
	unequal := make([]float64, n)
	for i := range unequal {
		unequal[i] = 0.5 + rng.Float64()
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	for _, tc := range []struct {
		diag   []float64
		name   string
		solver Solver
		mult   float64 // β in multiples of β_min
	}{
		{ones, "identity", ALM, 3},
		{ones, "identity", LowRank, 1.5},
		{ones, "identity", Accelerated, 3},
		{ones, "identity", Subgradient, 3},
		{unequal, "unequal", ALM, 5},
		{unequal, "unequal", LowRank, 1.5},
		{unequal, "unequal", Accelerated, 5},
	} {
		t.Run(fmt.Sprintf("%s_%s", tc.name, tc.solver), func(t *testing.T) {
			t.Parallel()
			dense := mat.NewSymDense(n, nil)
			for i, v := range tc.diag {
				dense.SetSym(i, i, v)
			}
			diag := mat.NewDiagDense(n, tc.diag)
			mbDense, err := MinBeta([]mat.Symmetric{dense}, pl.Triplets, nil)
			if err != nil {
				t.Fatal(err)
			}
			mbDiag, err := MinBeta([]mat.Symmetric{diag}, pl.Triplets, nil)
			if err != nil {
				t.Fatal(err)
			}
			if mbDense != mbDiag {
				t.Fatalf("β_min %.17g from the dense kernel, %.17g from the diagonal one", mbDense, mbDiag)
			}
			s := &Settings{Beta: tc.mult * mbDense, Solver: tc.solver}
			if tc.solver == Subgradient {
				s.MaxIter = 300 // the slow baseline: the same iterates are enough
			}
			want, err := Fit([]mat.Symmetric{dense}, pl.Triplets, s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Fit([]mat.Symmetric{diag}, pl.Triplets, s)
			if err != nil {
				t.Fatal(err)
			}
			same := func(what string, a, b *Model) {
				t.Helper()
				if a.Objective != b.Objective || a.Stats.DualBound != b.Stats.DualBound || a.Stats.Iterations != b.Stats.Iterations || a.Stats.MinBeta != b.Stats.MinBeta {
					t.Errorf("%s: objective %.17g, bound %.17g, %d iterations, β_min %.17g; dense kernel: %.17g, %.17g, %d, %.17g",
						what, b.Objective, b.Stats.DualBound, b.Stats.Iterations, b.Stats.MinBeta, a.Objective, a.Stats.DualBound, a.Stats.Iterations, a.Stats.MinBeta)
				}
				if !mat.Equal(a.Train, b.Train) {
					t.Errorf("%s: the training embedding differs from the dense kernel's", what)
				}
			}
			same("diagonal kernel", want, got)
			if want.Objective <= 0 || (tc.solver != Subgradient && !want.Stats.Converged) {
				t.Errorf("dense kernel: objective %g, gap %g: not a certified fit", want.Objective, want.Stats.RelativeGap)
			}
			if tc.name == "identity" {
				id, err := FitIdentity(n, pl.Triplets, s)
				if err != nil {
					t.Fatal(err)
				}
				same("FitIdentity", want, id)
			}
		})
	}
}

// TestDiagonalBlockNoSquare: GNMDS and a diagonal kernel keep their block
// as its diagonal (no n×n Φ; a factored fit's memory estimate counts two
// n-vectors) until a method that reads Φ whole forms it.
func TestDiagonalBlockNoSquare(t *testing.T) {
	const n = 2000
	for _, in := range []input{
		{kind: InputIdentity, n: n, numInputs: 1},
		{kind: InputKernels, n: n, numInputs: 1, kernels: []mat.Symmetric{mat.NewDiagDense(n, ones(n))}},
	} {
		blocks, backs := formulation(in, Full, true, kernelCut{relTol: 1e-10}, basisSource{})
		if blocks[0].phi != nil || blocks[0].r != n || len(blocks[0].phiDiag) != n || backs[0] != nil {
			t.Fatalf("%s: block of order %d with phi %v, back %v: want its diagonal alone", in.kind, blocks[0].r, blocks[0].phi != nil, backs[0] != nil)
		}
		if need := memoryNeed(newProblem(n, blocks, nil, 1), true); need != 8*2*n {
			t.Errorf("%s: a factored fit's estimate %g bytes, want Φ's and B's diagonals (%d)", in.kind, need, 8*2*n)
		}
		materializeDiagonal(blocks, backs)
		if r, c := blocks[0].phi.Dims(); r != n || c != n || (in.kind == InputKernels) != (backs[0] != nil) {
			t.Fatalf("%s: materialised phi %d×%d, back %v", in.kind, r, c, backs[0] != nil)
		}
	}
}
