package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/internal/sysmem"
	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// runTask executes one task. ds is shared and read-only; store gives access
// to other tasks' results (refit) and the run directory; tp, if not nil,
// follows the task's fits (progress display; it never changes results).
// interrupted is true when ctx was cancelled before the task finished: its
// result is then incomplete and must not be saved (a rerun runs the task
// again). alone says no other task runs beside it (one worker): its
// process CPU time is then recorded too (taskClock).
func runTask(ctx context.Context, c *Config, ds *dataset, st *store, t results.Task, tp *progress.Task, alone bool) (res results.TaskResult, interrupted bool) {
	start := time.Now()
	clock := startClock(alone)
	res = results.TaskResult{Task: t, ConfigHash: c.Hash(), Status: "ok"}
	defer func() {
		if p := recover(); p != nil {
			res.Status, res.Error = "failed", fmt.Sprintf("internal error: %v", p)
		}
		// The task's time, less any time the process was stopped
		// (Ctrl-Z, a suspended job) as the display noticed it.
		res.Seconds = (time.Since(start) - tp.Stopped()).Seconds()
		clock.stop(&res)
	}()
	if err := execTask(ctx, c, ds, st, t, tp, clock, &res); err != nil {
		if ctx.Err() != nil {
			// Cancelled: whatever failed did so because the fit was stopped.
			res.Status, res.Error = "failed", "interrupted: "+err.Error()
			return res, true
		}
		res.Status, res.Error = "failed", err.Error()
	}
	return res, false
}

// taskFoldID returns the fold a task trains and scores on: its outer split,
// and for a cv task the inner fold.
func taskFoldID(t results.Task) cv.FoldID {
	id := cv.Outer(t.Split)
	if t.Kind == KindCV {
		id.Fold = t.Fold
	}
	return id
}

func execTask(ctx context.Context, c *Config, ds *dataset, st *store, t results.Task, tp *progress.Task, clock *taskClock, res *results.TaskResult) error {
	row := taskRow(c, t)
	kidx := c.rowKernels(row)
	f, err := taskFold(c, ds, row, kidx, taskFoldID(t))
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	res.TrainItems, res.TestItems = len(f.train), len(f.test)
	res.TrainComparisons, res.TestComparisons = len(f.trainCs), len(f.testCs)
	res.TestMissing = testMissing(c, ds, f, kidx)
	res.TrainSteps, res.TestSteps = stepReports(f.trainSteps), stepReports(f.testSteps)
	switch t.Kind {
	case KindNative:
		os := nativeOutcomes(f, kidx)
		res.TestAccuracy, res.TestOutcomes = eval.Count(os).Accuracy(), string(os)
		res.TestAnchors = testAnchors(f)
		return nil
	case KindCV:
		tr := &rowTrial{c: c, row: row, f: f, kidx: kidx, tp: tp, clock: clock}
		grid, mb, err := cv.FoldGrid(tr, c.BetaGrid.Values, c.BetaGrid.Relative)
		if err != nil {
			return relativeGridError(err)
		}
		res.MinBeta = mb
		pts, err := cv.Sweep(ctx, tr, grid)
		for _, p := range pts {
			res.Betas = append(res.Betas, p.Beta)
			res.ValAccuracy = append(res.ValAccuracy, p.Score)
			res.Objectives = append(res.Objectives, p.Objective)
			res.Iterations = append(res.Iterations, p.Iterations)
			res.Gaps = append(res.Gaps, p.Gap)
			res.Converged = append(res.Converged, p.Converged)
			res.FitStatus = append(res.FitStatus, string(p.Status))
			res.FitSolver = append(res.FitSolver, string(p.Solver))
			res.ZeroModel = append(res.ZeroModel, p.Zero)
		}
		return err
	case KindRefit:
		rank, beta, err := chooseRankBeta(c, st, t)
		if err != nil {
			return err
		}
		if row.Rank.many() {
			row, res.ChosenRank = row.withRank(rank), &rank
		}
		tp.SetBeta(slices.Index(c.BetaGrid.Values, beta)) // the ETA's unit: its β is known now
		if c.BetaGrid.Relative {
			_, mb, err := cv.FoldGrid(&rowTrial{c: c, row: row, f: f, kidx: kidx}, nil, true)
			if err != nil {
				return relativeGridError(err)
			}
			res.MinBeta, res.BetaMultiple = mb, beta
			beta *= mb
		}
		m, err := (&rowTrial{c: c, row: row, f: f, kidx: kidx, tp: tp, clock: clock}).Fit(ctx, beta, nil)
		if err != nil {
			return fmt.Errorf("β=%g: %w", beta, err)
		}
		os, testEmb, err := learnedOutcomesEmbedding(m, f, kidx)
		if err != nil {
			return err
		}
		res.TestAccuracy, res.TestOutcomes = eval.Count(os).Accuracy(), string(os)
		res.TestAnchors = testAnchors(f)
		res.Beta, res.Dim, res.KernelEnergy = beta, m.Dim(), m.Stats.KernelEnergy
		if res.KernelShare, err = m.KernelShares(f.gramsOf(kidx)); err != nil {
			return err
		}
		res.Objectives, res.Iterations, res.Gaps = []float64{m.Objective}, []int{m.Stats.Iterations}, []float64{m.Stats.RelativeGap}
		res.Converged, res.FitStatus = []bool{m.Stats.Converged}, []string{string(m.Stats.Status)}
		res.FitSolver = []string{string(m.Solver)}
		res.Model = filepath.Join("models", t.ID+".json")
		if testEmb != nil {
			// The held-out items' embedding (rows in the order of items.json
			// splits[s].test), for the report's map (out-of-sample points).
			if err := writeFileAtomic(filepath.Join(st.dir, "models", t.ID+".test.tsv"), func(w io.Writer) error { return data.WriteMatrix(w, testEmb) }); err != nil {
				return err
			}
		}
		return writeModel(filepath.Join(st.dir, res.Model), m)
	}
	return fmt.Errorf("unknown task kind %q", t.Kind)
}

// taskRow is the row task t fits: its config row, or for a cv task of a
// row of several ranks that row at the task's one rank.
func taskRow(c *Config, t results.Task) RowConfig {
	if t.Rank != nil {
		return c.Rows[t.Row].withRank(*t.Rank)
	}
	return c.Rows[t.Row]
}

// taskFold builds the fold a task of row fits and scores on (id: its
// split, and its inner fold or −1): the items by the protocol, the
// comparisons seeded by split and fold and processed by the row's training
// steps, and the row's kernels kidx.
func taskFold(c *Config, ds *dataset, row RowConfig, kidx []int, id cv.FoldID) (*fold, error) {
	train, test, source := foldOf(c, ds, id)
	seed := c.Seed*1_000_003 + uint64(id.Split)*101 + uint64(id.Fold+1)
	return buildFold(c, ds, foldItems{train, test, source}, kidx, rowTrainSteps(c, row), seed, formOf(row))
}

// testMissing counts the fold's test comparisons with an item that one of
// the row's kernels lacks (kernels.Input.Missing: e.g. an aset400 artist
// absent from Last.fm has an identity row in the tags and CF kernels, Sec.
// 5.2.1). Such an item is at the same distance from every other in that
// kernel, so its comparisons mostly tie there: forced errors under the
// paper's tie rule, which the summary reports.
func testMissing(c *Config, ds *dataset, f *fold, kidx []int) int {
	var miss []bool
	for _, p := range kidx {
		if in, ok := ds.sources[c.Kernels[p].Source]; ok && in.Missing != nil {
			if miss == nil {
				miss = make([]bool, ds.n)
			}
			for i, m := range in.Missing {
				miss[i] = miss[i] || m
			}
		}
	}
	if miss == nil {
		return 0
	}
	global := func(p int) int {
		if p < len(f.train) {
			return f.train[p]
		}
		return f.test[p-len(f.train)]
	}
	n := 0
	for _, cmp := range f.testCs {
		if miss[global(cmp.I)] || miss[global(cmp.J)] || miss[global(cmp.K)] || miss[global(cmp.L)] {
			n++
		}
	}
	return n
}

// testAnchors is, per test comparison (i,j,k,l) of f in order, the data
// set's index of its anchor i: the held-out item of an (i,j,i,k)
// comparison under item holdout, the first item under comparison holdout.
// Comparisons sharing an anchor are correlated; claims resample anchors
// (stats.ClusteredBootstrap).
func testAnchors(f *fold) []int {
	if len(f.testCs) == 0 {
		return nil
	}
	items := append(append([]int(nil), f.train...), f.test...)
	out := make([]int, len(f.testCs))
	for n, c := range f.testCs {
		out[n] = items[c.I]
	}
	return out
}

// rowSettings are the solver settings of a learned row's fits, β apart:
// its mode and combination, the config's solver, the row's rank bound
// (which the solver's route turns into the low-rank method) and, for a
// full W, the kernels' truncation.
func rowSettings(c *Config, row RowConfig) (*mkpoe.Settings, error) {
	mode, err := mkpoe.ParseMode(row.Mode)
	if err != nil {
		return nil, err
	}
	if row.Rank.many() {
		return nil, fmt.Errorf("internal: row %q lists ranks %v: its fits take one at a time (withRank)", row.Label, row.Rank)
	}
	s := &mkpoe.Settings{Mode: mode, Combine: rowCombine(row), Solver: mkpoe.Solver(c.Solver.Method), Tol: c.Solver.Tol, MaxIter: c.Solver.MaxIter, Rank: row.Rank.one()}
	if mode == mkpoe.Full {
		s.KernelRank, s.KernelEnergy = c.Solver.KernelRank, c.Solver.KernelEnergy
	}
	return s, nil
}

// FitRecorder adapts a progress display's record function (a
// progress.Fit's Record, or a progress.Task's StartFit) to the fit's
// mkpoe.Recorder; nil gives nil. internal/progress does not import the
// solver: the iteration is copied here, with the gap from
// mkpoe.Iteration.Gap.
func FitRecorder(record func(progress.Iteration)) mkpoe.Recorder {
	if record == nil {
		return nil
	}
	return func(it mkpoe.Iteration) {
		record(progress.Iteration{Iter: it.Iter, Stage: string(it.Stage), Best: it.Best, Bound: it.Bound, Gap: it.Gap(), Rank: it.Rank, Newton: it.Newton,
			HandOver: it.HandOver, InteriorCost: it.InteriorCost})
	}
}

// rowTrial is the cv.Trial of a row on a fold: the harness's fits and
// scores run through pkg/cv's sweep.
type rowTrial struct {
	c    *Config
	row  RowConfig
	f    *fold
	kidx []int
	tp   *progress.Task // nil: no progress display
	// clock, if not nil, charges the fits' CPU time to solver stages.
	clock *taskClock
}

// Fit fits the model of a k1 or k4 row on the fold's training kernels at
// β, warm-started from warm (nil: cold); it stops within about one solver
// iteration when ctx is cancelled. tp, if not nil, follows the fit's
// progress; clock, if not nil, charges the fit's CPU time to its solver
// stages.
func (t *rowTrial) Fit(ctx context.Context, beta float64, warm *mkpoe.Model) (*mkpoe.Model, error) {
	s, err := rowSettings(t.c, t.row)
	if err != nil {
		return nil, err
	}
	s.Beta, s.Init = beta, warm
	s.Cache, s.MemoryLimit = t.f.eigen, sysmem.Available()
	if t.tp != nil {
		s.Recorder = FitRecorder(t.tp.StartFit(beta))
		defer func() { t.tp.EndFit(time.Now()) }()
	}
	s.Recorder = t.clock.recorder(s.Recorder)
	m, err := mkpoe.FitContext(ctx, t.f.gramsOf(t.kidx), t.f.trainCs, s)
	iters := 0
	if m != nil {
		iters = m.Stats.Iterations
	}
	t.clock.endFit(iters)
	return m, err
}

// MinBeta implements cv.MinBetaTrial.
func (t *rowTrial) MinBeta() (float64, error) { return rowMinBeta(t.c, t.row, t.f, t.kidx) }

func (t *rowTrial) Score(m *mkpoe.Model) (float64, error) {
	return learnedAccuracy(m, t.f, t.kidx)
}

// learnedAccuracy scores the held-out comparisons of a fold in the learned
// space: training items from the model, held-out items embedded from their
// kernel rows (Sec. 3.2, 4.3); cv.HeldOutScore.
func learnedAccuracy(m *mkpoe.Model, f *fold, kidx []int) (float64, error) {
	return cv.HeldOutScore(m, f.rowsOf(kidx), f.testCs)
}

// learnedOutcomesEmbedding returns the outcome of every test comparison of
// the fold in the learned space (cv.HeldOutOutcomes) and the held-out
// items' embedding (nil if there are none).
func learnedOutcomesEmbedding(m *mkpoe.Model, f *fold, kidx []int) ([]eval.Outcome, *mat.Dense, error) {
	all, err := cv.HeldOutEmbedding(m, f.rowsOf(kidx))
	if err != nil {
		return nil, nil, err
	}
	var emb *mat.Dense
	if len(f.test) > 0 { // none under comparison holdout
		nt, d := m.Train.Dims()
		t, _ := all.Dims()
		emb = mat.DenseCopyOf(all.Slice(nt, t, 0, d))
	}
	return eval.Outcomes(f.testCs, eval.EmbeddingDistance(all)), emb, nil
}

// nativeOutcomes scores the held-out comparisons in the native space of the
// unweighted sum of the row's kernels (one kernel: its own space), one
// outcome per comparison. Held-out comparisons are triplets (i,j,i,k)
// anchored at the held-out item, so its self-similarity cancels from
// d(i,j) − d(i,k) and is not needed.
func nativeOutcomes(f *fold, kidx []int) []eval.Outcome {
	nt := len(f.train)
	k := func(a, b int) float64 {
		s := 0.0
		for _, p := range kidx {
			switch {
			case a < nt && b < nt:
				s += f.grams[p].At(a, b)
			case a >= nt && b < nt:
				s += f.rows[p].At(a-nt, b)
			case a < nt && b >= nt:
				s += f.rows[p].At(b-nt, a)
			}
		}
		return s
	}
	return eval.Outcomes(f.testCs, func(i, j int) float64 { return k(i, i) + k(j, j) - 2*k(i, j) })
}

// rankCurves returns, per rank of refit t's row (Ranks.list), the
// validation curves of its split's cv tasks, or which tasks are not done.
func rankCurves(c *Config, st *store, t results.Task) ([][][]float64, error) {
	row := c.Rows[t.Row]
	var out [][][]float64
	var missing []string
	for _, k := range row.Rank.list() {
		var curves [][]float64
		for f := 0; f < c.Protocol.InnerFolds; f++ {
			id := taskID(KindCV, rowPrefix(row, t.Inputs), t.Split, f) // the refit shares its row's inputs
			if row.Rank.many() {
				id = c.rowTaskID(KindCV, row.withRank(k), t.Split, f)
			}
			r, ok := st.load(id)
			if !ok || r.Status != "ok" {
				missing = append(missing, id)
				continue
			}
			curves = append(curves, r.ValAccuracy)
		}
		out = append(out, curves)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("refit needs the results of %v first", missing)
	}
	return out, nil
}

// chooseRankBeta picks the rank and β of a refit from the validation
// scores of its split's cv tasks, by pkg/cv's rule (cv.MeanCurve per
// rank, cv.ChooseRankBeta; one rank: cv.ChooseBeta). The rank is the
// row's own when it has one.
func chooseRankBeta(c *Config, st *store, t results.Task) (rank int, beta float64, err error) {
	curves, err := rankCurves(c, st, t)
	if err != nil {
		return 0, 0, err
	}
	ranks := c.Rows[t.Row].Rank.list()
	means := make([][]float64, len(curves))
	for i, cs := range curves {
		means[i] = cv.MeanCurve(cs)
	}
	r, b := cv.ChooseRankBeta(ranks, means)
	if b < 0 {
		return 0, 0, fmt.Errorf("no inner fold of split %d has a scorable validation comparison for any β", t.Split)
	}
	return ranks[r], c.BetaGrid.Values[b], nil
}

// rowMinBeta returns β_min of a row's fit on the fold's training set
// (mkpoe.MinBeta), the unit of a relative beta_grid.
func rowMinBeta(c *Config, row RowConfig, f *fold, kidx []int) (float64, error) {
	s, err := rowSettings(c, row)
	if err != nil {
		return 0, err
	}
	s.Cache = f.eigen
	return mkpoe.MinBeta(f.gramsOf(kidx), f.trainCs, s)
}

// relativeGridError says what to do when β_min has no meaning as a unit
// (cv.NoUnitError).
func relativeGridError(err error) error {
	var nu *cv.NoUnitError
	if errors.As(err, &nu) {
		return fmt.Errorf("β_min of this training set is %g (%s), so beta_grid.relative_to_min has no unit here: give beta_grid as a list of β values", nu.MinBeta, nu.Why)
	}
	return err
}

// rowCombine is a learned row's kernel combination: the sum kernel for
// k1 (Sec. 4.1; one kernel is its own sum), one W per kernel for k4.
func rowCombine(row RowConfig) mkpoe.Combine {
	if row.Method == "k1" {
		return mkpoe.Sum
	}
	return mkpoe.Separate
}

// stepReports converts constraint.Run's reports to their file form (nil
// for nil, so that a task without steps writes none).
func stepReports(rs []constraint.StepReport) []results.StepReport {
	if rs == nil {
		return nil
	}
	out := make([]results.StepReport, len(rs))
	for i, r := range rs {
		out[i] = results.StepReport{Step: r.Step, In: r.In, Removed: r.Removed, Out: r.Out}
	}
	return out
}
