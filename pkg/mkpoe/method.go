package mkpoe

import (
	"context"
	"math"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// method is one way of solving the fitting problem of Alg. 4 (Eq. 13),
// chosen by Settings.Solver (methodFor). A new solver is one more
// implementation, one more Solver value in settings.go and one more case in
// methodFor.
type method interface {
	// eigenbasis reports whether the method works on each kernel's
	// eigenbasis formulation (docs/solver.md, "Formulation") rather than in
	// the paper's W-space.
	eigenbasis() bool
	// solve minimises the objective of fp.p from fp.x0 (problem
	// coordinates) and returns its solution in problem coordinates with a
	// certified lower bound on the optimum (solution.bound).
	solve(ctx context.Context, fp fitProblem) (solution, error)
}

// fitProblem is what a method solves: the problem, its starting point and
// the settings, with the inputs and comparisons it was built from (for
// certificates computed in another formulation).
type fitProblem struct {
	p  *problem
	x0 []float64
	s  Settings
	in input
	cs []data.Comparison
}

// methodFor returns the method of a Solver value (validated by Settings).
func methodFor(s Solver) method {
	if s == Subgradient {
		return subgradientMethod{}
	}
	return acceleratedMethod{}
}

// acceleratedMethod is the default solver (docs/solver.md, "Default
// solver"): a certificate from the previous fit's dual point when it
// suffices (warm starts along a β grid); else the accelerated projected
// gradient method on the preconditioned eigenbasis formulation, handed
// over to the interior-point crossover (crossover.go) when its
// certificate closes slowly, or continued when the Newton systems would be
// too large.
type acceleratedMethod struct{}

func (acceleratedMethod) eigenbasis() bool { return true }

func (acceleratedMethod) solve(ctx context.Context, fp fitProblem) (solution, error) {
	p, x0, s := fp.p, fp.x0, fp.s
	// The previous fit's dual point may already certify its solution at
	// this β: then there is nothing to solve.
	if warm, ok := p.warmCertificate(x0, s); ok {
		return warm, nil
	}
	plain := *p // before preconditioning, for the crossover
	plain.blocks = append([]block(nil), p.blocks...)
	rule := newHandOver(&plain)
	sc := p.precondition()
	sc.toSolver(p, x0)
	sol, err := p.accelerated(ctx, x0, s, rule.stop)
	if err != nil {
		return sol, err
	}
	sc.toProblem(p, sol.x)
	if sol.converged || s.MaxIter <= sol.iters {
		return sol, nil
	}
	if plain.interiorAffordable() {
		return plain.crossover(ctx, sol, s)
	}
	// Too many comparisons for a dense Newton system: the accelerated
	// method continues from where it stopped.
	rest := s
	rest.MaxIter = s.MaxIter - sol.iters
	done := sol.iters
	if s.Recorder != nil {
		// Iterations count on from the first run's, and its bound stays
		// the best certified so far (the second run starts without one).
		first := sol.bound
		rest.Recorder = func(it Iteration) {
			it.Iter += done
			it.Bound = math.Max(it.Bound, first)
			s.Recorder(it)
		}
	}
	sc.toSolver(p, sol.x)
	sol, err = p.accelerated(ctx, sol.x, rest, nil)
	sol.iters += done
	sc.toProblem(p, sol.x)
	return sol, err
}

// subgradientMethod is the paper's projected subgradient method (Alg. 4)
// in W-space, certified afterwards: directly where W-space and the
// eigenbasis coincide (diagonal W, features), else through the margins of
// its solution in the eigenbasis formulation.
type subgradientMethod struct{}

func (subgradientMethod) eigenbasis() bool { return false }

func (subgradientMethod) solve(ctx context.Context, fp fitProblem) (solution, error) {
	p, s := fp.p, fp.s
	sol, err := p.subgradient(ctx, fp.x0, s)
	if err != nil || len(fp.cs) == 0 {
		return sol, err
	}
	if s.Mode == Diag || fp.in.kind != InputKernels {
		// W-space and eigenbasis coincide here: certify directly.
		sol.bound = certify(p, sol.x)
		return sol, nil
	}
	zb, _ := formulation(fp.in, s.Mode, true, s.EigTol)
	zp := newProblem(fp.in.n, zb, fp.cs, s.Beta)
	sol.bound = certifyMargins(zp, marginsOf(p, sol.x))
	return sol, nil
}
