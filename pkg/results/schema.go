package results

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mkpoe/mkpoe/pkg/stats"
)

// Format tags of the files, written in their "format" field.
const (
	SummaryFormat = "mkpoe-summary/1"
	TaskFormat    = "mkpoe-task/1"
	ItemsFormat   = "mkpoe-items/1"
)

// Task kinds.
const (
	KindNative = "native" // native-space accuracy of a row's kernel (or sum) on a split's test comparisons
	KindCV     = "cv"     // one inner fold of a split: fit every β of the grid, score validation comparisons
	KindRefit  = "refit"  // choose β from the split's cv tasks, refit on all training items, score the test set
)

// Task is one independent unit of work of a run, with a stable ID. Tasks of
// phase 0 (native, cv) need nothing else; a refit (phase 1) reads the
// results of its split's cv tasks.
type Task struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Row   int    `json:"row"`
	Split int    `json:"split"`
	Fold  int    `json:"fold"` // inner fold of a cv task, -1 otherwise
	Phase int    `json:"phase"`
	// Inputs is a digest of everything the task reads (data set, seed,
	// protocol, constraint processing, its row's kernels, method and mode,
	// solver settings, and for a cv task the β grid): a result is reused
	// only when the digest matches (a refit also needs its split's cv
	// tasks to choose its β again). Its first 8 digits are part of ID.
	Inputs string `json:"inputs,omitempty"`
	// Rank is, for a cv task of a row that lists several ranks, the rank
	// its sweep fits (0: convex); nil for every other task.
	Rank *int `json:"rank,omitempty"`
}

// TaskResult is what a task writes to tasks/<id>.json.
type TaskResult struct {
	Format string `json:"format"`
	Task
	ConfigHash string  `json:"config_hash"`
	Status     string  `json:"status"` // "ok" or "failed"
	Error      string  `json:"error,omitempty"`
	Seconds    float64 `json:"seconds"`
	// CPUSeconds is the CPU time (user + system) of the OS thread the task
	// ran on, its goroutine locked to it: the task's own work, less what
	// it hands to other goroutines (the interior-point stage's
	// factorisation and Newton-matrix workers, parallel linear-algebra
	// helpers, a K4 fit's per-block goroutines, background garbage
	// collection), so a lower bound, and a loose one when the
	// interior-point stage dominates. ProcessCPUSeconds is the process's CPU time over the
	// task, all of that included; it is recorded only when the task ran
	// alone (one worker), since with several workers it mixes their tasks.
	// nil: not recorded (task files written before CPU time was, systems
	// without per-thread rusage).
	CPUSeconds        *float64 `json:"cpu_seconds,omitempty"`
	ProcessCPUSeconds *float64 `json:"process_cpu_seconds,omitempty"`
	// Stages is the CPU time of the task's fits by solver stage, with the
	// iterations of each (StageCost), measured on StageClock: "process"
	// when the task ran alone, else "thread" (the lower bound above).
	Stages     []StageCost `json:"stages,omitempty"`
	StageClock string      `json:"stage_clock,omitempty"`
	// TestAccuracy is the test accuracy of a native or refit task (NaN: no
	// test comparison to score).
	TestAccuracy float64 `json:"test_accuracy"`
	// Betas, ValAccuracy, Objectives, Iterations, Gaps and Converged
	// describe a cv task's sweep (a refit: its one fit). Gaps are the
	// certified relative duality gaps; Converged[i] says whether fit i
	// stopped before solver.max_iter (false: it stopped there above
	// solver.tol): certified to solver.tol, or stationary (FitStatus).
	// Task files written before Converged was recorded lack it: unknown.
	Betas       []float64 `json:"betas,omitempty"`
	ValAccuracy []float64 `json:"val_accuracy,omitempty"`
	Objectives  []float64 `json:"objectives,omitempty"`
	Iterations  []int     `json:"iterations,omitempty"`
	Gaps        []float64 `json:"gaps,omitempty"`
	Converged   []bool    `json:"converged,omitempty"`
	// FitStatus[i] is fit i's mkpoe.Stats.Status: "certified" (its gap
	// is within solver.tol), "stationary" (converged, but stopped short
	// of the certificate: a fixed-rank fit at a stationary point, or the
	// subgradient method's stall; its gap is the distance to the convex
	// optimum's bound) or
	// "not_converged". Absent in task files written before it was
	// recorded (see StationaryFits).
	FitStatus []string `json:"fit_status,omitempty"`
	// FitSolver[i] is the method that ran fit i (mkpoe.Model.Solver: what
	// solver.method auto chose). Absent in task files written before it
	// was recorded.
	FitSolver []string `json:"fit_solver,omitempty"`
	// TestMissing counts the test comparisons with an item that one of the
	// row's kernels lacks (identity row; mostly forced ties).
	TestMissing int `json:"test_missing,omitempty"`
	// TestOutcomes holds, for a native or refit task, the outcome of every
	// test comparison in order, one character each: 'r' right, 't' tie
	// (the paper counts it as an error), 'w' wrong (eval.Outcome). Absent
	// in older task files.
	TestOutcomes string `json:"test_outcomes,omitempty"`
	// TestAnchors holds, beside TestOutcomes, the data set's index of each
	// test comparison's anchor item (the held-out i of (i,j,i,k); under
	// comparison holdout the first item), the cluster that a clustered
	// bootstrap resamples. Absent in older task files.
	TestAnchors []int `json:"test_anchors,omitempty"`
	// ZeroModel[i] says whether fit i gave W = 0 (every distance ties, so
	// its accuracy is 0 by the tie rule); absent in older task files.
	ZeroModel []bool `json:"zero_model,omitempty"`
	// Beta is the β a refit chose; Model the model file, relative to the run directory.
	Beta float64 `json:"beta,omitempty"`
	// MinBeta is, for a relative beta_grid, β_min of the task's training
	// set (the grid's unit); BetaMultiple the multiple a refit chose (Beta
	// = BetaMultiple·MinBeta).
	MinBeta      float64 `json:"min_beta,omitempty"`
	BetaMultiple float64 `json:"beta_multiple,omitempty"`
	Model        string  `json:"model,omitempty"`
	// ChosenRank is, for the refit of a row that lists several ranks, the
	// rank the split's cv tasks chose with Beta (0: convex); nil otherwise.
	ChosenRank *int `json:"chosen_rank,omitempty"`
	Dim        int  `json:"dim,omitempty"`
	// KernelEnergy is, for a refit whose kernels solver.kernel_rank or
	// kernel_energy truncated, the fraction of each kernel's positive
	// eigenvalues' sum its eigenbasis kept (mkpoe.Stats.KernelEnergy).
	KernelEnergy []float64 `json:"kernel_energy,omitempty"`
	// KernelShare is, for a k4 refit, each kernel's share of the trace
	// regulariser Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) (mkpoe.Model.KernelShares).
	KernelShare      []float64 `json:"kernel_share,omitempty"`
	TrainItems       int       `json:"train_items"`
	TestItems        int       `json:"test_items"`
	TrainComparisons int       `json:"train_comparisons"`
	TestComparisons  int       `json:"test_comparisons"`
	// TrainSteps and TestSteps report the constraint processing steps
	// (constraints.train and constraints.test) applied to the task's
	// training and test comparisons, in order.
	TrainSteps []StepReport `json:"train_steps,omitempty"`
	TestSteps  []StepReport `json:"test_steps,omitempty"`
}

// StepReport is what one constraint processing step did to a set of
// comparisons (the file form of constraint.StepReport): its name, and the
// comparisons it received, removed and kept.
type StepReport struct {
	Step    string `json:"step"`
	In      int    `json:"in"`
	Removed int    `json:"removed"`
	Out     int    `json:"out"`
}

// Tally counts the test comparisons a space gets right, ties and gets
// wrong (the file form of eval.Tally).
type Tally struct {
	Right int `json:"right"`
	Ties  int `json:"ties"`
	Wrong int `json:"wrong"`
}

func (t Tally) n() float64 { return float64(t.Right + t.Ties + t.Wrong) }

// HalfTies is the accuracy with ties counted as one half, NaN for no
// comparison.
func (t Tally) HalfTies() float64 {
	if t.n() == 0 {
		return math.NaN()
	}
	return (float64(t.Right) + 0.5*float64(t.Ties)) / t.n()
}

// TieRate is the fraction of ties, NaN for no comparison.
func (t Tally) TieRate() float64 {
	if t.n() == 0 {
		return math.NaN()
	}
	return float64(t.Ties) / t.n()
}

// Summary is every number of a run's table (summary.json): per row the test
// accuracy of each outer split, its mean and standard deviation, the β
// chosen per split and the validation curve.
type Summary struct {
	Format     string    `json:"format"`
	Name       string    `json:"name"`
	ConfigHash string    `json:"config_hash"`
	Splits     int       `json:"splits"`
	InnerFolds int       `json:"inner_folds"`
	BetaGrid   []float64 `json:"beta_grid"`
	// BetaRelative says BetaGrid holds multiples of each training set's
	// β_min (beta_grid: {relative_to_min: …}) rather than β values.
	BetaRelative bool  `json:"beta_relative,omitempty"`
	Rows         []Row `json:"rows"`
	// SolverTol is the relative duality gap every fit had to certify
	// (solver.tol). 0 in summaries written before it was recorded.
	SolverTol float64 `json:"solver_tol,omitempty"`
	// Claims are the config's claims, each with the paired difference of
	// the two rows' test accuracies and its bootstrap interval.
	Claims []Claim `json:"claims,omitempty"`
}

// Claim is a claim of the config (row Better beats row Worse) checked on
// the run: Interval is the difference of their test accuracies (ties as
// errors, mean over splits) on the same test comparisons, with a 95% paired
// bootstrap interval over those comparisons within each split
// (stats.PairedBootstrap). Reproduced means the interval lies above 0; it
// is kept for continuity, the verdict is Holds.
// Interval is nil, and Note says why, when it cannot be computed (task
// files without test_outcomes, or rows scored on different comparisons).
type Claim struct {
	Claim      string          `json:"claim"`
	Better     string          `json:"better"`
	Worse      string          `json:"worse"`
	Paper      string          `json:"paper,omitempty"`
	Interval   *stats.Interval `json:"interval,omitempty"`
	Reproduced bool            `json:"reproduced"`
	Note       string          `json:"note,omitempty"`
	// Clustered is the same difference with a 95% interval that resamples
	// anchor items (the clusters of correlated test comparisons) by the
	// design of the splits (stats.AnchorBootstrap; Clustered.Design names
	// it): one split, studentised; splits that share anchors, anchors ×
	// splits; disjoint folds, splits then anchors within them. Its P,
	// Holm-adjusted over the config's claims (HolmM of them), is HolmP.
	// Holds says the clustered interval lies above 0 and HolmP < 0.05.
	// Absent (with ClusteredNote) for task files without test_anchors.
	Clustered *stats.Interval `json:"clustered,omitempty"`
	HolmP     *float64        `json:"holm_p,omitempty"`
	// HolmM is the size of the family HolmP was adjusted over (0 in
	// summaries written before it was recorded).
	HolmM         int    `json:"holm_m,omitempty"`
	Holds         bool   `json:"holds"`
	ClusteredNote string `json:"clustered_note,omitempty"`
}

// Row is one row of the table.
type Row struct {
	Label  string `json:"label"`
	Method string `json:"method"` // native, k1 or k4
	Mode   string `json:"mode,omitempty"`
	// TableRow is the row of the paper-style table this result belongs to
	// (the config row's table_row, by default its kernel or group); the
	// column is Method and Mode. Empty in summaries written before it was
	// recorded.
	TableRow string    `json:"table_row,omitempty"`
	Kernels  []string  `json:"kernels"`
	Accuracy []float64 `json:"accuracy"` // test accuracy per outer split
	Mean     float64   `json:"mean"`
	Std      float64   `json:"std"` // sample standard deviation over splits (0 for one split)
	Beta     []float64 `json:"beta,omitempty"`
	// BetaMultiple and MinBeta are, for a relative grid, the multiple of
	// β_min chosen per split and that split's β_min (Beta = their product).
	BetaMultiple []float64 `json:"beta_multiple,omitempty"`
	MinBeta      []float64 `json:"min_beta,omitempty"`
	// Ranks are, for a row that lists several ranks (rank: [0, 2, 5]),
	// those ranks as the config lists them, and Rank the one chosen per
	// split with Beta (0: convex, no rank bound). Absent for a row of one
	// rank and in summaries written before rank lists.
	Ranks []int `json:"ranks,omitempty"`
	Rank  []int `json:"rank,omitempty"`
	// ValCurve[s][b] is the mean validation accuracy of β = BetaGrid[b] on
	// split s (cv.MeanCurve); for a row of several ranks, that of the rank
	// chosen on split s.
	ValCurve [][]float64 `json:"val_curve,omitempty"`
	// ValFoldMin[s][b] and ValFoldMax[s][b] are the lowest and highest
	// validation accuracy of β = BetaGrid[b] over the inner folds of split
	// s (NaN folds left out; NaN if every fold is NaN): the spread around
	// ValCurve that the report's validation figures draw as a band.
	// Absent in summaries written before they were recorded.
	ValFoldMin [][]float64 `json:"val_fold_min,omitempty"`
	ValFoldMax [][]float64 `json:"val_fold_max,omitempty"`
	// ValZeroFolds[s][b] counts the inner folds of split s whose fit at
	// β = BetaGrid[b] was W = 0: all distances tie, so those folds score 0
	// under the tie rule. Absent when a cv task did not record it.
	ValZeroFolds     [][]int  `json:"val_zero_folds,omitempty"`
	Models           []string `json:"models,omitempty"` // per split, relative to the run directory
	TrainComparisons []int    `json:"train_comparisons"`
	TestComparisons  []int    `json:"test_comparisons"`
	// TestTallies[s] counts split s's test comparisons that the row's
	// space gets right, ties and gets wrong: Accuracy[s] is right/total
	// (ties are errors, the paper's rule); HalfTies and TieRate read the
	// rest. Absent when a task file predates test_outcomes.
	TestTallies []Tally `json:"test_tallies,omitempty"`
	// TestMissing[s] counts split s's test comparisons with an item that
	// one of the row's kernels lacks (absent when there are none).
	TestMissing []int    `json:"test_missing,omitempty"`
	Paper       *float64 `json:"paper,omitempty"` // the paper's value, if the config gives one
	// KernelShare is the mean over splits of each kernel's share of
	// Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) in the refit models (k4 rows only).
	KernelShare []float64 `json:"kernel_share,omitempty"`
	// Fits counts the solver runs of a learned row (every β of every cv
	// task, and the refits), UnconvergedFits those that stopped at the
	// iteration limit with a certified relative gap above SolverTol, and
	// MaxGap is the largest certified gap among them all. nil means
	// unknown: a native row (no fits), or task files written before
	// convergence was recorded. Never read absent as "converged".
	// StationaryFits counts the fits, converged but not certified, that
	// stopped at a stationary point of a fixed-rank problem (or at the
	// subgradient method's stall); their gap, within MaxGap, is to the
	// convex optimum's bound. Absent when none.
	// Fits − UnconvergedFits − StationaryFits are certified.
	Fits            *int     `json:"fits,omitempty"`
	UnconvergedFits *int     `json:"unconverged_fits,omitempty"`
	StationaryFits  *int     `json:"stationary_fits,omitempty"`
	MaxGap          *float64 `json:"max_gap,omitempty"`
	// MaxIterations is the most solver iterations any fit of the row took
	// (accelerated iterations plus interior-point steps); nil as Fits.
	MaxIterations *int `json:"max_iterations,omitempty"`
}

// RankText is a chosen rank in words: "rank 5", or "convex" for 0 (no
// rank bound).
func RankText(rank int) string {
	if rank == 0 {
		return "convex"
	}
	return "rank " + strconv.Itoa(rank)
}

// ChosenRank is the rank chosen on split s in words (RankText), "" for a
// row of one rank (or a split past Rank's end).
func (r *Row) ChosenRank(s int) string {
	if s < 0 || s >= len(r.Rank) {
		return ""
	}
	return RankText(r.Rank[s])
}

// WithRank is beta, the β chosen on split s as a table writes it, and
// the rank chosen with it for a row of several ranks: "100 (rank 5)",
// "100 (convex)"; beta alone for a row of one rank.
func (r *Row) WithRank(s int, beta string) string {
	if k := r.ChosenRank(s); k != "" {
		return beta + " (" + k + ")"
	}
	return beta
}

// HalfTies returns the test accuracy per split with ties counted as one
// half, and its mean and sample standard deviation over splits (NaN, NaN
// when no tallies were recorded).
func (r *Row) HalfTies() (perSplit []float64, mean, std float64) {
	for _, t := range r.TestTallies {
		perSplit = append(perSplit, t.HalfTies())
	}
	mean, std = stats.MeanStd(perSplit)
	return perSplit, mean, std
}

// TieRate returns the fraction of test comparisons that tie in the row's
// space over all splits together (NaN when no tallies were recorded).
func (r *Row) TieRate() float64 {
	var all Tally
	for _, t := range r.TestTallies {
		all.Right, all.Ties, all.Wrong = all.Right+t.Right, all.Ties+t.Ties, all.Wrong+t.Wrong
	}
	return all.TieRate()
}

// Learned reports whether the row fits a model (k1 or k4).
func (r *Row) Learned() bool { return r.Method != "native" }

// NotConverged reports whether some fit of the row is known to have stopped
// at the iteration limit above the solver's tolerance.
func (r *Row) NotConverged() bool { return r.UnconvergedFits != nil && *r.UnconvergedFits > 0 }

// Stationary returns how many fits of the row stopped at a stationary
// point without certifying SolverTol (0 when none or unknown).
func (r *Row) Stationary() int {
	if r.StationaryFits == nil {
		return 0
	}
	return *r.StationaryFits
}

// ConvergenceKnown reports whether the summary records the convergence of
// the row's fits (false for native rows: they have none).
func (r *Row) ConvergenceKnown() bool { return r.UnconvergedFits != nil }

// Items describes the items of a run (items.json): names, class labels (if
// any) and, per outer split, the training and test items (global indices;
// a model's training item r is Splits[s].Train[r], and a held-out item
// numbered nt+q in the test comparisons is Splits[s].Test[q]).
type Items struct {
	Format string   `json:"format"`
	Names  []string `json:"names"`
	Labels []int    `json:"labels,omitempty"`
	// LabelNames name the class labels: LabelNames[l] names label l (an
	// aset400 genre, "none" for artists without one). Empty when the data
	// set has no names for its classes (synthetic and ALOI runs, and runs
	// made before names were recorded): reports then say "class l".
	LabelNames []string `json:"label_names,omitempty"`
	Splits     []Split  `json:"splits"`
	// Notes say what the data set's loader left out or built, one line
	// each: e.g. aset400's dropped degenerate triplets, or the taxonomy an
	// ALOI run clustered at load time and its dendrogram. Reports show
	// them. Empty in runs made before they were recorded.
	Notes []string `json:"notes,omitempty"`
}

// Split lists the training and test items of one outer split.
type Split struct {
	Train []int `json:"train"`
	Test  []int `json:"test"`
}

// Cells returns the claim as table cells (ClaimHeader): the claim, the
// better and worse rows, the paper's place, the difference, then the
// verdict and what it rests on (the anchor-clustered interval with the
// given number of decimals, signed, its Holm-adjusted p, and "yes"/"no":
// whether the claim holds under both), then for continuity the i.i.d.
// interval and whether it lies above 0. A missing interval's note takes
// its place and the cells that depend on it are "—".
func (c Claim) Cells(decimals int) []string {
	f := "%+." + strconv.Itoa(decimals) + "f"
	diff, iv, above := "—", "—", "—"
	if c.Interval != nil {
		diff = fmt.Sprintf(f, c.Interval.Diff)
		iv = fmt.Sprintf("["+f+", "+f+"]", c.Interval.Lo, c.Interval.Hi)
		above = yesNo(c.Reproduced)
	}
	clustered, holm, holds := c.ClusteredNote, "—", "—"
	if c.Clustered != nil {
		clustered = fmt.Sprintf("["+f+", "+f+"]", c.Clustered.Lo, c.Clustered.Hi)
	}
	if c.HolmP != nil {
		holm = fmt.Sprintf("%.3g", *c.HolmP)
		if *c.HolmP == 0 && c.Clustered != nil && c.Clustered.Reps > 0 {
			// No replicate crossed 0: the two-sided bootstrap p is below
			// 2/reps, and Holm's adjustment over m claims multiplies it by
			// m at most.
			holm = fmt.Sprintf("< %.2g", math.Min(1, 2*float64(max(c.HolmM, 1))/float64(c.Clustered.Reps)))
		}
		holds = yesNo(c.Holds)
	}
	if clustered == "" {
		clustered = c.Note
	}
	if clustered == "" {
		clustered = "—"
	}
	return []string{c.Claim, c.Better, c.Worse, c.Paper, diff, clustered, holm, holds, iv, above}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Indices of Claim.Cells' columns, in the order of ClaimHeader.
const (
	ClaimCellClaim = iota
	ClaimCellBetter
	ClaimCellWorse
	ClaimCellPaper
	ClaimCellDifference
	ClaimCellClustered // the anchor-clustered interval (or why it is missing)
	ClaimCellHolmP
	ClaimCellHolds // the verdict
	ClaimCellIID   // the i.i.d. interval
	ClaimCellIIDAbove
)

// ClaimHeader names the columns of Claim.Cells. "Holds" is the verdict:
// the anchor-clustered interval lies above 0 and the Holm-adjusted p is
// below 0.05; the i.i.d. columns are the earlier, narrower check.
var ClaimHeader = []string{"Claim", "Better", "Worse", "Paper", "Difference", "95% interval (anchors resampled)", "Holm p", "Holds", "i.i.d. 95% interval", "i.i.d. above 0"}
