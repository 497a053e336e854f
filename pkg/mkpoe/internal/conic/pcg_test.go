package conic

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

// randomNormalProblem returns a K-space problem with the given cone blocks
// (PSD of order k, or orthants of k coordinates), cost the trace (or the
// sum on orthants), bound μ and count comparisons whose rows of B are
// independent normal entries.
func randomNormalProblem(rng *rand.Rand, blocks []Block, count int, mu float64) *Problem {
	cp := &Problem{Mu: mu, NT: count, Settings: DefaultSettings()}
	off := 0
	for _, bl := range blocks {
		bl.Off = off
		bl.Size = bl.K
		if bl.PSD {
			bl.Size = SvecLen(bl.K)
		}
		cp.Blocks = append(cp.Blocks, bl)
		off += bl.Size
	}
	cp.Dim = off
	cp.C = make([]float64, off)
	for _, bl := range cp.Blocks {
		if !bl.PSD {
			for t := 0; t < bl.K; t++ {
				cp.C[bl.Off+t] = 1
			}
			continue
		}
		p := 0
		for i := 0; i < bl.K; i++ {
			cp.C[bl.Off+p] = 1
			p += bl.K - i
		}
	}
	cp.System = &NormalEquations{B: testproblems.Features(rng, count, off)}
	return cp
}

// TestPCGMatchesDirectSolve runs the interior-point method with the
// direct K-space solve and, at every iterate, solves the predictor's
// Newton system again by preconditioned conjugate gradients
// (PCGNormalEquations): the directions must agree to 1e-6 of their size
// (they differ by up to 1.7e-7, whatever PCG's tolerance: the direct
// solve's own rounding on the late, ill-conditioned systems), and the
// whole method run with PCGNormalEquations must take the same number of steps to
// the same optimum.
func TestPCGMatchesDirectSolve(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		blocks []Block
		count  int
		mu     float64
	}{
		{name: "one PSD block of order 6", blocks: []Block{{PSD: true, K: 6}}, count: 120, mu: 1},
		{name: "PSD blocks of order 5 and 3, large μ", blocks: []Block{{PSD: true, K: 5}, {PSD: true, K: 3}}, count: 150, mu: 100},
		{name: "an orthant and a PSD block", blocks: []Block{{K: 8}, {PSD: true, K: 4}}, count: 200, mu: 0.3},
		{name: "an orthant", blocks: []Block{{K: 20}}, count: 160, mu: 10},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(i+1), 11))
			cp := randomNormalProblem(rng, tc.blocks, tc.count, tc.mu)
			cp.Settings.MaxCorrectors = 0 // the directions compared are Newton directions
			iter := *cp
			ne := &PCGNormalEquations{NormalEquations{B: cp.System.(*NormalEquations).B}}
			iter.System = ne
			iter.Settings.PCGMinDim = 0

			r := start(cp)
			const tol = 1e-9
			worst := 0.0
			steps := 0
			for ; steps < 100 && !r.measure(tol); steps++ {
				ns, err := r.factor(context.Background())
				if err != nil {
					t.Fatalf("step %d: %v", steps, err)
				}
				tg, sigma, ok := r.predict(ns)
				if !ok {
					t.Fatalf("step %d: the direct solve failed", steps)
				}
				ns2 := &newtonStep{pt: ns.pt, nts: ns.nts, delta: ns.delta, res: ns.res}
				var fok bool
				if ns2.chol, fok = ne.factor(&iter, ns2); !fok {
					t.Fatalf("step %d: the preconditioner's factorisation failed", steps)
				}
				d := newDirection(cp.Dim, cp.NT)
				if !ne.solve(&iter, ns2, tg, d) {
					t.Fatalf("step %d: the PCG solve failed", steps)
				}
				for _, part := range []struct {
					name      string
					got, want []float64
				}{{"Δx", d.x, r.aff.x}, {"ΔS", d.sd, r.aff.sd}, {"Δα", d.alpha, r.aff.alpha}, {"Δξ", d.xi, r.aff.xi}} {
					diff := make([]float64, len(part.got))
					floats.SubTo(diff, part.got, part.want)
					e := floats.Norm(diff, math.Inf(1)) / math.Max(floats.Norm(part.want, math.Inf(1)), 1e-300)
					worst = math.Max(worst, e)
					// 1e-5: the direct solve's own rounding is 1e-7 with
					// gonum and up to 1.1e-6 with OpenBLAS's kernels.
					if e > 1e-5 {
						t.Errorf("step %d: %s differs by %.2g of its size", steps, part.name, e)
					}
				}
				ap, ad, ok := r.correct(ns, tg, sigma)
				if !ok || !r.step(ap, ad) {
					t.Fatalf("step %d: stalled", steps)
				}
			}
			st := ne.PCGStats()
			if 2*st.Steps < steps || st.Fallbacks > 0 {
				// Late steps' weights can leave too few rows outside the
				// preconditioner: they are formed whole (1 of 17 steps with
				// gonum, 3 with OpenBLAS in one case).
				t.Errorf("PCG stats %+v over %d steps: want most preconditioned, no fall back", st, steps)
			}
			t.Logf("%d steps, worst relative difference %.2g; PCG %+v", steps, worst, st)

			// The whole method: same steps, same optimum (at 1e-8: at 1e-9
			// the last step of one case is decided by round-off, and the
			// direct solve took one step more).
			const runTol = 1e-8
			direct, err := Solve(context.Background(), cp, runTol, 100)
			if err != nil {
				t.Fatal(err)
			}
			fresh := iter
			fresh.System = &PCGNormalEquations{NormalEquations{B: ne.B}}
			pcg, err := Solve(context.Background(), &fresh, runTol, 100)
			if err != nil {
				t.Fatal(err)
			}
			if pcg.Iterations != direct.Iterations {
				t.Errorf("%d iterations with PCG, %d with the direct solve", pcg.Iterations, direct.Iterations)
			}
			if d := math.Abs(pcg.Primal-direct.Primal) / math.Max(1, math.Abs(direct.Primal)); d > 1e-8 {
				t.Errorf("primal %.12g with PCG, %.12g direct", pcg.Primal, direct.Primal)
			}
		})
	}
}

// TestPCGTakesDirectSolveBelowMinDim checks that PCGNormalEquations leaves the
// direct solve, bit for bit, where K is below PCGMinDim.
func TestPCGTakesDirectSolveBelowMinDim(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	cp := randomNormalProblem(rng, []Block{{PSD: true, K: 5}}, 100, 1)
	direct, err := Solve(context.Background(), cp, 1e-9, 100)
	if err != nil {
		t.Fatal(err)
	}
	on := *cp
	ne := &PCGNormalEquations{NormalEquations{B: mat.DenseCopyOf(cp.System.(*NormalEquations).B)}}
	on.System = ne // PCGMinDim 256 > K = 15
	res, err := Solve(context.Background(), &on, 1e-9, 100)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != direct.Iterations || res.Primal != direct.Primal || res.Dual != direct.Dual {
		t.Errorf("PCGNormalEquations below PCGMinDim: %d iterations, %.17g / %.17g; direct %d, %.17g / %.17g",
			res.Iterations, res.Primal, res.Dual, direct.Iterations, direct.Primal, direct.Dual)
	}
	if st := ne.PCGStats(); st.Steps != 0 {
		t.Errorf("PCG stats %+v: want no preconditioned step", st)
	}
}

// TestPCGFallsBackToDirectSolve limits the conjugate gradients to one
// iteration, so that every preconditioned solve fails and its step forms M
// whole: the run must then be the direct solve's, bit for bit.
func TestPCGFallsBackToDirectSolve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	cp := randomNormalProblem(rng, []Block{{PSD: true, K: 6}}, 150, 1)
	direct, err := Solve(context.Background(), cp, 1e-9, 100)
	if err != nil {
		t.Fatal(err)
	}
	on := *cp
	ne := &PCGNormalEquations{NormalEquations{B: mat.DenseCopyOf(cp.System.(*NormalEquations).B)}}
	on.System = ne
	on.Settings.PCGMinDim, on.Settings.PCGMaxIter = 0, 1
	res, err := Solve(context.Background(), &on, 1e-9, 100)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != direct.Iterations || res.Primal != direct.Primal || res.Dual != direct.Dual {
		t.Errorf("with every PCG solve falling back: %d iterations, %.17g / %.17g; direct %d, %.17g / %.17g",
			res.Iterations, res.Primal, res.Dual, direct.Iterations, direct.Primal, direct.Dual)
	}
	if st := ne.PCGStats(); st.Fallbacks == 0 {
		t.Errorf("PCG stats %+v: want fall backs", st)
	}
}
