package mkpoe

import (
	"math"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/reference"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

type smallProblem struct {
	name string
	ks   []mat.Symmetric
	cs   []data.Comparison
	beta float64
}

// smallProblems returns the shared small problem set
// (testproblems.Small): n ≤ 20, 1–3 kernels, ≤ 100 comparisons.
func smallProblems() []smallProblem {
	var out []smallProblem
	for _, p := range testproblems.Small() {
		out = append(out, smallProblem{p.Name, p.Ks, p.Cs, p.Beta})
	}
	return out
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-12) }

// TestEveryMethodMatchesOptimum runs every row of the route table on
// every shared small problem (testproblems.Small), full and diagonal,
// against the exact optimum of the reference barrier method, which shares
// no code with the solvers. A certified method must be within 1e-3 of it
// with a bound never above it; the paper's subgradient method converges
// as O(1/√k) and is held to 1e-2 within 50000 iterations (3e-2 on the
// β = 1000 problem, a degenerate LP/SDP: measured 2.5e-2 full, 1.3e-2
// diagonal). On the small diagonal problems the simplex method (gonum)
// checks the barrier method itself.
func TestEveryMethodMatchesOptimum(t *testing.T) {
	t.Parallel()
	for _, pr := range smallProblems() {
		for _, mode := range []Mode{Full, Diag} {
			ref, err := reference.Barrier(pr.ks, pr.cs, pr.beta, mode == Diag)
			if err != nil {
				t.Fatal(err)
			}
			if mode == Diag && len(pr.cs) <= 40 && pr.ks[0].SymmetricDim() <= 12 {
				lpOpt, err := reference.DiagonalLP(pr.ks, pr.cs, pr.beta)
				if err != nil {
					t.Fatal(err)
				}
				if d := relDiff(lpOpt, ref.Objective); d > 1e-6 {
					t.Errorf("%s: simplex %.10g and barrier %.10g disagree", pr.name, lpOpt, ref.Objective)
				}
			}
			for _, row := range methods {
				t.Run(pr.name+"_"+mode.String()+"_"+string(row.name), func(t *testing.T) {
					s := Settings{Beta: pr.beta, Mode: mode, Solver: row.name}
					tol, certified := 1e-3, true
					if row.name == Subgradient {
						s.Tol, s.MaxIter = 1e-5, 50000
						tol, certified = 1e-2, false
						if pr.beta >= 1000 {
							tol = 3e-2
						}
					}
					m, err := Fit(pr.ks, pr.cs, &s)
					if err != nil {
						t.Fatal(err)
					}
					if d := relDiff(m.Objective, ref.Objective); d > tol {
						t.Errorf("%s ran %s: objective %.8g, exact optimum %.8g (barrier gap %.1g): relative difference %.2g > %g",
							row.name, m.Solver, m.Objective, ref.Objective, ref.Gap, d, tol)
					}
					if s.Tol == 0 {
						s.Tol = DefaultTol
					}
					checkStatus(t, m, s.Tol)
					if certified && m.Stats.Status != StatusCertified {
						t.Errorf("status %q (gap %.2g), want certified", m.Stats.Status, m.Stats.RelativeGap)
					}
					if certified && m.Stats.DualBound > ref.Objective*(1+1e-9)+1e-12 {
						t.Errorf("dual bound %.10g exceeds the optimum %.10g", m.Stats.DualBound, ref.Objective)
					}
					if m.Objective < ref.Objective*(1-1e-7) {
						t.Errorf("objective %.10g below the optimum %.10g", m.Objective, ref.Objective)
					}
					t.Logf("%s (ran %s) %.8g (iters %d, gap %.2g), exact %.8g", row.name, m.Solver, m.Objective, m.Stats.Iterations, m.Stats.RelativeGap, ref.Objective)
				})
			}
		}
	}
}
