package mkpoe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/reference"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

// wholeWorkingSet restricts nothing.
func wholeWorkingSet(p *problem) *workingSet { return p.wholeSet(allComparisons(p)) }

// allComparisons lists the indices of all of p's comparisons.
func allComparisons(p *problem) []int {
	all := make([]int, len(p.left))
	for c := range all {
		all[c] = c
	}
	return all
}

// stalledButAccurate is the relative primal-dual gap at which a stalled
// interior-point run (conic.ErrStalled: round-off ends the last digits before
// the test's tolerance of 1e-10 or 1e-8) still counts as solved; the
// objective and dual are then checked against the exact optimum to 1e-6
// or looser. Where it stalls depends on the BLAS kernels: at β = 1e7
// (seed6, full) the run stalled at 7.9e-7 with OpenBLAS 0.3.21's generic
// Prescott kernels, which it falls back to on a CPU it does not recognise
// (a Sapphire Rapids Xeon, 2026-11-26), and below 1e-7 with its Haswell,
// SkylakeX and Cooperlake kernels (OPENBLAS_CORETYPE).
const stalledButAccurate = 1e-6

// acceptStall returns err, or nil when it only reports a stall below
// stalledButAccurate (round-off ends the last digits; the caller's checks
// against the exact optimum judge the point).
func acceptStall(res conic.Result, err error) error {
	if errors.Is(err, conic.ErrStalled) && res.X != nil && relDiff(res.Primal, res.Dual) < stalledButAccurate {
		return nil
	}
	return err
}

// TestConicMatchesBarrier solves whole small problems with the
// interior-point method (package conic) and compares its primal and dual values
// with the independent barrier method, at small and large β.
func TestConicMatchesBarrier(t *testing.T) {
	t.Parallel()
	for _, pr := range smallProblems() {
		for _, beta := range []float64{pr.beta, 1e4, 1e7} {
			for _, mode := range []Mode{Full, Diag} {
				t.Run(fmt.Sprintf("%s_%v_beta%g", pr.name, mode, beta), func(t *testing.T) {
					t.Parallel()
					ref, err := reference.Barrier(pr.ks, pr.cs, beta, mode == Diag)
					if err != nil {
						t.Fatal(err)
					}
					in := input{kind: InputKernels, n: pr.ks[0].SymmetricDim(), kernels: pr.ks, numInputs: len(pr.ks)}
					blocks, _ := formulation(in, mode, true, kernelCut{relTol: 1e-10}, basisSource{})
					materializeDiagonal(blocks, nil) // restrict reads Φ as a matrix
					p := newProblem(in.n, blocks, pr.cs, beta)
					set := wholeWorkingSet(p)
					// Diagonal problems run with Gondzio's correctors
					// (centralityCorrect) and without; PSD ones never use them.
					corrs := []int{p.tune.conic.MaxCorrectors}
					if mode == Diag {
						corrs = []int{0, p.tune.conic.MaxCorrectors}
					}
					var res conic.Result
					for _, corr := range corrs {
						cp, lay := p.restrict(set)
						cp.Settings.MaxCorrectors = corr
						res, err = conic.Solve(context.Background(), cp, 1e-10, 200)
						err = acceptStall(res, err)
						if err != nil {
							t.Fatalf("conic.Solve (%d correctors): %v after %d iterations (primal %g dual %g)", corr, err, res.Iterations, res.Primal, res.Dual)
						}
						x := p.expand(set, lay, res.X)
						f := p.regularizer(x) + p.lossAndWeights(marginsOf(p, x), 0, nil)
						if d := relDiff(f, ref.Objective); d > 1e-6 {
							t.Errorf("%d correctors: objective %.10g, exact %.10g: relative difference %.2g", corr, f, ref.Objective, d)
						}
						if d := relDiff(res.Dual, ref.Objective); d > 1e-6 {
							t.Errorf("%d correctors: dual %.10g, exact %.10g: relative difference %.2g", corr, res.Dual, ref.Objective, d)
						}
						t.Logf("ipm, %d correctors: %d iterations: f %.10g dual %.10g exact %.10g", corr, res.Iterations, f, res.Dual, ref.Objective)
					}
					if mode != Full {
						return
					}
					// The comparison-space variant on the whole problem.
					all := make([]int, len(pr.cs))
					for c := range all {
						all[c] = c
					}
					// Both starting points of interiorFull: the primal-feasible
					// one and the balanced one (balancedStart); the balanced
					// one also with its Newton matrices factored in mixed
					// precision (conic's factorMixed) whatever their size, and warm
					// started as interiorFull's later rounds are (start): from
					// the iterate at gap warmBackup of a run on the first 90%
					// of the comparisons.
					for _, variant := range []struct{ balanced, mixed, warm bool }{{false, false, false}, {true, false, false}, {true, true, false}, {true, false, true}} {
						balanced := variant.balanced
						pc := p.pairConic(all)
						pc.BalancedStart = balanced
						if variant.warm {
							most := p.pairConic(all[:len(all)*9/10])
							most.BalancedStart, most.SnapshotGap = true, defaultTuning().interior.warmBackup
							hr, err := conic.Solve(context.Background(), most, 1e-8, 200)
							if hr.Snapshot == nil {
								t.Fatalf("90%% of the comparisons: no iterate kept at gap %g (%v after %d iterations)", most.SnapshotGap, err, hr.Iterations)
							}
							pc.Start = hr.Snapshot
						}
						pc.Settings.MixedPrecision, pc.Settings.MixedMinSize = variant.mixed, 0
						// The NT scaling of this variant squares the condition of
						// its eigenproblem (package conic), so it stops at 1e-8.
						res, err = conic.Solve(context.Background(), pc, 1e-8, 200)
						if st := pc.System.(*conic.PairOperator).MixedStats(); variant.mixed && st.Factored == 0 {
							t.Errorf("mixed precision: no single-precision factorisation")
						} else if variant.mixed {
							t.Logf("mixed precision: %d single-precision factorisations, %d refinement steps, fell back: %v", st.Factored, st.Refined, st.Failed)
						}
						err = acceptStall(res, err)
						if err != nil {
							t.Fatalf("pair conic.Solve %+v: %v after %d iterations (primal %g dual %g)", variant, err, res.Iterations, res.Primal, res.Dual)
						}
						xp := make([]float64, p.dim)
						for q, bl := range pc.Blocks {
							blk := &p.blocks[q]
							conic.SmatOf(bl.K, res.X[bl.Off:bl.Off+bl.Size], xp[blk.off:blk.off+blk.size])
						}
						fp := p.regularizer(xp) + p.lossAndWeights(marginsOf(p, xp), 0, nil)
						// The objective is recomputed from x, where a primal
						// residual at the method's tolerance is multiplied by
						// μ = β/|𝒞| (1.7e5 at β = 1e7 here): 1e-5 for it, 1e-6
						// for the dual, which is not.
						// The warm start begins with the residuals of the
						// kept iterate and of the added comparisons' primal
						// equations, and ends with the method's own tolerance
						// binding on the primal residual, not on the gap: up
						// to 2e-5 here (interiorFull certifies the objective
						// recomputed from x, so this costs iterations, not
						// validity).
						if d := relDiff(fp, ref.Objective); (variant.warm && d > 1e-4) || (!variant.warm && d > 1e-5) || (!balanced && d > 1e-6) {
							t.Errorf("pair variant %+v: objective %.10g, exact %.10g: relative difference %.2g", variant, fp, ref.Objective, d)
						}
						if d := relDiff(res.Dual, ref.Objective); d > 1e-6 {
							t.Errorf("pair variant %+v: dual %.10g, exact %.10g: relative difference %.2g", variant, res.Dual, ref.Objective, d)
						}
						t.Logf("pair ipm %+v: %d iterations: f %.10g dual %.10g", variant, res.Iterations, fp, res.Dual)
					}
				})
			}
		}
	}
}

// TestFitWithoutInteriorStage forces the fallback taken when the
// interior-point stage would be too expensive: the accelerated method must
// continue past its hand-over point from where it stopped and return a
// valid (certified-bound) result.
func TestFitWithoutInteriorStage(t *testing.T) {
	t.Parallel()
	noInterior := tuned(func(t *tuning) { t.crossover.maxInteriorFlops = 0 })
	for _, pr := range smallProblems()[:3] {
		t.Run(pr.name, func(t *testing.T) {
			ref, err := reference.Barrier(pr.ks, pr.cs, 1e4, false)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Fit(pr.ks, pr.cs, &Settings{Beta: 1e4, MaxIter: 3000, tuning: noInterior})
			if err != nil {
				t.Fatal(err)
			}
			if m.Stats.DualBound > ref.Objective*(1+1e-9) || m.Objective < ref.Objective*(1-1e-9) {
				t.Errorf("objective %.8g and bound %.8g do not bracket the optimum %.8g", m.Objective, m.Stats.DualBound, ref.Objective)
			}
			if !m.Stats.Converged && m.Stats.Iterations != 3000 {
				t.Errorf("unconverged after %d iterations, want the accelerated method to run to MaxIter = 3000", m.Stats.Iterations)
			}
			t.Logf("objective %.8g (exact %.8g), gap %.2g, %d iterations, converged %v", m.Objective, ref.Objective, m.Stats.RelativeGap, m.Stats.Iterations, m.Stats.Converged)
		})
	}
}

// TestOptimumEstimate checks the starting estimate of the optimum on
// hand-computed cases: the geometric mean of a positive bound and the
// objective, and the objective where the bound is no help.
func TestOptimumEstimate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		objective, bound, want float64
	}{
		{objective: 400, bound: 4, want: 40},
		{objective: 853, bound: 853, want: 853}, // closed bracket: the objective
		{objective: 100, bound: 0, want: 100},   // no certificate yet
		{objective: 100, bound: -5, want: 100},
		{objective: 100, bound: math.Inf(-1), want: 100},
	} {
		if got := optimumEstimate(solution{objective: tc.objective, bound: tc.bound}); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("objective %g, bound %g: estimate %g, want %g", tc.objective, tc.bound, got, tc.want)
		}
	}
}

// TestRestrictRowsAreMargins checks the rows of restrict's B on partial
// working sets against the margins they stand for: for x supported on the
// kept coordinates of every diagonal block (and any point of the kept
// full blocks' bases), B·x_r + 1 must be the whole problem's margin of
// each kept comparison. The diagonal rows come from Φ's kept columns
// gathered item by item; enough comparisons that several tasks of
// linalg.ParallelRows fill them.
func TestRestrictRowsAreMargins(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 11))
	n := 40
	hidden := testproblems.Features(rng, n, 3)
	ks := []mat.Symmetric{testproblems.Linear(testproblems.Features(rng, n, 7)), testproblems.RBF(testproblems.Features(rng, n, 4))}
	cs := testproblems.Comparisons(rng, hidden, 700, 0.1, testproblems.TripletsIf(true), 0)
	for _, mode := range []Mode{Diag, Full} {
		t.Run(mode.String(), func(t *testing.T) {
			in := input{kind: InputKernels, n: n, kernels: ks, numInputs: len(ks)}
			blocks, _ := formulation(in, mode, true, kernelCut{relTol: 1e-10}, basisSource{})
			p := newProblem(n, blocks, cs, 1)
			var comps []int
			for c := range p.left {
				if rng.IntN(4) != 0 {
					comps = append(comps, c)
				}
			}
			set := p.wholeSet(comps)
			for b := range p.blocks {
				if !p.blocks[b].diag {
					continue
				}
				var coords []int
				for t := 0; t < p.blocks[b].r; t++ {
					if rng.IntN(3) == 0 {
						coords = append(coords, t)
					}
				}
				set.coords[b] = coords
			}
			cp, lay := p.restrict(set)
			xr := make([]float64, cp.Dim)
			for _, bl := range cp.Blocks {
				if !bl.PSD {
					for j := 0; j < bl.K; j++ {
						xr[bl.Off+j] = rng.Float64()
					}
					continue
				}
				// A PSD point: svec of F Fᵀ.
				f := testproblems.Features(rng, bl.K, 3)
				var y mat.Dense
				y.Mul(f, f.T())
				conic.SvecOf(bl.K, y.RawMatrix().Data, xr[bl.Off:bl.Off+bl.Size])
			}
			x := p.expand(set, lay, xr)
			m := marginsOf(p, x)
			bx := make([]float64, len(comps))
			cp.MulB(xr, bx)
			for r, c := range comps {
				if d := math.Abs(bx[r] + 1 - m[c]); d > 1e-9*math.Max(1, math.Abs(m[c])) {
					t.Fatalf("comparison %d (row %d): B·x + 1 = %.15g, margin %.15g", c, r, bx[r]+1, m[c])
				}
			}
		})
	}
}
