package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/internal/sysmem"
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
	solver := fs.String("solver", string(mkpoe.DefaultSolver), solverHelp())
	kernelRank := fs.Int("kernel-rank", 0, "truncate every kernel to its leading eigenpairs, at most this many (full W; prints the energy kept); 0: the whole numerical rank")
	kernelEnergy := fs.Float64("kernel-energy", 0, "truncate every kernel to the fewest leading eigenpairs holding this fraction of its eigenvalue sum, in (0,1) (full W); 0: none")
	rank := fs.Int("rank", 0, "at most this many dimensions per kernel (full W only; runs --solver lowrank; prints the distance to the convex optimum's bound); 0: no bound")
	maxIter := fs.Int("max-iter", 0, "iteration limit (0: solver default)")
	tol := fs.Float64("tol", 0, fmt.Sprintf("relative accuracy (0: default %g, certified by a duality gap)", mkpoe.DefaultTol))
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
	if *identity < 0 {
		return usagef("--identity must be a positive number of items, got %d", *identity)
	}
	if *compFile == "" || *out == "" {
		return usagef("--comparisons and --out are required")
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
	if err := s.Validate(); err != nil {
		return settingsFlagError(err)
	}

	in, err := readFitInputs(kernels, *features, *identity, *compFile, *oneBased)
	if err != nil {
		return err
	}
	// Progress on stderr once the fit has run progress.FitDelay
	// (docs/progress.md); the Recorder cannot change the model.
	live, width := progress.Terminal(stderr)
	disp := progress.NewFitDisplay(stderr, live, clock())
	disp.Width, disp.Every = width, *every
	disp.Tol = *tol
	if disp.Tol == 0 {
		disp.Tol = mkpoe.DefaultTol
	}
	s.Recorder = experiments.FitRecorder(disp.Fit.Record)
	s.MemoryLimit = sysmem.Available()
	stop := progress.Start(progress.Interval(live, disp.Every), func(time.Time) { disp.Update(clock()) })
	m, err := in.fit(ctx, s)
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
	printFit(stdout, stderr, m, *rank)
	return nil
}

// fitInputs are what mkpoe fit learns from: kernels, a feature matrix or
// the identity on n items, and the comparisons.
type fitInputs struct {
	ks []mat.Symmetric
	x  *mat.Dense
	n  int
	cs []data.Comparison
}

// readFitInputs reads fit's input files: the kernels (or features, or n
// for the identity) and the comparisons over their items.
func readFitInputs(kernels []string, features string, identity int, compFile string, oneBased bool) (*fitInputs, error) {
	in := &fitInputs{}
	switch {
	case len(kernels) > 0:
		for _, path := range kernels {
			k, err := data.ReadKernelFile(path)
			if err != nil {
				return nil, badInput(err)
			}
			in.ks = append(in.ks, k)
		}
		if err := data.CheckSameSize(in.ks, kernels); err != nil {
			return nil, badInput(err)
		}
		in.n = in.ks[0].SymmetricDim()
	case features != "":
		x, err := data.ReadMatrixFile(features)
		if err != nil {
			return nil, badInput(err)
		}
		in.x = x
		in.n, _ = x.Dims()
	default:
		in.n = identity
	}
	cf, err := readComparisons(compFile, data.ComparisonOptions{OneBased: oneBased, N: in.n})
	if err != nil {
		return nil, badInput(err)
	}
	in.cs = cf.Comparisons
	return in, nil
}

// fit runs the fit of the inputs' kind: MKPOE on kernels, LPOE on
// features, GNMDS on the identity.
func (in *fitInputs) fit(ctx context.Context, s *mkpoe.Settings) (*mkpoe.Model, error) {
	switch {
	case in.ks != nil:
		return mkpoe.FitContext(ctx, in.ks, in.cs, s)
	case in.x != nil:
		return mkpoe.FitFeaturesContext(ctx, in.x, in.cs, s)
	}
	return mkpoe.FitIdentityContext(ctx, in.n, in.cs, s)
}

// printFit prints a fitted model's figures on stdout and its warnings on
// stderr; rank is --rank (0: none).
func printFit(stdout, stderr io.Writer, m *mkpoe.Model, rank int) {
	fmt.Fprintf(stdout, "objective %.10g\nbound %.10g\nrelative_gap %.3g\niterations %d\nconverged %v\nstatus %s\ndimension %d\nseconds %.3f\n",
		m.Objective, m.Stats.DualBound, m.Stats.RelativeGap, m.Stats.Iterations, m.Stats.Converged, m.Stats.Status, m.Dim(), m.Stats.Seconds)
	fmt.Fprintf(stdout, "min_beta %.6g\n", m.Stats.MinBeta)
	fmt.Fprintf(stdout, "solver %s\n", m.Solver)
	printBackend(stdout, stderr, "fit")
	if rank > 0 {
		// The rank-bounded problem is not convex: its solution is a
		// stationary point, and the bound is the convex problem's.
		fmt.Fprintf(stdout, "rank_bound %d\nconvex_gap %.3g\n", rank, m.Stats.RelativeGap)
	}
	for b, e := range m.Stats.KernelEnergy {
		fmt.Fprintf(stdout, "kernel_energy[%d] %.6g\nkernel_rank[%d] %d\n", b, e, b, m.Stats.BlockDims[b])
	}
	switch m.Stats.Status {
	case mkpoe.StatusNotConverged:
		fmt.Fprintf(stderr, "mkpoe fit: warning: stopped at the iteration limit before the requested accuracy (relative gap %.3g)\n", m.Stats.RelativeGap)
	case mkpoe.StatusStationary:
		why := ""
		if rank > 0 {
			why = ", which a rank bound need not reach"
		}
		fmt.Fprintf(stderr, "mkpoe fit: warning: stopped at a stationary point, not certified to the requested accuracy: relative gap %.3g to the convex problem's bound%s\n", m.Stats.RelativeGap, why)
	}
	if m.Beta <= m.Stats.MinBeta {
		fmt.Fprintf(stderr, "mkpoe fit: warning: --beta %g is at or below min_beta %.6g, the largest β at which W = 0 is optimal for these comparisons: the model maps every item to the origin and ties every comparison; use --beta above it (e.g. %.3g, 3 × min_beta)\n", m.Beta, m.Stats.MinBeta, 3*m.Stats.MinBeta)
	}
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

// solverHelp is --solver's help: the route table's methods, one line each.
func solverHelp() string {
	var b strings.Builder
	b.WriteString("the method:")
	for _, name := range mkpoe.SolverNames() {
		fmt.Fprintf(&b, "\n  %s: %s", name, mkpoe.SolverSummary(mkpoe.Solver(name)))
	}
	return b.String()
}

// fitFlags names the flag of each Settings field that mkpoe fit sets.
var fitFlags = map[string]string{
	"Beta": "--beta", "Mode": "--mode", "Combine": "--combine", "Solver": "--solver", "Rank": "--rank",
	"KernelRank": "--kernel-rank", "KernelEnergy": "--kernel-energy", "MaxIter": "--max-iter", "Tol": "--tol",
}

// settingsFlagError turns Settings.Validate's error into a usage error
// naming the flag (exit status 2).
func settingsFlagError(err error) error {
	var se *mkpoe.SettingsError
	if errors.As(err, &se) {
		if flag, ok := fitFlags[se.Field]; ok {
			return usagef("%s %s, got %v", flag, se.Rule, se.Value)
		}
	}
	return badInput(err)
}
