package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/query"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// runFit implements "mkpoe fit": learn a similarity space (Alg. 2–4) from
// kernels, features or the identity, and comparisons, and write the model.
func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fit", stderr)
	var kernels stringList
	fs.Var(&kernels, "kernel", "kernel matrix file (text or .npy), n×n; repeat for MKPOE")
	features := fs.String("features", "", "feature matrix file n×D: learn LPOE (Alg. 2) instead of kernels")
	identity := fs.Int("identity", 0, "number of items N: learn GNMDS (K = I, Sec. 3.3) with no features")
	compFile := fs.String("comparisons", "", "comparisons file: lines 'i j k' (triplet) or 'i j k l' (required)")
	oneBased := fs.Bool("one-based", false, "item indices in the comparisons file start at 1")
	beta := fs.Float64("beta", 0, "β > 0: weight of the hinge loss (required)")
	mode := fs.String("mode", "full", "full or diag: form of each W")
	combine := fs.String("combine", "separate", "separate (K4, one W per kernel) or sum (K1, one W on the sum kernel)")
	solver := fs.String("solver", "accelerated", "accelerated (default), lowrank (factored W = LLᵀ; cost follows the rank: many items, full W), auto (lowrank for full W on ≥ 300 items at β ≤ 2·β_min, else accelerated) or subgradient (the paper's Appendix B)")
	kernelRank := fs.Int("kernel-rank", 0, "truncate every kernel to its leading eigenpairs, at most this many (full W; prints the energy kept); 0: the whole numerical rank")
	kernelEnergy := fs.Float64("kernel-energy", 0, "truncate every kernel to the fewest leading eigenpairs holding this fraction of its eigenvalue sum, in (0,1) (full W); 0: none")
	rank := fs.Int("rank", 0, "at most this many dimensions per kernel (full W only; implies --solver lowrank; prints the distance to the convex optimum's bound); 0: no bound")
	maxIter := fs.Int("max-iter", 0, "iteration limit (0: solver default)")
	tol := fs.Float64("tol", 0, "relative accuracy (0: default 1e-3, certified by a duality gap)")
	out := fs.String("out", "", "model file to write (JSON; required)")
	every := addProgressFlag(fs)
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	sources := 0
	for _, set := range []bool{len(kernels) > 0, *features != "", *identity != 0} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return usagef("give exactly one of --kernel FILE (repeatable), --features FILE or --identity N")
	}
	if *maxIter < 0 {
		return usagef("--max-iter must be >= 0 (0: the solver's default), got %d", *maxIter)
	}
	if !(*tol >= 0 && *tol < 1) {
		return usagef("--tol must be in [0, 1) (0: the default 1e-3), got %v", *tol)
	}
	if *identity < 0 {
		return usagef("--identity must be a positive number of items, got %d", *identity)
	}
	if *compFile == "" || *out == "" {
		return usagef("--comparisons and --out are required")
	}
	if *rank < 0 {
		return usagef("--rank must be >= 1 (0: no bound), got %d", *rank)
	}
	if *kernelRank < 0 {
		return usagef("--kernel-rank must be >= 1 (0: no truncation), got %d", *kernelRank)
	}
	if !(*kernelEnergy >= 0 && *kernelEnergy < 1) {
		return usagef("--kernel-energy must be in (0,1) (0: no truncation), got %v", *kernelEnergy)
	}
	s := &mkpoe.Settings{Beta: *beta, MaxIter: *maxIter, Tol: *tol, Rank: *rank, KernelRank: *kernelRank, KernelEnergy: *kernelEnergy}
	var err error
	if s.Mode, err = mkpoe.ParseMode(*mode); err != nil {
		return badInput(fmt.Errorf("--mode: %w", err))
	}
	if s.Combine, err = mkpoe.ParseCombine(*combine); err != nil {
		return badInput(fmt.Errorf("--combine: %w", err))
	}
	if s.Solver, err = mkpoe.ParseSolver(*solver); err != nil {
		return badInput(fmt.Errorf("--solver: %w", err))
	}
	if *rank > 0 {
		if s.Mode != mkpoe.Full {
			return usagef("--rank bounds a full W: it needs --mode full, got --mode %s", *mode)
		}
		if solverSet(fs) && s.Solver != mkpoe.LowRank && s.Solver != mkpoe.Auto {
			return usagef("--rank is a bound of the low-rank method: use --solver lowrank (or leave --solver out), got --solver %s", *solver)
		}
		s.Solver = mkpoe.LowRank
	}
	if !(*beta > 0) {
		return usagef("--beta must be > 0, got %v (β weighs the hinge loss against the trace regulariser)", *beta)
	}

	var n int
	var ks []mat.Symmetric
	var x *mat.Dense
	switch {
	case len(kernels) > 0:
		for _, path := range kernels {
			k, err := data.ReadKernelFile(path)
			if err != nil {
				return badInput(err)
			}
			ks = append(ks, k)
		}
		if err := data.CheckSameSize(ks, kernels); err != nil {
			return badInput(err)
		}
		n = ks[0].SymmetricDim()
	case *features != "":
		if x, err = data.ReadMatrixFile(*features); err != nil {
			return badInput(err)
		}
		n, _ = x.Dims()
	default:
		n = *identity
	}
	cf, err := readComparisons(*compFile, data.ComparisonOptions{OneBased: *oneBased, N: n})
	if err != nil {
		return badInput(err)
	}
	// Progress on stderr once the fit has run progress.FitDelay
	// (docs/progress.md); the Recorder cannot change the model.
	live, width := progress.Terminal(stderr)
	disp := progress.NewFitDisplay(stderr, live, clock())
	disp.Width, disp.Every = width, *every
	disp.Tol = *tol
	if disp.Tol == 0 {
		disp.Tol = 1e-3 // Settings' default
	}
	s.Recorder = experiments.FitRecorder(disp.Fit.Record)
	stop := progress.Start(progress.Interval(live, disp.Every), func(time.Time) { disp.Update(clock()) })
	var m *mkpoe.Model
	switch {
	case ks != nil:
		m, err = mkpoe.FitContext(ctx, ks, cf.Comparisons, s)
	case x != nil:
		m, err = mkpoe.FitFeaturesContext(ctx, x, cf.Comparisons, s)
	default:
		m, err = mkpoe.FitIdentityContext(ctx, n, cf.Comparisons, s)
	}
	stop()
	disp.Finish(clock())
	if err != nil {
		// Bad input: exit 2; Ctrl-C: interrupted, no model written;
		// anything else: an internal error (exit 3).
		return fitError(err)
	}
	if err := writeModel(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "objective %.10g\nbound %.10g\nrelative_gap %.3g\niterations %d\nconverged %v\ndimension %d\nseconds %.3f\n",
		m.Objective, m.Stats.DualBound, m.Stats.RelativeGap, m.Stats.Iterations, m.Stats.Converged, m.Dim(), m.Stats.Seconds)
	fmt.Fprintf(stdout, "min_beta %.6g\n", m.Stats.MinBeta)
	fmt.Fprintf(stdout, "solver %s\n", m.Solver)
	printBackend(stdout, stderr, "fit")
	if *rank > 0 {
		// The rank-bounded problem is not convex: its solution is a
		// stationary point, and the bound is the convex problem's.
		fmt.Fprintf(stdout, "rank_bound %d\nconvex_gap %.3g\n", *rank, m.Stats.RelativeGap)
	}
	for b, e := range m.Stats.KernelEnergy {
		fmt.Fprintf(stdout, "kernel_energy[%d] %.6g\nkernel_rank[%d] %d\n", b, e, b, m.Stats.BlockDims[b])
	}
	if !m.Stats.Converged {
		fmt.Fprintf(stderr, "mkpoe fit: warning: stopped at the iteration limit before the requested accuracy (relative gap %.3g)\n", m.Stats.RelativeGap)
	}
	if m.Beta <= m.Stats.MinBeta {
		fmt.Fprintf(stderr, "mkpoe fit: warning: --beta %g is at or below min_beta %.6g, the largest β at which W = 0 is optimal for these comparisons: the model maps every item to the origin and ties every comparison; use --beta above it (e.g. %.3g, 3 × min_beta)\n", m.Beta, m.Stats.MinBeta, 3*m.Stats.MinBeta)
	}
	return nil
}

// printBackend writes the line "backend NAME" that every command which
// computes prints: the linear-algebra build its numbers come from (the
// pure-Go gonum or OpenBLAS with the kernels it chose; they agree to
// rounding, not bit for bit), and on stderr OpenBLAS's advice when it runs
// its slow generic kernels.
func printBackend(stdout, stderr io.Writer, cmd string) {
	fmt.Fprintf(stdout, "backend %s\n", linalg.Describe())
	if advice := linalg.BLASAdvice(); advice != "" {
		fmt.Fprintf(stderr, "mkpoe %s: warning: %s\n", cmd, advice)
	}
}

// clock is the time of the fit's progress display (tests replace it).
var clock = time.Now

// readComparisons reads a comparisons file that fit, eval and native need
// to be non-empty: an empty one would "converge" to W = 0 or score 0.
func readComparisons(path string, opt data.ComparisonOptions) (*data.ComparisonFile, error) {
	cf, err := data.ReadComparisonsFile(path, opt)
	if err != nil {
		return nil, err
	}
	if len(cf.Comparisons) == 0 {
		return nil, fmt.Errorf("%s: must hold at least one comparison, got none", path)
	}
	return cf, nil
}

// writeModel writes a model file atomically (an interrupted write never
// leaves half a model) and readable by all.
func writeModel(path string, m *mkpoe.Model) error {
	if err := results.WriteFileAtomic(path, m.WriteJSON); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// readModel reads a model file.
func readModel(path string) (*mkpoe.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("reading model: %w", err))
	}
	defer f.Close()
	m, err := mkpoe.ReadJSON(f, path)
	return m, badInput(err)
}

// embedAll returns the embedding of the training items followed by the new
// items described by rowFiles (kernel rows per kernel, or feature rows).
func embedAll(m *mkpoe.Model, rowFiles []string) (*mat.Dense, error) {
	emb, err := query.Embedding(m, rowFiles)
	return emb, badInput(err)
}

// solverSet reports whether --solver was given on the command line.
func solverSet(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "solver" })
	return set
}
