package experiments

import (
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"gonum.org/v1/gonum/mat"
)

// TaskResult is what a task writes to tasks/<id>.json.
type TaskResult struct {
	Task
	ConfigHash string  `json:"config_hash"`
	Status     string  `json:"status"` // "ok" or "failed"
	Error      string  `json:"error,omitempty"`
	Seconds    float64 `json:"seconds"`
	// TestAccuracy is the test accuracy of a native or refit task.
	TestAccuracy float64 `json:"test_accuracy"`
	// Betas, ValAccuracy, Objectives and Iterations describe a cv task's sweep.
	Betas       []float64 `json:"betas,omitempty"`
	ValAccuracy []float64 `json:"val_accuracy,omitempty"`
	Objectives  []float64 `json:"objectives,omitempty"`
	Iterations  []int     `json:"iterations,omitempty"`
	Gaps        []float64 `json:"gaps,omitempty"`
	// Beta is the β a refit chose; Model the model file, relative to the run directory.
	Beta  float64 `json:"beta,omitempty"`
	Model string  `json:"model,omitempty"`
	Dim   int     `json:"dim,omitempty"`
	// KernelShare is, for a k4 refit, each kernel's share of the trace
	// regulariser Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾): how much of the learned space it carries.
	KernelShare      []float64               `json:"kernel_share,omitempty"`
	TrainItems       int                     `json:"train_items"`
	TestItems        int                     `json:"test_items"`
	TrainComparisons int                     `json:"train_comparisons"`
	TestComparisons  int                     `json:"test_comparisons"`
	TrainSteps       []constraint.StepReport `json:"train_steps,omitempty"`
	TestSteps        []constraint.StepReport `json:"test_steps,omitempty"`
}

// runTask executes one task. ds is shared and read-only; store gives access
// to other tasks' results (refit) and the run directory.
func runTask(c *Config, ds *dataset, st *store, t Task) (res TaskResult) {
	start := time.Now()
	res = TaskResult{Task: t, ConfigHash: c.Hash(), Status: "ok"}
	defer func() {
		if p := recover(); p != nil {
			res.Status, res.Error = "failed", fmt.Sprintf("internal error: %v", p)
		}
		res.Seconds = time.Since(start).Seconds()
	}()
	if err := execTask(c, ds, st, t, &res); err != nil {
		res.Status, res.Error = "failed", err.Error()
	}
	return res
}

func execTask(c *Config, ds *dataset, st *store, t Task, res *TaskResult) error {
	row := c.Rows[t.Row]
	kidx := c.rowKernels(row)
	train, test := splitItems(c, ds.n, t.Split)
	seed := c.Seed*1_000_003 + uint64(t.Split)*101 + uint64(t.Fold+1)
	if t.Kind == KindCV {
		train, test = innerFold(c, train, t.Split, t.Fold)
	}
	steps := c.Constraints.Train
	if row.TrainSteps != nil {
		steps = *row.TrainSteps
	}
	f, err := buildFold(c, ds, train, test, kidx, steps, seed)
	if err != nil {
		return err
	}
	res.TrainItems, res.TestItems = len(train), len(test)
	res.TrainComparisons, res.TestComparisons = len(f.trainCs), len(f.testCs)
	res.TrainSteps, res.TestSteps = f.trainSteps, f.testSteps
	switch t.Kind {
	case KindNative:
		res.TestAccuracy = nativeAccuracy(f, kidx)
		return nil
	case KindCV:
		var prev *mkpoe.Model
		for _, beta := range c.BetaGrid {
			m, err := fitRow(c, row, f, kidx, beta, prev)
			if err != nil {
				return fmt.Errorf("β=%g: %w", beta, err)
			}
			acc, err := learnedAccuracy(m, f, kidx)
			if err != nil {
				return err
			}
			res.Betas = append(res.Betas, beta)
			res.ValAccuracy = append(res.ValAccuracy, acc)
			res.Objectives = append(res.Objectives, m.Objective)
			res.Iterations = append(res.Iterations, m.Stats.Iterations)
			res.Gaps = append(res.Gaps, m.Stats.RelativeGap)
			prev = m
		}
		return nil
	case KindRefit:
		beta, err := chooseBeta(c, st, t)
		if err != nil {
			return err
		}
		m, err := fitRow(c, row, f, kidx, beta, nil)
		if err != nil {
			return fmt.Errorf("β=%g: %w", beta, err)
		}
		var testEmb *mat.Dense
		if res.TestAccuracy, testEmb, err = learnedAccuracyEmbedding(m, f, kidx); err != nil {
			return err
		}
		res.Beta, res.Dim = beta, m.Dim()
		res.KernelShare = kernelShare(m, f, kidx)
		res.Objectives, res.Iterations, res.Gaps = []float64{m.Objective}, []int{m.Stats.Iterations}, []float64{m.Stats.RelativeGap}
		res.Model = filepath.Join("models", t.ID+".json")
		if testEmb != nil {
			// The held-out items' embedding (rows in the order of items.json
			// splits[s].test), for the report's map (out-of-sample points).
			if err := data.WriteMatrixFile(filepath.Join(st.dir, "models", t.ID+".test.tsv"), testEmb); err != nil {
				return err
			}
		}
		return writeModel(filepath.Join(st.dir, res.Model), m)
	}
	return fmt.Errorf("unknown task kind %q", t.Kind)
}

// fitRow fits the model of a k1 or k4 row on a fold's training kernels.
func fitRow(c *Config, row RowConfig, f *fold, kidx []int, beta float64, init *mkpoe.Model) (*mkpoe.Model, error) {
	mode, err := mkpoe.ParseMode(row.Mode)
	if err != nil {
		return nil, err
	}
	s := &mkpoe.Settings{Beta: beta, Mode: mode, Solver: mkpoe.Solver(c.Solver.Method), Tol: c.Solver.Tol, MaxIter: c.Solver.MaxIter, Init: init}
	if row.Method == "k1" {
		s.Combine = mkpoe.Sum
	}
	ks := make([]mat.Symmetric, len(kidx))
	for i, p := range kidx {
		ks[i] = f.grams[p]
	}
	return mkpoe.Fit(ks, f.trainCs, s)
}

// learnedAccuracy scores the held-out comparisons of a fold in the learned
// space: training items from the model, held-out items embedded from their
// kernel rows (Sec. 3.2, 4.3).
func learnedAccuracy(m *mkpoe.Model, f *fold, kidx []int) (float64, error) {
	acc, _, err := learnedAccuracyEmbedding(m, f, kidx)
	return acc, err
}

// learnedAccuracyEmbedding is learnedAccuracy that also returns the
// held-out items' embedding (nil if there are none).
func learnedAccuracyEmbedding(m *mkpoe.Model, f *fold, kidx []int) (float64, *mat.Dense, error) {
	if len(f.test) == 0 {
		return math.NaN(), nil, nil
	}
	rows := make([]*mat.Dense, len(kidx))
	for i, p := range kidx {
		rows[i] = f.rows[p]
	}
	emb, err := m.Embed(rows)
	if err != nil {
		return 0, nil, err
	}
	if len(f.testCs) == 0 {
		return math.NaN(), emb, nil
	}
	nt, d := m.Train.Dims()
	t, _ := emb.Dims()
	all := mat.NewDense(nt+t, d, nil)
	all.Stack(m.Train, emb)
	return eval.Accuracy(f.testCs, eval.EmbeddingDistance(all)), emb, nil
}

// nativeAccuracy scores the held-out comparisons in the native space of the
// unweighted sum of the row's kernels (one kernel: its own space). Held-out
// comparisons are triplets (i,j,i,k) anchored at the held-out item, so its
// self-similarity cancels from d(i,j) − d(i,k) and is not needed.
func nativeAccuracy(f *fold, kidx []int) float64 {
	if len(f.testCs) == 0 {
		return math.NaN()
	}
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
	return eval.Accuracy(f.testCs, func(i, j int) float64 { return k(i, i) + k(j, j) - 2*k(i, j) })
}

// chooseBeta picks the β with the highest mean validation accuracy over
// the split's inner folds (ties: the smallest β, the most regularised).
func chooseBeta(c *Config, st *store, t Task) (float64, error) {
	mean := make([]float64, len(c.BetaGrid))
	var missing []string
	for f := 0; f < c.Protocol.InnerFolds; f++ {
		id := taskID(KindCV, t.Row, t.Split, f)
		r, ok := st.load(id)
		if !ok || r.Status != "ok" {
			missing = append(missing, id)
			continue
		}
		for b, acc := range r.ValAccuracy {
			if !math.IsNaN(acc) {
				mean[b] += acc / float64(c.Protocol.InnerFolds)
			}
		}
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("refit needs the results of %v first", missing)
	}
	best := 0
	for b := range mean {
		if mean[b] > mean[best] {
			best = b
		}
	}
	return c.BetaGrid[best], nil
}

// kernelShare returns tr(W⁽ᵖ⁾K⁽ᵖ⁾)/Σ_q tr(W⁽q⁾K⁽q⁾) for a model with one W
// per kernel (k4), or nil.
func kernelShare(m *mkpoe.Model, f *fold, kidx []int) []float64 {
	if len(m.W) != len(kidx) || len(kidx) < 2 {
		return nil
	}
	shares := make([]float64, len(kidx))
	total := 0.0
	for i, p := range kidx {
		var wk mat.Dense
		wk.Mul(m.W[i], f.grams[p])
		shares[i] = math.Max(mat.Trace(&wk), 0)
		total += shares[i]
	}
	if total > 0 {
		for i := range shares {
			shares[i] /= total
		}
	}
	return shares
}
