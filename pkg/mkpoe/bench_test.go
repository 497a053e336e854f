package mkpoe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

// asetScale is an aset400-scale fixture: n = 330 training items, 5 kernels
// of differing quality and rank, 4400 noisy triplets from a hidden 5-d
// embedding (10% flipped). Built once.
var asetScale = sync.OnceValues(func() ([]mat.Symmetric, []data.Comparison) {
	rng := rand.New(rand.NewPCG(330, 5))
	n := 330
	hidden := testproblems.Features(rng, n, 5)
	noisy := func(scale float64, d int) *mat.Dense {
		x := testproblems.Features(rng, n, d)
		x.Scale(scale, x)
		h := mat.NewDense(n, d, nil)
		h.Slice(0, n, 0, 5).(*mat.Dense).Copy(hidden)
		x.Add(x, h)
		return x
	}
	sphere := testproblems.Features(rng, n, 3)
	for i := 0; i < n; i++ {
		r := mat.Norm(sphere.RowView(i), 2)
		for j := 0; j < 3; j++ {
			sphere.Set(i, j, sphere.At(i, j)/r)
		}
	}
	ks := []mat.Symmetric{
		testproblems.Linear(noisy(0.5, 8)),                     // good view, rank 8
		testproblems.RBF(noisy(1.0, 5)),                        // fair view, full numerical rank
		testproblems.Linear(testproblems.Features(rng, n, 50)), // uninformative, rank 50
		testproblems.RBF(testproblems.Features(rng, n, 10)),    // uninformative RBF
		testproblems.Linear(sphere),                            // the paper's noise kernel (Sec. 5.1), rank 3
	}
	return ks, testproblems.Comparisons(rng, hidden, 4400, 0.1, testproblems.TripletsIf(true), 0)
})

func benchmarkFit(b *testing.B, mode Mode, solver Solver) { benchmarkFitBeta(b, mode, solver, 100) }

func benchmarkFitBeta(b *testing.B, mode Mode, solver Solver, beta float64) {
	ks, cs := asetScale()
	b.ReportAllocs()
	b.ResetTimer()
	var m *Model
	for i := 0; i < b.N; i++ {
		var err error
		m, err = Fit(ks, cs, &Settings{Beta: beta, Mode: mode, Solver: solver, MaxIter: 100000})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Stats.Iterations), "iters")
	b.ReportMetric(m.Stats.RelativeGap, "gap")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N)/math.Max(1, float64(m.Stats.Iterations)), "ms/iter")
	b.ReportMetric(m.Objective, "objective")
}

// BenchmarkFitDiag_n330_m5_c4400 times the default solver to a certified
// relative gap of 1e-3 (Settings.Tol), diagonal W.
func BenchmarkFitDiag_n330_m5_c4400(b *testing.B) { benchmarkFit(b, Diag, Accelerated) }

// BenchmarkFitFull_n330_m5_c4400 times the default solver to a certified
// relative gap of 1e-3, full W.
func BenchmarkFitFull_n330_m5_c4400(b *testing.B) { benchmarkFit(b, Full, Accelerated) }

// benchmarkSubgradient runs the paper's method (Appendix B) for at most
// maxIter iterations and reports the iteration at which its best objective
// first came within 1e-3 (relative) of the default solver's certified
// optimum (-1: not within the cap), and its relative excess at the cap.
func benchmarkSubgradient(b *testing.B, mode Mode, maxIter int) {
	ks, cs := asetScale()
	ref, err := Fit(ks, cs, &Settings{Beta: 100, Mode: mode})
	if err != nil {
		b.Fatal(err)
	}
	target := ref.Stats.DualBound * (1 + 1e-3)
	b.ResetTimer()
	var m *Model
	reached := -1
	for i := 0; i < b.N; i++ {
		reached = -1
		rec := func(it Iteration) {
			if reached < 0 && it.Best <= target {
				reached = it.Iter
			}
		}
		m, err = Fit(ks, cs, &Settings{Beta: 100, Mode: mode, Solver: Subgradient, MaxIter: maxIter, Recorder: rec})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(reached), "iters_to_1e-3")
	b.ReportMetric((m.Objective-ref.Stats.DualBound)/ref.Stats.DualBound, "excess_at_cap")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N)/float64(m.Stats.Iterations), "ms/iter")
}

// BenchmarkSubgradientDiag_n330_m5_c4400 is the paper's method, diagonal W,
// capped at 3000 iterations.
func BenchmarkSubgradientDiag_n330_m5_c4400(b *testing.B) { benchmarkSubgradient(b, Diag, 3000) }

// BenchmarkSubgradientFull_n330_m5_c4400 is the paper's method, full W in the
// original n×n W-space, capped at 200 iterations.
func BenchmarkSubgradientFull_n330_m5_c4400(b *testing.B) { benchmarkSubgradient(b, Full, 200) }

// betaGrid is the β grid of the benchmarks: the paper's range (Sec. 5.1
// and 5.2 tune β over 1e-2 … 1e7).
var betaGrid = []float64{1e-2, 1, 1e2, 1e4, 1e5, 1e6, 1e7}

// BenchmarkFitBeta runs the default solver, cold, on the aset400-scale
// fixture at every β of betaGrid, reporting iterations and the certified
// gap: the solver's cost should not depend on β (docs/notes/solver-log.md
// has the measurements).
func BenchmarkFitBeta(b *testing.B) {
	for _, mode := range []Mode{Diag, Full} {
		for _, beta := range betaGrid {
			b.Run(fmt.Sprintf("%v_beta%g", mode, beta), func(b *testing.B) { benchmarkFitBeta(b, mode, Accelerated, beta) })
		}
	}
}

// BenchmarkFitBetaFactored runs the factored methods (lowrank, alm) on
// the same fixture and grid, full W, beside BenchmarkFitBeta's default.
func BenchmarkFitBetaFactored(b *testing.B) {
	for _, solver := range []Solver{LowRank, ALM} {
		for _, beta := range betaGrid {
			b.Run(fmt.Sprintf("%s_beta%g", solver, beta), func(b *testing.B) { benchmarkFitBeta(b, Full, solver, beta) })
		}
	}
}

// pathGrid is the paper's 10-value β grid of the aset400 experiments.
var pathGrid = []float64{1e-2, 1e-1, 1, 10, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7}

// BenchmarkFitPath fits the whole 10-value grid in increasing β, each fit
// warm-started from the previous one (Settings.Init), as the harness does,
// with the accelerated method (diagonal and full W) and alm (full W);
// it reports the largest certified gap along the path, and with -v (or
// -test.v) logs every fit's time, iterations and gap.
func BenchmarkFitPath(b *testing.B) {
	ks, cs := asetScale()
	for _, c := range []struct {
		mode   Mode
		solver Solver
	}{{Diag, Accelerated}, {Full, Accelerated}, {Full, ALM}} {
		b.Run(c.mode.String()+"_"+string(c.solver), func(b *testing.B) {
			worst := 0.0
			for i := 0; i < b.N; i++ {
				var prev *Model
				for _, beta := range pathGrid {
					start := time.Now()
					m, err := Fit(ks, cs, &Settings{Beta: beta, Mode: c.mode, Solver: c.solver, Init: prev})
					if err != nil {
						b.Fatal(err)
					}
					if testing.Verbose() {
						b.Logf("β = %g: %.2f s, %d iterations, gap %.2g", beta, time.Since(start).Seconds(), m.Stats.Iterations, m.Stats.RelativeGap)
					}
					if !m.Stats.Converged {
						b.Errorf("β = %g: not converged (gap %.3g)", beta, m.Stats.RelativeGap)
					}
					worst = math.Max(worst, m.Stats.RelativeGap)
					prev = m
				}
			}
			b.ReportMetric(worst, "max_gap")
		})
	}
}

// BenchmarkGNMDS_n100_c20000 is GNMDS (K = I, Sec. 3.3) on 100 items with
// 20,000 noisy triplets (10% flipped) from a hidden 3-d embedding, β = 1000.
func BenchmarkGNMDS_n100_c20000(b *testing.B) {
	rng := rand.New(rand.NewPCG(100, 20000))
	hidden := testproblems.Features(rng, 100, 3)
	cs := testproblems.Comparisons(rng, hidden, 20000, 0.1, testproblems.TripletsIf(true), 0)
	b.ResetTimer()
	var m *Model
	for i := 0; i < b.N; i++ {
		var err error
		if m, err = FitIdentity(100, cs, &Settings{Beta: 1000}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Stats.Iterations), "iters")
	b.ReportMetric(m.Stats.RelativeGap, "gap")
}

// BenchmarkPlantedGNMDS fits GNMDS on the planted sets of the scale
// benchmarks (data.GeneratePlanted: 5-d points, 10% flipped triplets) at
// 1.5·β_min with the low-rank and the default method, side by side (run
// with -run XXX -bench PlantedGNMDS -benchtime 1x; the n = 1000 case takes
// minutes with the default method).
func BenchmarkPlantedGNMDS(b *testing.B) {
	for _, size := range []struct{ n, m int }{{300, 6000}, {1000, 24000}} {
		pl, err := data.GeneratePlanted(data.PlantedSpec{N: size.n, Dim: 5, Triplets: size.m, Flip: 0.1, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		unit, err := MinBeta([]mat.Symmetric{identitySym(size.n)}, pl.Triplets, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, solver := range []Solver{LowRank, Accelerated} {
			b.Run(fmt.Sprintf("n%d_c%d_%s", size.n, size.m, solver), func(b *testing.B) {
				var m *Model
				for i := 0; i < b.N; i++ {
					if m, err = FitIdentity(size.n, pl.Triplets, &Settings{Beta: 1.5 * unit, Solver: solver}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(m.Stats.Iterations), "iters")
				b.ReportMetric(m.Stats.RelativeGap, "gap")
				b.ReportMetric(float64(m.Dim()), "rank")
			})
		}
	}
}

// identitySym is the n×n identity as a kernel.
func identitySym(n int) *mat.SymDense {
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		k.SetSym(i, i, 1)
	}
	return k
}

// BenchmarkFitNearMinBeta times the methods Auto chooses between on the
// aset400-scale fixture (330 items, full W) at small multiples of β_min,
// where Auto's lowrank rule (routeTuning.autoMaxMultiple) applies.
func BenchmarkFitNearMinBeta(b *testing.B) {
	ks, cs := asetScale()
	bmin, err := MinBeta(ks, cs, &Settings{Beta: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, mult := range []float64{1.25, 1.5, 2} {
		for _, solver := range []Solver{Accelerated, LowRank, ALM} {
			b.Run(fmt.Sprintf("%gx_%s", mult, solver), func(b *testing.B) { benchmarkFitBeta(b, Full, solver, mult*bmin) })
		}
	}
}
