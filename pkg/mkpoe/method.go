package mkpoe

import (
	"context"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
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
// the settings, with the same problem in eigenbasis form (p itself unless
// p is in W-space with full kernel blocks) for certificates.
type fitProblem struct {
	p     *problem
	x0    []float64
	s     Settings
	eigen *problem
	// init, for the low-rank method warm-started from Settings.Init, is
	// each block's factor L (r×k) of the starting point (nil entries:
	// X = 0); x0 is then zero.
	init []*mat.Dense
}

// methodFor returns the method of a Solver value (validated by Settings).
func methodFor(s Solver) method {
	switch s {
	case Subgradient:
		return subgradientMethod{}
	case LowRank:
		return lowRankMethod{}
	}
	return acceleratedMethod{}
}

// acceleratedMethod is the default solver (docs/solver.md, "Default
// solver"): a certificate from the previous fit's dual point when it
// suffices (warm starts along a β grid); for a diagonal fit warm-started
// from a nonzero W, the interior-point stage from the warm start
// (docs/solver.md, "Warm starts"); else the accelerated projected
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
	warm, ok := p.warmCertificate(x0, s)
	if ok {
		return warm, nil
	}
	plain := *p // before preconditioning, for the crossover
	plain.blocks = append([]block(nil), p.blocks...)
	interior := plain.interiorAffordable()
	spent := 0 // Newton steps of a direct start that did not certify
	// A diagonal fit starts the crossover from its warm start's best
	// multiple, whose support is close to the new optimum's, at any β: on
	// the benchmark fixture a fit at β = 100 from β = 10 took 67 Newton
	// steps (0.45–0.5 s) against 270 first-order iterations (1.9–2.3 s). From
	// W = 0 (every fit at β ≤ 2 there) there is no support to start from.
	if interior && s.Init != nil && plain.hasDiagBlock() && floats.Max(warm.x) > 0 && !p.tune.hooks.skipDirectStart {
		sol, err := plain.crossover(ctx, warm, s)
		if err != nil || (sol.converged && !p.tune.hooks.forceDirectFallback) {
			return sol, err
		}
		// Not certified from there: the usual path, with what is left of
		// MaxIter, which reports these steps too.
		spent = sol.iters - warm.iters
		if spent >= s.MaxIter {
			return sol, nil
		}
	}
	rest := s
	rest.MaxIter -= spent
	sol, err := firstOrderThenCrossover(ctx, p, &plain, x0, rest, interior)
	sol.iters += spent
	return sol, err
}

// firstOrderThenCrossover is the usual path of acceleratedMethod: the
// accelerated method on p (preconditioned here), from x0, handed over to
// the crossover on plain (p before preconditioning) when interior.
func firstOrderThenCrossover(ctx context.Context, p, plain *problem, x0 []float64, s Settings, interior bool) (solution, error) {
	// The accelerated method hands over to the interior-point crossover
	// (handOver) only where its Newton systems are affordable; elsewhere it
	// runs on to its certificate or MaxIter in one go, keeping its
	// smoothing, step size and best bound. (It used to stop at the
	// hand-over point and restart from there with δ = 1 and no bound: a
	// GNMDS fit on 100 items and 20,000 triplets took 940 iterations.)
	var stop func(it int, gap float64) bool
	if interior {
		stop = newHandOver(plain).stop
	}
	sc := p.precondition()
	sc.toSolver(p, x0)
	sol, err := p.accelerated(ctx, x0, s, stop)
	if err != nil {
		return sol, err
	}
	sc.toProblem(p, sol.x)
	if sol.converged || s.MaxIter <= sol.iters || !interior {
		return sol, nil
	}
	return plain.crossover(ctx, sol, s)
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
	if err != nil || len(p.left) == 0 {
		return sol, err
	}
	// The margins are the same in both formulations; the certificate
	// needs the eigenbasis one (R = I).
	sol.bound = certifyMargins(fp.eigen, marginsOf(p, sol.x))
	return sol, nil
}
