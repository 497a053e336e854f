package mkpoe

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/reference"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

// TestKernelCutKeep checks the truncation rule on hand-computed spectra
// (eigenvalues ascending, as positiveEigen returns them).
func TestKernelCutKeep(t *testing.T) {
	vals := []float64{1, 2, 3, 4} // sum 10
	for _, tc := range []struct {
		cut        kernelCut
		keep       int
		energyKept float64
	}{
		{kernelCut{}, 4, 1},
		{kernelCut{rank: 2}, 2, 0.7},
		{kernelCut{rank: 9}, 4, 1},
		{kernelCut{energy: 0.35}, 1, 0.4},
		{kernelCut{energy: 0.4}, 1, 0.4},
		{kernelCut{energy: 0.5}, 2, 0.7},
		{kernelCut{energy: 0.95}, 4, 1},
		{kernelCut{rank: 1, energy: 0.95}, 1, 0.4}, // the smaller basis wins
		{kernelCut{rank: 3, energy: 0.5}, 2, 0.7},
	} {
		keep, e := tc.cut.keep(vals)
		if keep != tc.keep || math.Abs(e-tc.energyKept) > 1e-15 {
			t.Errorf("%+v: keep %d (energy %g), want %d (%g)", tc.cut, keep, e, tc.keep, tc.energyKept)
		}
	}
}

// truncatedKernel returns U_rΛ_rU_rᵀ over the r largest eigenvalues of k,
// and the fraction of the positive eigenvalues' sum they hold: the kernel a
// KernelRank = r fit learns on, built independently of kernelEigenbasis.
func truncatedKernel(k mat.Symmetric, r int) (*mat.SymDense, float64) {
	var eig mat.EigenSym
	if !eig.Factorize(k, true) {
		panic("eigendecomposition failed")
	}
	vals := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	n := k.SymmetricDim()
	out := mat.NewSymDense(n, nil)
	total, kept := 0.0, 0.0
	for c := range vals {
		if vals[c] > 0 {
			total += vals[c]
		}
	}
	for c := n - r; c < n; c++ {
		kept += vals[c]
		col := mat.Col(nil, c, &u)
		out.SymRankOne(out, vals[c], mat.NewVecDense(n, col))
	}
	return out, kept / total
}

// TestKernelRankMatchesTruncatedKernel checks a KernelRank fit against an
// independent optimum: the barrier method on the explicitly truncated
// kernels. Both are the same convex problem, so objectives agree within
// the certified tolerance, and Stats.KernelEnergy is the kept fraction.
func TestKernelRankMatchesTruncatedKernel(t *testing.T) {
	t.Parallel()
	for _, pr := range smallProblems()[:4] {
		for _, solver := range []Solver{Accelerated, LowRank} {
			for _, combine := range []Combine{Separate, Sum} {
				if combine == Sum && len(pr.ks) == 1 {
					continue
				}
				name := fmt.Sprintf("%s/%s/%v", pr.name, solver, combine)
				const rank = 3
				src := pr.ks
				if combine == Sum {
					sum := mat.NewSymDense(pr.ks[0].SymmetricDim(), nil)
					for _, k := range pr.ks {
						sum.AddSym(sum, k)
					}
					src = []mat.Symmetric{sum}
				}
				var trunc []mat.Symmetric
				var energy []float64
				for _, k := range src {
					kt, e := truncatedKernel(k, rank)
					trunc = append(trunc, kt)
					energy = append(energy, e)
				}
				ref, err := reference.Barrier(trunc, pr.cs, pr.beta, false)
				if err != nil {
					t.Fatal(err)
				}
				m, err := Fit(pr.ks, pr.cs, &Settings{Beta: pr.beta, Solver: solver, Combine: combine, KernelRank: rank})
				if err != nil {
					t.Fatal(err)
				}
				if !m.Stats.Converged || m.Stats.RelativeGap > 1e-3 || m.Stats.KernelEnergy[0] > 1 {
					t.Errorf("%s: not certified (gap %.3g)", name, m.Stats.RelativeGap)
				}
				if d := relDiff(m.Objective, ref.Objective); d > 1e-3 {
					t.Errorf("%s: objective %.8g, optimum on the truncated kernels %.8g (relative %.2g)", name, m.Objective, ref.Objective, d)
				}
				var buf bytes.Buffer
				if err := m.WriteJSON(&buf); err != nil {
					t.Fatal(err)
				}
				if back, err := ReadJSON(&buf, name); err != nil || !floats.Equal(back.Stats.KernelEnergy, m.Stats.KernelEnergy) {
					t.Errorf("%s: the model file does not read back with its kernel energy: %v", name, err)
				}
				if len(m.Stats.KernelEnergy) != len(energy) {
					t.Fatalf("%s: KernelEnergy %v, want %d entries", name, m.Stats.KernelEnergy, len(energy))
				}
				for b, e := range energy {
					if math.Abs(m.Stats.KernelEnergy[b]-e) > 1e-9 || m.Stats.BlockDims[b] != rank {
						t.Errorf("%s block %d: energy %.12g dims %d, want %.12g and %d", name, b, m.Stats.KernelEnergy[b], m.Stats.BlockDims[b], e, rank)
					}
				}
			}
		}
	}
}

// TestKernelEnergyCut checks that KernelEnergy keeps the fewest leading
// eigenpairs holding the fraction asked, and that fits without truncation
// record no energy.
func TestKernelEnergyCut(t *testing.T) {
	t.Parallel()
	pr := smallProblems()[0]
	k := pr.ks[0]
	vals, _ := positiveEigen(k, 1e-10, "k")
	total := 0.0
	for _, v := range vals {
		total += v
	}
	for _, frac := range []float64{0.5, 0.9, 0.999} {
		want, kept := 0, 0.0
		for kept < frac*total {
			want++
			kept += vals[len(vals)-want]
		}
		m, err := Fit(pr.ks[:1], pr.cs, &Settings{Beta: pr.beta, KernelEnergy: frac})
		if err != nil {
			t.Fatal(err)
		}
		if m.Stats.BlockDims[0] != want || m.Stats.KernelEnergy[0] < frac || math.Abs(m.Stats.KernelEnergy[0]-kept/total) > 1e-12 {
			t.Errorf("energy %g: %d eigenpairs, energy %g; want %d, %g", frac, m.Stats.BlockDims[0], m.Stats.KernelEnergy[0], want, kept/total)
		}
	}
	m, err := Fit(pr.ks[:1], pr.cs, &Settings{Beta: pr.beta})
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats.KernelEnergy != nil {
		t.Errorf("no truncation asked: KernelEnergy %v, want nil", m.Stats.KernelEnergy)
	}
}

// TestKernelTruncationRefused checks the settings that cannot truncate.
func TestKernelTruncationRefused(t *testing.T) {
	t.Parallel()
	pr := smallProblems()[0]
	for _, s := range []Settings{
		{Beta: 1, KernelRank: -1},
		{Beta: 1, KernelEnergy: -0.1},
		{Beta: 1, KernelEnergy: 1},
		{Beta: 1, KernelEnergy: math.NaN()},
		{Beta: 1, KernelRank: 2, Mode: Diag},
		{Beta: 1, KernelEnergy: 0.9, Solver: Subgradient},
	} {
		if _, err := Fit(pr.ks, pr.cs, &s); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%+v: error %v, want an invalid-input error", s, err)
		}
	}
	n := pr.ks[0].SymmetricDim()
	x := testproblems.Features(rand.New(rand.NewPCG(1, 2)), n, 4)
	if _, err := FitFeatures(x, pr.cs, &Settings{Beta: 1}); err != nil {
		t.Fatalf("features without truncation: %v", err)
	}
	if _, err := FitFeatures(x, pr.cs, &Settings{Beta: 1, KernelRank: 1}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("features with KernelRank: error %v, want an invalid-input error", err)
	}
}

// TestKernelRankTies: a cut inside a tie of eigenvalues (the identity
// kernel: all equal) still keeps KernelRank eigenpairs, and their energy.
func TestKernelRankTies(t *testing.T) {
	t.Parallel()
	const n = 12
	id := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		id.SetSym(i, i, 1)
	}
	eb, energy := kernelEigenbasis(id, kernelCut{relTol: 1e-10, rank: 4}, basisSource{})
	if _, r := eb.phi.Dims(); r != 4 || math.Abs(energy-4.0/n) > 1e-12 {
		t.Errorf("identity at rank 4: %d eigenpairs, energy %g; want 4 and %g", r, energy, 4.0/n)
	}
	var g mat.Dense
	g.Mul(eb.phi.T(), eb.phi)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g.At(i, j)-want) > 1e-12 {
				t.Fatalf("ΦᵀΦ[%d][%d] = %g, want %g (orthonormal eigenvectors of eigenvalue 1)", i, j, g.At(i, j), want)
			}
		}
	}
}

// TestAutoSolver: Auto picks alm for GNMDS on ≥ 300 items at any β, the
// low-rank method for a kernel's full W on ≥ 300 items near β_min, the
// default elsewhere, records its choice, and its fit is certified like the
// chosen method's own (the default's fits are cut short: only the choice
// is checked).
func TestAutoSolver(t *testing.T) {
	t.Parallel()
	autoMinItems := defaultTuning().route.autoMinItems
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: autoMinItems, Dim: 3, Triplets: 3000, Flip: 0.1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	small := smallProblems()[0]
	unit, err := MinBeta([]mat.Symmetric{identitySym(autoMinItems)}, pl.Triplets, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Non-diagonal inputs: 8 random features and their linear kernel,
	// each with its own β_min (a fit below it answers at once).
	x := testproblems.Features(rand.New(rand.NewPCG(8, 300)), autoMinItems, 8)
	lin := testproblems.Linear(x)
	unitX, err := MinBeta([]mat.Symmetric{lin}, pl.Triplets, nil)
	if err != nil {
		t.Fatal(err)
	}
	probe, err := FitFeatures(x, pl.Triplets, &Settings{Beta: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	unitF := probe.Stats.MinBeta
	for _, tc := range []struct {
		name string
		fit  func() (*Model, error)
		want Solver
	}{
		{"GNMDS, 300 items at 1.5·β_min", func() (*Model, error) {
			return FitIdentity(autoMinItems, pl.Triplets, &Settings{Beta: 1.5 * unit, Solver: Auto})
		}, ALM},
		{"GNMDS, 300 items at 30·β_min", func() (*Model, error) {
			return FitIdentity(autoMinItems, pl.Triplets, &Settings{Beta: 30 * unit, Solver: Auto})
		}, ALM},
		{"identity as a kernel, 300 items (GNMDS)", func() (*Model, error) {
			return Fit([]mat.Symmetric{identitySym(autoMinItems)}, pl.Triplets, &Settings{Beta: 1.5 * unit, Solver: Auto})
		}, ALM},
		{"kernel, 300 items at 1.5·β_min", func() (*Model, error) {
			return Fit([]mat.Symmetric{lin}, pl.Triplets, &Settings{Beta: 1.5 * unitX, Solver: Auto})
		}, LowRank},
		{"kernel, 300 items at 3·β_min", func() (*Model, error) {
			return Fit([]mat.Symmetric{lin}, pl.Triplets, &Settings{Beta: 3 * unitX, Solver: Auto, MaxIter: 10})
		}, Accelerated},
		{"features, 300 items at 1.5·β_min", func() (*Model, error) {
			return FitFeatures(x, pl.Triplets, &Settings{Beta: 1.5 * unitF, Solver: Auto})
		}, LowRank},
		{"300 items, diagonal", func() (*Model, error) {
			return FitIdentity(autoMinItems, pl.Triplets, &Settings{Beta: 1.5 * unit, Solver: Auto, Mode: Diag, MaxIter: 10})
		}, Accelerated},
		{"few items", func() (*Model, error) {
			return Fit(small.ks, small.cs, &Settings{Beta: small.beta, Solver: Auto})
		}, Accelerated},
		{"few items, fixed rank", func() (*Model, error) {
			return Fit(small.ks, small.cs, &Settings{Beta: small.beta, Solver: Auto, Rank: 2})
		}, LowRank},
	} {
		m, err := tc.fit()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.Solver != tc.want {
			t.Errorf("%s: solver %q, want %q (β/β_min %g)", tc.name, m.Solver, tc.want, m.Beta/m.Stats.MinBeta)
		}
		if tc.want != Accelerated && tc.name != "few items, fixed rank" && (!m.Stats.Converged || m.Stats.RelativeGap > 1e-3) {
			t.Errorf("%s: not certified (gap %.3g)", tc.name, m.Stats.RelativeGap)
		}
	}
}
