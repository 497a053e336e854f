package mkpoe

import (
	"fmt"
	"math"
	"strings"
)

// Mode selects the form of each metric W⁽ᵖ⁾.
type Mode int

const (
	// Full learns a full PSD matrix W⁽ᵖ⁾ per kernel (an SDP; Alg. 4).
	Full Mode = iota
	// Diag restricts every W⁽ᵖ⁾ to be diagonal and non-negative, which turns
	// the problem into a linear program (Sec. 4.4 "Diagonal learning").
	Diag
)

func (m Mode) String() string {
	switch m {
	case Full:
		return "full"
	case Diag:
		return "diag"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "full" or "diag" ("diagonal"), case aside.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(s) {
	case "full":
		return Full, nil
	case "diag", "diagonal":
		return Diag, nil
	}
	return 0, invalidf("mkpoe: mode must be full or diag, got %q", s)
}

// Combine selects how several kernels are combined.
type Combine int

const (
	// Separate learns one W⁽ᵖ⁾ per kernel and concatenates the projections:
	// the kernel class K₄ of Eq. 14 and Alg. 4 (MKPOE).
	Separate Combine = iota
	// Sum learns one W on the unweighted sum kernel K̂ = Σ_p K⁽ᵖ⁾: the class
	// K₁ of Sec. 4.1 (Eq. 9), Alg. 3 on K̂.
	Sum
)

func (c Combine) String() string {
	switch c {
	case Separate:
		return "separate"
	case Sum:
		return "sum"
	}
	return fmt.Sprintf("Combine(%d)", int(c))
}

// ParseCombine parses "separate" (k4) or "sum" (k1), case aside.
func ParseCombine(s string) (Combine, error) {
	switch strings.ToLower(s) {
	case "separate", "k4":
		return Separate, nil
	case "sum", "k1":
		return Sum, nil
	}
	return 0, invalidf("mkpoe: combine must be separate or sum, got %q", s)
}

// Solver names an optimisation method.
type Solver string

const (
	// Accelerated is Auto's fallback: accelerated projected gradient
	// (FISTA with backtracking and adaptive restart) on a Huber-smoothed hinge
	// whose smoothing shrinks until a duality-gap certificate proves the
	// requested relative accuracy, working in each kernel's eigenbasis.
	// See docs/solver.md. Deviation from the paper's Appendix B (same
	// optimum, different path).
	Accelerated Solver = "accelerated"
	// Subgradient is the paper's projected subgradient method (Appendix B)
	// in the original W-space, with the adaptive step size of McFee's mlr
	// code. It is the faithful baseline and much slower.
	Subgradient Solver = "subgradient"
	// LowRank factors every full W⁽ᵖ⁾ = LLᵀ and grows L's columns until the
	// duality-gap certificate holds (docs/solver.md, "Low-rank method"):
	// its cost follows the rank of the solution rather than n³. Diagonal
	// fits use Accelerated.
	LowRank Solver = "lowrank"
	// ALM is the augmented-Lagrangian method on the same factors
	// (docs/solver.md, "Augmented-Lagrangian method"): its multipliers
	// converge at a fixed penalty, so it certifies large multiples of
	// β_min where LowRank's shrinking smoothing stalls. Diagonal fits use
	// Accelerated, and a rank bound runs LowRank.
	ALM Solver = "alm"
	// Auto, the default (DefaultSolver), chooses ALM, LowRank or
	// Accelerated per fit (docs/solver.md, "Which method runs when"): ALM
	// for K = I (GNMDS) on at least almMinItems items, measured 3–13×
	// faster; LowRank for other full-W fits on at least autoMinItems
	// items at β ≤ autoMaxMultiple·β_min; Accelerated otherwise
	// (diagonal W, small sets, larger multiples of β_min on kernels).
	// Model.Solver records the choice.
	Auto Solver = "auto"
)

// DefaultSolver is the method a fit runs when Settings.Solver is "", and
// the default of the CLI's --solver and a config's solver.method: Auto,
// which answers every input with the method measured fastest for it
// (docs/solver.md, "Which method runs when").
const DefaultSolver = Auto

// ParseSolver parses a solver name of the route table ([SolverNames]),
// case aside; "" means [DefaultSolver].
func ParseSolver(s string) (Solver, error) {
	name := Solver(strings.ToLower(s))
	if name == "" {
		return DefaultSolver, nil
	}
	if _, ok := methodOf(name); ok {
		return name, nil
	}
	return "", invalidf("mkpoe: solver must be one of %s, got %q", strings.Join(SolverNames(), ", "), s)
}

// Stage names the method that produced an [Iteration].
type Stage string

const (
	// StageAccelerated is the accelerated first-order method of the
	// Accelerated solver (docs/solver.md).
	StageAccelerated Stage = "accelerated"
	// StageInteriorPoint is the interior-point crossover that finishes the
	// Accelerated solver's fits at large β (docs/solver.md).
	StageInteriorPoint Stage = "interior-point"
	// StageSubgradient is the paper's projected subgradient method.
	StageSubgradient Stage = "subgradient"
	// StageLowRank is the low-rank method's L-BFGS on the factors.
	StageLowRank Stage = "low-rank"
	// StageALM is the augmented-Lagrangian method's inner solve on the
	// factors (Newton-CG, or L-BFGS).
	StageALM Stage = "alm"
)

// Iteration is what a [Recorder] sees after each iteration.
type Iteration struct {
	// Iter is the 1-based iteration number, counted across stages (the
	// model's Stats.Iterations at the end).
	Iter int
	// Objective is the exact (unsmoothed) objective at the current iterate.
	// In the interior-point stage the Newton iterates are not evaluated on
	// the whole problem until their run ends: between those evaluations it
	// is the best objective so far.
	Objective float64
	Best      float64 // the best objective seen so far
	Bound     float64 // the best certified lower bound so far (0 if none)
	Smoothing float64 // the Huber smoothing width δ (accelerated stage only, else 0)
	Stage     Stage   // the method running
	// Rank is, in the low-rank method's own stages, the number of columns
	// of its factors over all blocks (0 elsewhere).
	Rank int
	// Newton is, in the interior-point stage, how far the current Newton
	// run's iterate is from its stopping test: the largest of the run's
	// own relative duality gap and relative residuals, over the level at
	// which the run may stop (at most 1: it may stop). It falls about
	// geometrically along a run; a fit may take more than one run (0
	// outside the stage). Progress displays extrapolate it to foresee a
	// run's end (docs/progress.md).
	Newton float64
	// HandOver is, in the accelerated stage of a fit that hands over to
	// an interior-point stage unless certified first, the iteration at
	// which it hands over at the latest (0: no hand-over ahead), and
	// InteriorCost the solver's estimate of that stage's cost in
	// iterations of the accelerated method (full blocks; 0: none). Progress
	// displays use them to foresee a fit's end.
	HandOver     int
	InteriorCost float64
}

// Gap returns the certified relative gap (Best − Bound)/Best of the
// iteration, defined as the model's Stats.RelativeGap: Best is within Gap
// (relative) of the optimum. It is 1 while no certificate exists (Bound =
// 0: the objective is ≥ 0), 0 when Best is 0, and may be a rounding error
// below 0 once the bound meets the objective. The default solver's fit
// converges once Gap ≤ Settings.Tol.
func (it Iteration) Gap() float64 { return relativeGap(it.Best, it.Bound) }

// relativeGap is (objective − bound)/objective, the certified relative gap
// of Stats.RelativeGap; 0 when the objective is not positive.
func relativeGap(objective, bound float64) float64 {
	if !(objective > 0) {
		return 0
	}
	return (objective - bound) / objective
}

// Recorder receives progress reports: after every iteration of the
// first-order methods, and after every Newton step of the interior-point
// stage, on the goroutine running the fit. It must not modify anything it
// is given and must not retain it; it should return quickly (it delays
// the fit), and it cannot change the fit's result.
type Recorder func(Iteration)

// Settings are the hyperparameters of [Fit]. The zero value of every field
// except Beta means its documented default. Fit validates them.
type Settings struct {
	// Beta (β > 0) weighs the mean hinge loss against the trace regulariser
	// (Alg. 2–4). Required.
	Beta float64
	// Mode is Full (default) or Diag.
	Mode Mode
	// Combine is Separate (K₄, default) or Sum (K₁). Ignored with one kernel.
	Combine Combine
	// Solver is Auto (the default, ""), Accelerated, LowRank, ALM or
	// Subgradient.
	Solver Solver
	// MaxIter bounds the iterations, as Stats.Iterations counts them: the
	// first-order method's plus the interior-point stage's Newton steps.
	// Default 100000 for Accelerated, 50000 for Subgradient.
	MaxIter int
	// Tol is the target relative accuracy. Accelerated stops when a
	// duality-gap certificate shows (f − bound) ≤ Tol·f. Subgradient stops
	// when the best objective improved by less than Tol/10 (relative) over
	// the last 200 iterations. Default 1e-3.
	Tol float64
	// EigTol is the relative eigenvalue cut-off of the kernel eigenbasis:
	// eigenvalues below EigTol·λ_max are dropped (the kernel's numerical
	// rank). Default 1e-10. Deviation: see docs/deviations.md.
	EigTol float64
	// Rank, if positive, bounds the rank of every W⁽ᵖ⁾ (an embedding of at
	// most Rank dimensions per kernel): the low-rank method's factored
	// problem at a fixed number of columns, which is not convex, so the fit
	// ends at a stationary point of the smoothed objective (Stats.Status
	// StatusStationary, Converged: the smoothing is below Tol and L-BFGS
	// has stalled; StatusCertified only if the convex certificate holds
	// too) and Stats.RelativeGap is its certified distance to the convex
	// problem's optimum, whose lower bound is Stats.DualBound. Needs Mode
	// Full; implies LowRank.
	Rank int
	// KernelRank, if positive, truncates every kernel of a full W to its
	// KernelRank leading eigenpairs (K ≈ U_rΛ_rU_rᵀ), so that W⁽ᵖ⁾ is
	// learned on that kernel's top-r eigenbasis: r×r variables instead of
	// n×n. KernelEnergy, if in (0, 1), keeps the fewest leading eigenpairs
	// whose eigenvalues sum to at least that fraction of the kernel's
	// positive eigenvalues. With both, the smaller basis wins. The fit
	// (objective, certificate, β_min) is then that of the truncated
	// kernels; Stats.KernelEnergy records the fraction each block kept.
	// Both need Mode Full and a solver working in the eigenbasis (not
	// Subgradient); default 0: the whole numerical rank (EigTol).
	KernelRank   int
	KernelEnergy float64
	// Init, if not nil, warm-starts the solver from a model fitted on the
	// same inputs (for example at a neighbouring β). It is read, not changed.
	Init *Model
	// Recorder, if not nil, is called after every iteration (see
	// [Recorder]); progress displays use it. Nil costs nothing.
	Recorder Recorder
	// Cache, if not nil, keeps the eigenbases of large kernels for the
	// next fits and MinBeta calls on the same kernels ([EigenCache]): pass
	// one cache to every fit of a β sweep. Nil keeps nothing.
	Cache *EigenCache
	// MemoryLimit, if positive, is the bytes the fit may hold at its peak:
	// a fit estimated above it is refused, before it allocates, with an
	// error matching [ErrTooLarge] (docs/solver.md, "Memory"). 0: no limit.
	// The library never asks the system; callers pass what the machine
	// can give.
	MemoryLimit uint64

	// tuning, if not nil, replaces the solver's defaultTuning (tests only).
	tuning *tuning
}

// Defaults of the Settings fields whose zero value means "the default".
const (
	// DefaultTol is Settings.Tol's default relative accuracy.
	DefaultTol = 1e-3
	// DefaultEigTol is Settings.EigTol's default eigenvalue cut-off.
	DefaultEigTol = 1e-10
	// DefaultMaxIter is Settings.MaxIter's default, except for Subgradient.
	DefaultMaxIter = 100000
	// DefaultSubgradientMaxIter is Settings.MaxIter's default for Subgradient.
	DefaultSubgradientMaxIter = 50000
)

// SettingsError reports a [Settings] field that breaks its rule. It
// matches [ErrInvalidInput]; callers that take the field from a flag or a
// config key name it by Field.
type SettingsError struct {
	Field string // the Settings field, e.g. "Rank"
	Rule  string // what the field must be, e.g. "must be >= 0 (0: no bound)"
	Value any    // the value given
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("mkpoe: Settings.%s %s, got %v", e.Field, e.Rule, e.Value)
}

// Is makes a SettingsError match ErrInvalidInput.
func (e *SettingsError) Is(target error) bool { return target == ErrInvalidInput }

// Validate checks every field of s against its rule and returns the first
// one broken as a *[SettingsError], or nil. Fit, the CLI and the
// experiment configs all validate settings here.
func (s *Settings) Validate() error {
	_, err := s.withDefaults()
	return err
}

// badSetting is the *SettingsError of a field, its rule and its value.
func badSetting(field, rule string, value any) error {
	return &SettingsError{Field: field, Rule: rule, Value: value}
}

// checkShapeBounds checks the bounds on W's shape, Rank and the kernel
// cut (KernelRank, KernelEnergy), of settings whose Mode and Solver are
// valid, and returns a *SettingsError naming the first broken, or nil.
func (s Settings) checkShapeBounds() error {
	if s.Rank < 0 {
		return badSetting("Rank", "must be >= 1 (an embedding dimension), or 0 for no bound", s.Rank)
	}
	if s.Rank > 0 {
		if s.Mode != Full {
			return badSetting("Rank", "bounds a full W: it needs mode full", fmt.Sprintf("%d with mode %v", s.Rank, s.Mode))
		}
		if s.Solver == Subgradient {
			return badSetting("Rank", "bounds the factored W of the low-rank method, which solver subgradient does not use (lowrank, auto and accelerated run lowrank under a rank bound)", fmt.Sprintf("%d with solver %s", s.Rank, s.Solver))
		}
	}
	if s.KernelRank < 0 {
		return badSetting("KernelRank", "must be >= 1 (eigenpairs kept per kernel), or 0 for no truncation", s.KernelRank)
	}
	if !(s.KernelEnergy >= 0 && s.KernelEnergy < 1) {
		return badSetting("KernelEnergy", "must be in (0, 1) (the fraction of each kernel's eigenvalue sum kept), or 0 for no truncation", s.KernelEnergy)
	}
	if s.KernelRank > 0 || s.KernelEnergy > 0 {
		field, value := "KernelRank", any(s.KernelRank)
		if s.KernelRank == 0 {
			field, value = "KernelEnergy", s.KernelEnergy
		}
		if s.Mode != Full {
			return badSetting(field, "truncates the eigenbasis of a full W: it needs mode full", fmt.Sprintf("%v with mode %v", value, s.Mode))
		}
		if !formulationRow(s).eigenbasis {
			return badSetting(field, "truncates the kernels' eigenbasis, which solver "+string(s.Solver)+" does not use (it works in W-space)", value)
		}
	}
	return nil
}

// withDefaults returns a copy of s with defaults filled in, or a
// *SettingsError naming the first invalid field.
func (s *Settings) withDefaults() (Settings, error) {
	bad := badSetting
	if s == nil {
		return Settings{}, invalidf("mkpoe: Settings must not be nil (Beta is required)")
	}
	out := *s
	if !(out.Beta > 0) || math.IsInf(out.Beta, 0) {
		return out, bad("Beta", "must be > 0 and finite (β weighs the hinge loss against the trace regulariser)", out.Beta)
	}
	if out.Mode != Full && out.Mode != Diag {
		return out, bad("Mode", "must be full or diag", out.Mode)
	}
	if out.Combine != Separate && out.Combine != Sum {
		return out, bad("Combine", "must be separate or sum", out.Combine)
	}
	solver, err := ParseSolver(string(out.Solver))
	if err != nil {
		return out, bad("Solver", "must be one of "+strings.Join(SolverNames(), ", "), fmt.Sprintf("%q", out.Solver))
	}
	out.Solver = solver
	if err := out.checkShapeBounds(); err != nil {
		return out, err
	}
	if out.MaxIter < 0 {
		return out, bad("MaxIter", "must be >= 0 (0: the solver's default)", out.MaxIter)
	}
	if out.MaxIter == 0 {
		out.MaxIter = DefaultMaxIter
		if out.Solver == Subgradient {
			out.MaxIter = DefaultSubgradientMaxIter
		}
	}
	if !(out.Tol >= 0 && out.Tol < 1) {
		return out, bad("Tol", fmt.Sprintf("must be in [0, 1) (0: the default %g)", DefaultTol), out.Tol)
	}
	if out.Tol == 0 {
		out.Tol = DefaultTol
	}
	if out.EigTol < 0 || out.EigTol >= 1 || math.IsNaN(out.EigTol) {
		return out, bad("EigTol", fmt.Sprintf("must be in [0, 1) (0: the default %g)", DefaultEigTol), out.EigTol)
	}
	if out.EigTol == 0 {
		out.EigTol = DefaultEigTol
	}
	return out, nil
}
