package mkpoe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestBestMultiple checks the exact minimiser of f(s) = s·reg + μ Σ
// max(0, 1 + s(m_c − 1)) on hand-computed cases and against a fine grid on
// random ones.
func TestBestMultiple(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		reg, mu float64
		m       []float64
		want    float64
	}{
		// f = s + max(0,1−s) + max(0,1−s/2): 2 − s/2 on [0,1], 1 + s/2 after:
		// x itself (s = 1) is optimal.
		{"x optimal", 1, 1, []float64{0, 0.5}, 1},
		// Slope 1 − 0.2 > 0 from the start: W = 0 (f = 2) beats x (2.8).
		{"zero best", 1, 1, []float64{0.9, 0.9}, 0},
		// A hair-violated comparison (m = 0.01) is fixed by s = 1/0.99.
		{"scale up", 1, 100, []float64{0.01, -1}, 1 / 0.99},
		// A violated comparison (m = 1.5) adds slope μ/2 everywhere: with
		// μ = 3, f = 6 − s/2 on [0,1] and 3 + 5s/2 after: s = 1. With μ = 1,
		// f = 2 + s/2 on [0,1]: s = 0.
		{"violated, mu 3", 1, 3, []float64{1.5, 0}, 1},
		{"violated, mu 1", 1, 1, []float64{1.5, 0}, 0},
		{"no comparisons", 2, 1, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := bestMultiple(c.reg, c.mu, c.m); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("bestMultiple = %.15g, want %.15g", got, c.want)
			}
		})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		reg, mu := rng.Float64()*10, rng.ExpFloat64()
		m := make([]float64, 1+rng.IntN(12))
		for c := range m {
			m[c] = 1 - 2*rng.Float64()
		}
		f := func(s float64) float64 {
			v := s * reg
			for _, mc := range m {
				v += mu * math.Max(0, 1+s*(mc-1))
			}
			return v
		}
		got := bestMultiple(reg, mu, m)
		for s := 0.0; s <= 40; s += 1e-3 {
			if f(s) < f(got)-1e-9*(1+f(got)) {
				t.Fatalf("trial %d: f(%g) = %g < f(bestMultiple = %g) = %g", trial, s, f(s), got, f(got))
			}
		}
		if f(got) > f(1) {
			t.Fatalf("trial %d: f(%g) = %g worse than x itself (%g)", trial, got, f(got), f(1))
		}
	}
}

// TestDirectStartFallbackCountsIterations forces the fall back of a warm
// diagonal fit's direct start (acceleratedMethod) and checks that
// Stats.Iterations counts both attempts: exactly the Newton steps of the
// direct start (the same fit, not forced) plus the iterations of the usual
// path (the same fit with skipDirectStart), and that the result is the
// usual path's.
func TestDirectStartFallbackCountsIterations(t *testing.T) {
	t.Parallel()
	skip := tuned(func(t *tuning) { t.hooks.skipDirectStart = true })
	force := tuned(func(t *tuning) { t.hooks.forceDirectFallback = true })
	tested := 0
	for _, c := range highBetaCases() {
		if c.kind != hbDiag || c.beta != 1e5 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			lo := c
			lo.beta = 1e4
			init, err := lo.fitWith(&Settings{Beta: lo.beta})
			if err != nil {
				t.Fatal(err)
			}
			direct, err := c.fitWith(&Settings{Beta: c.beta, Init: init})
			if err != nil {
				t.Fatal(err)
			}
			usual, err := c.fitWith(&Settings{Beta: c.beta, Init: init, tuning: skip})
			if err != nil {
				t.Fatal(err)
			}
			both, err := c.fitWith(&Settings{Beta: c.beta, Init: init, tuning: force})
			if err != nil {
				t.Fatal(err)
			}
			if direct.Stats.Iterations == 0 {
				t.Skip("the warm start certified itself: no direct start to test")
			}
			if want := direct.Stats.Iterations + usual.Stats.Iterations; both.Stats.Iterations != want {
				t.Errorf("after a fall back: %d iterations, want %d (direct start) + %d (usual path) = %d",
					both.Stats.Iterations, direct.Stats.Iterations, usual.Stats.Iterations, want)
			}
			if both.Objective != usual.Objective || both.Stats.DualBound != usual.Stats.DualBound {
				t.Errorf("after a fall back: objective %v bound %v, the usual path's %v and %v",
					both.Objective, both.Stats.DualBound, usual.Objective, usual.Stats.DualBound)
			}
			t.Logf("direct start %d, usual path %d, after a fall back %d iterations", direct.Stats.Iterations, usual.Stats.Iterations, both.Stats.Iterations)
			tested++
		})
	}
	if tested == 0 {
		t.Fatal("no case exercised a direct start")
	}
}

// TestWarmStartedRounds runs interiorFull's later rounds warm started
// (conic.Problem.Start: the previous round's iterate at gap warmBackup) on
// the full-W and K1 high-β cases, each warm started (Init) from its fit at
// β/1e5: on these small cases a fit at β/10 is too close for a dropped
// comparison to be needed, so most fits would take a single round. Every
// comparison not within the starting point's margin is dropped (dropWorth
// = +Inf), so that rounds repeat as on the aset400 folds. Each fit must
// match the exact optimum (checkExact).
// The same fits with every warm-started run declared stalled
// (forceWarmStall) rerun those rounds cold: they must match the optimum
// too, and count the abandoned runs' Newton steps, so they take more
// iterations exactly when a later round was warm started; at least one
// case must have one.
func TestWarmStartedRounds(t *testing.T) {
	t.Parallel()
	dropAll := tuned(func(t *tuning) { t.interior.dropWorth = math.Inf(1) })
	stallWarm := tuned(func(t *tuning) {
		t.interior.dropWorth = math.Inf(1)
		t.hooks.forceWarmStall = true
	})
	warmed := 0
	for _, c := range highBetaCases() {
		if (c.kind != hbFull && c.kind != hbSum) || (c.beta != 1e5 && c.beta != 1e7) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			ref, err := c.exact()
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			lo := c
			lo.beta = c.beta / 100000
			init, err := lo.fitWith(&Settings{Beta: lo.beta, Solver: Accelerated, tuning: dropAll})
			if err != nil {
				t.Fatal(err)
			}
			warm, err := c.fitWith(&Settings{Beta: c.beta, Init: init, Solver: Accelerated, tuning: dropAll})
			if err != nil {
				t.Fatal(err)
			}
			checkExact(t, c, ref, warm, 0)
			cold, err := c.fitWith(&Settings{Beta: c.beta, Init: init, Solver: Accelerated, tuning: stallWarm})
			if err != nil {
				t.Fatal(err)
			}
			checkExact(t, c, ref, cold, 0)
			switch {
			case cold.Stats.Iterations > warm.Stats.Iterations:
				warmed++
			case cold.Stats.Iterations < warm.Stats.Iterations:
				t.Errorf("rounds rerun cold took %d iterations, fewer than the warm-started fit's %d, which they include", cold.Stats.Iterations, warm.Stats.Iterations)
			}
			t.Logf("warm-started rounds: %d iterations; with the warm runs abandoned and rerun cold: %d", warm.Stats.Iterations, cold.Stats.Iterations)
		})
	}
	if warmed == 0 {
		t.Fatal("no case warm started a later round")
	}
}

// TestDiagWarmPathFromZero runs the diagonal high-β cases' problems along
// a low-β grid (β = 1e-2 … 1e2, each fit warm-started from the previous,
// Settings.Init), whose first fits learn W = 0. Where W = 0 is still the
// optimum, the previous fit's multipliers scaled by the ratio of the βs
// must certify it without an iteration (warmCertificate). Otherwise a fit
// warm-started from W = 0 has no support to start the crossover from and
// must take the usual path; one warm-started from a nonzero W must go
// straight to the interior-point stage (acceleratedMethod). Every fit must
// match the exact optimum (checkExact), and the grid must show each kind
// of start.
func TestDiagWarmPathFromZero(t *testing.T) {
	t.Parallel()
	zeroKept, fromZero, direct := 0, 0, 0
	for _, c := range highBetaCases() {
		if c.kind != hbDiag || c.beta != 1e4 {
			continue
		}
		var prev *Model
		for _, beta := range []float64{1e-2, 1e-1, 1, 10, 100} {
			cb := c
			cb.beta = beta
			t.Run(fmt.Sprintf("%s_beta%g", strings.Split(c.name, "_beta")[0], beta), func(t *testing.T) {
				ref, err := cb.exact()
				if err != nil {
					t.Fatalf("reference: %v", err)
				}
				firstOrder := 0
				rec := func(it Iteration) {
					if it.Stage == StageAccelerated {
						firstOrder++
					}
				}
				m, err := cb.fitWith(&Settings{Beta: beta, Init: prev, Recorder: rec})
				if err != nil {
					t.Fatalf("Fit: %v", err)
				}
				checkExact(t, cb, ref, m, 0)
				// f(0) = β: every comparison pays the unit hinge.
				zeroOptimal := relDiff(ref.Objective, beta) < 1e-9
				switch {
				case prev == nil:
				case zeroOptimal && prev.IsZero():
					zeroKept++
					if m.Stats.Iterations != 0 {
						t.Errorf("W = 0 stays optimal, but the warm start did not certify it: %d iterations", m.Stats.Iterations)
					}
				case m.Stats.Iterations == 0:
					// Certified by the warm start.
				case prev.IsZero():
					fromZero++
					if firstOrder == 0 {
						t.Errorf("warm-started from W = 0, the fit ran no first-order iteration (%d in all)", m.Stats.Iterations)
					}
				default:
					direct++
					if firstOrder > 0 {
						t.Errorf("warm-started from a nonzero W, the fit ran %d first-order iterations", firstOrder)
					}
				}
				prev = m
			})
		}
	}
	if zeroKept == 0 || fromZero == 0 || direct == 0 {
		t.Errorf("%d fits kept W = 0, %d left it and %d were warm-started from a nonzero W without a warm certificate: want each kind", zeroKept, fromZero, direct)
	}
}

// TestCrossoverWithoutWorkingSet starts the diagonal crossover from W = 0
// at a β so small that no coordinate is negatively priced: its working set
// is empty, and it must return the starting point unconverged (for the
// caller's usual path to certify), not fail.
func TestCrossoverWithoutWorkingSet(t *testing.T) {
	t.Parallel()
	tested := 0
	for _, c := range highBetaCases() {
		if c.kind != hbDiag || c.beta != 1e4 {
			continue
		}
		in := input{kind: InputKernels, n: c.n, kernels: c.ks, numInputs: len(c.ks)}
		blocks, _ := formulation(in, Diag, true, kernelCut{relTol: 1e-10}, basisSource{})
		p := newProblem(c.n, blocks, c.cs, 1e-6)
		start := solution{x: make([]float64, p.dim), objective: 1e-6}
		sol, err := p.crossover(context.Background(), start, Settings{Beta: 1e-6, Tol: 1e-3})
		if err != nil {
			t.Fatalf("%s: crossover: %v", c.name, err)
		}
		if sol.converged || sol.iters != 0 || floats.Max(sol.x) != 0 {
			t.Errorf("%s: crossover from W = 0 at β = 1e-6: converged %v after %d iterations, max x %g; want the start back", c.name, sol.converged, sol.iters, floats.Max(sol.x))
		}
		tested++
	}
	if tested == 0 {
		t.Fatal("no diagonal case")
	}
}

// TestMaxIterBoundsEveryStage holds Stats.Iterations to Settings.MaxIter
// whatever the stages: the first-order method with the interior-point
// stage after it (cold fits at β = 1e5, which hand over at iteration 10
// or 30), and a diagonal fit's direct start from its warm start with the
// usual path after it when the direct start runs out of steps.
func TestMaxIterBoundsEveryStage(t *testing.T) {
	t.Parallel()
	tested := 0
	for _, c := range highBetaCases() {
		if c.beta != 1e5 || (c.kind != hbFull && c.kind != hbDiag && c.kind != hbSum) {
			continue
		}
		var init *Model
		if c.kind == hbDiag {
			lo := c
			lo.beta = 1e4
			var err error
			if init, err = lo.fitWith(&Settings{Beta: lo.beta}); err != nil {
				t.Fatal(err)
			}
		}
		for _, maxIter := range []int{3, 12, 35, 45} {
			m, err := c.fitWith(&Settings{Beta: c.beta, MaxIter: maxIter, Init: init})
			if err != nil {
				t.Fatalf("%s, MaxIter %d: %v", c.name, maxIter, err)
			}
			if m.Stats.Iterations > maxIter {
				t.Errorf("%s, MaxIter %d: %d iterations", c.name, maxIter, m.Stats.Iterations)
			}
			if m.Stats.DualBound > m.Objective*(1+1e-9) {
				t.Errorf("%s, MaxIter %d: bound %g above the objective %g", c.name, maxIter, m.Stats.DualBound, m.Objective)
			}
			tested++
		}
	}
	if tested == 0 {
		t.Fatal("no case")
	}
}
