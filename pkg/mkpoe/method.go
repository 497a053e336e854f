package mkpoe

import (
	"context"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"
)

// method is one way of solving the fitting problem of Alg. 4 (Eq. 13): a
// row of the route table (methods). A new method is its own file with a
// type implementing method, one row in methods, and its docs.
type method interface {
	// solve minimises the objective of fp.p from fp.x0 (problem
	// coordinates) and returns its solution in problem coordinates with a
	// certified lower bound on the optimum (solution.bound); a factored
	// method may return solution.factors instead of x.
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
	// init, for a factored method warm-started from Settings.Init, is
	// each block's factor L (r×k) of the starting point (nil entries:
	// X = 0); x0 is then zero.
	init []*mat.Dense
	// minBeta is β_min of the problem (minBeta; 0 where not computed):
	// the scale of the multipliers, which sets the augmented-Lagrangian
	// penalty.
	minBeta float64
}

// methodRow is one row of the route table: a method a user can name with
// Settings.Solver, what it is, which problems it applies to, when Auto
// prefers it, and its implementation.
type methodRow struct {
	name Solver
	// summary is one line for the CLI's --solver help, the config's
	// errors and docs/solver.md's decision table.
	summary string
	// eigenbasis: the method works on each kernel's eigenbasis
	// formulation (docs/solver.md, "Formulation"), not the paper's W-space.
	eigenbasis bool
	// factored: the method keeps factors W = LLᵀ, starts from Init's
	// factors and returns a factored model (memoryNeed counts n·r per
	// block, not n²).
	factored bool
	// applies reports whether the method solves a problem of this shape;
	// where it does not, a fit that names it runs the default method.
	applies func(shape) bool
	// preferred reports whether Auto chooses the method for this shape
	// (rows are tried in order; nil: never).
	preferred func(shape) bool
	// method solves; nil for Auto, which route resolves to another row.
	method method
}

// shape is what route knows of a fit: its settings (validated, with
// defaults) and its problem's size and form.
type shape struct {
	s Settings
	n int
	// diag: the blocks are diagonal (Mode Diag, an LP; Sec. 4.4).
	diag bool
	// identity: GNMDS, one diagonal kernel such as K = I (Sec. 3.3).
	identity bool
	// minBeta returns β_min (computed once, on first call).
	minBeta func() float64
	tune    routeTuning
}

// methods is the route table. Auto tries the rows with a preferred rule in
// order and runs the default (Accelerated) where none holds.
var methods = []methodRow{
	{
		name:       Accelerated,
		summary:    "accelerated projected gradient on the eigenbasis, interior-point crossover (auto's fallback)",
		eigenbasis: true,
		applies:    func(shape) bool { return true },
		method:     acceleratedMethod{},
	},
	{
		name:       LowRank,
		summary:    "factored W = LLᵀ (L-BFGS), rank grown until certified; a fixed rank with Rank",
		eigenbasis: true, factored: true,
		applies: func(sh shape) bool { return !sh.diag },
		// Kernels or features on many items near β_min (routeTuning),
		// where it was measured faster than the accelerated method; GNMDS
		// runs alm.
		preferred: func(sh shape) bool {
			return !sh.identity && sh.n >= sh.tune.autoMinItems && sh.s.Beta <= sh.tune.autoMaxMultiple*sh.minBeta()
		},
		method: lowRankMethod{},
	},
	{
		name:       ALM,
		summary:    "factored W = LLᵀ, augmented Lagrangian: multipliers converge, certifies large β/β_min",
		eigenbasis: true, factored: true,
		applies: func(sh shape) bool { return !sh.diag },
		// GNMDS at every β from routeTuning.almMinItems items: on planted
		// sets it certified 1.25–1000·β_min where the accelerated method
		// took minutes (100 items × 16,000 triplets at 1.5, 10, 100·β_min:
		// 0.08, 0.23, 2.25 s against 0.26, 1.49, 30.2 s). Kernel inputs
		// run lowrank or accelerated: with OpenBLAS alm was no faster on
		// aset400's warm paths, and its iterations grow at 1e5–1e6·β_min
		// (docs/speed.md, "The default method").
		preferred: func(sh shape) bool { return sh.identity && sh.n >= sh.tune.almMinItems },
		method:    almMethod{},
	},
	{
		name:       Auto,
		summary:    "alm, lowrank or accelerated per fit, by the input, the number of items and β/β_min (default)",
		eigenbasis: true,
		applies:    func(shape) bool { return true },
	},
	{
		name:    Subgradient,
		summary: "the paper's projected subgradient method (Appendix B) in W-space; slow baseline",
		applies: func(shape) bool { return true },
		method:  subgradientMethod{},
	},
}

// methodOf returns the route table's row of a Solver name (ParseSolver
// accepts exactly these).
func methodOf(name Solver) (methodRow, bool) {
	for _, r := range methods {
		if r.name == name {
			return r, true
		}
	}
	return methodRow{}, false
}

// SolverNames lists the solvers a user can name, in the route table's
// order, with one line on each: the CLI's --solver help and the config's
// solver.method errors are made from it.
func SolverNames() []string {
	out := make([]string, len(methods))
	for i, r := range methods {
		out[i] = string(r.name)
	}
	return out
}

// SolverSummary returns the route table's one-line summary of a solver
// ("" for an unknown name).
func SolverSummary(name Solver) string {
	r, _ := methodOf(name)
	return r.summary
}

// formulationRow is the row whose formulation a fit builds before route
// has seen the problem: the named one (Auto's candidates all work in the
// eigenbasis), the low-rank method's for a rank bound.
func formulationRow(s Settings) methodRow {
	if s.Rank > 0 {
		r, _ := methodOf(LowRank)
		return r
	}
	r, _ := methodOf(s.Solver)
	return r
}

// route makes the choice of method for a fit: a rank bound runs the
// low-rank method (the factored problem at that many columns); a named
// method runs where it applies, else the default; Auto runs the first row
// whose preferred rule holds. Whichever row it is, a fit at β ≤ β_min is
// answered at once (atMinBeta). The row returned never is Auto; its name
// is what Model.Solver records.
func route(sh shape) methodRow {
	row := chooseRow(sh)
	if sh.s.Beta <= sh.minBeta() {
		row.method = atMinBeta{factored: row.factored}
	}
	return row
}

// chooseRow is route's choice of a row, before the β ≤ β_min answer.
func chooseRow(sh shape) methodRow {
	def, _ := methodOf(Accelerated)
	named := formulationRow(sh.s)
	if named.method != nil {
		if named.applies(sh) {
			return named
		}
		return def
	}
	for _, r := range methods {
		if r.method != nil && r.preferred != nil && r.applies(sh) && r.preferred(sh) {
			return r
		}
	}
	return def
}

// atMinBeta answers a fit at β ≤ β_min at once, whatever method was
// routed: W = 0 is optimal there (minBeta; docs/solver.md, "The smallest
// useful β"), with objective β (every margin 1, Eq. 13) and the
// certificate α_c = μ for every comparison, dual feasible since μ ≤
// β_min/|𝒞|, whose value Σα = β equals it. β_min by Lanczos is its lower
// estimate (minBetaLanczos), so the answer holds whichever way it was
// found; a fixed rank is no constraint on W = 0. In place of a factored
// row (factored) the answer is factors (nil: X = 0), else x = 0.
type atMinBeta struct{ factored bool }

func (z atMinBeta) solve(_ context.Context, fp fitProblem) (solution, error) {
	p := fp.p
	nc := len(p.left)
	dual := make([]float64, nc)
	f := 0.0 // no comparisons: minBeta is +Inf and the objective tr(0)
	if nc > 0 {
		f = p.beta
		for c := range dual {
			dual[c] = p.beta / float64(nc)
		}
	}
	sol := solution{objective: f, bound: f, converged: true, dual: dual}
	if z.factored {
		sol.factors = make([]*mat.Dense, len(p.blocks))
	} else {
		sol.x = make([]float64, p.dim)
	}
	return sol, nil
}

// minBetaByLanczos reports whether β_min is found by the Lanczos method on
// the slack operator (O(n·r + |pairs|) per step) rather than a dense r³
// eigendecomposition: when every block is full with R = I and one is of
// order at least routeTuning.lanczosMinBetaOrder.
func minBetaByLanczos(p *problem) bool {
	large := false
	for _, blk := range p.blocks {
		if blk.diag || blk.reg != nil || blk.regDiag != nil {
			return false
		}
		large = large || blk.r >= p.tune.route.lanczosMinBetaOrder
	}
	return large
}

// interiorAffordable reports whether the interior-point stage may run on p:
// diagonal problems (a working-set LP) always; full ones while the cheaper
// of the two Newton systems (package conic) stays below
// crossoverTuning.maxInteriorFlops.
func (p *problem) interiorAffordable() bool {
	if p.hasDiagBlock() {
		return true
	}
	kCost, tCost := p.newtonSystemCosts(len(p.left))
	return math.Min(kCost, tCost) <= p.tune.crossover.maxInteriorFlops
}

// kSpaceNewton reports whether the full-block interior-point stage on nT
// comparisons solves its Newton systems in K-space (conic's
// NormalEquations: small blocks, such as LPOE on a few features) rather
// than in comparison space (conic's PairOperator): whichever is cheaper by
// newtonSystemCosts.
func (p *problem) kSpaceNewton(nT int) bool {
	kCost, tCost := p.newtonSystemCosts(nT)
	return kCost <= tCost
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
		h := newHandOver(plain)
		stop = h.stop
		s.Recorder = h.annotate(s.Recorder, s.MaxIter)
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

// restrictedProblem is p on the low-rank method's restricted blocks
// (refine), whose interior-point stage solves its K-space Newton systems
// by preconditioned conjugate gradients where forming them whole is dear
// (conic.PCGNormalEquations, from conic.Settings.PCGMinDim on), unless
// lowRankTuning.directNewton.
func (p *problem) restrictedProblem(blocks []block) *problem {
	pr := p.withBlocks(blocks)
	pr.iterativeNewton = !pr.tune.lowRank.directNewton
	return pr
}

// kSpaceSystem is the K-space Newton system of restrict's B: formed whole
// (conic.NormalEquations), or by preconditioned conjugate gradients on the
// restricted problems that ask for it (restrictedProblem).
func (p *problem) kSpaceSystem(b *mat.Dense) conic.NewtonSystem {
	if p.iterativeNewton {
		return &conic.PCGNormalEquations{NormalEquations: conic.NormalEquations{B: b}}
	}
	return &conic.NormalEquations{B: b}
}
