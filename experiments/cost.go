package experiments

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/mkpoe/mkpoe/internal/cputime"
	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// CostOptions choose what MeasureCost runs: the learned rows to compare
// (by label), the outer split, how many of its inner folds (0 … Folds−1)
// and how many repeats. Log, if not nil, gets a line per task.
type CostOptions struct {
	Rows    []string
	Split   int
	Folds   int
	Repeats int
	Log     io.Writer
}

// validate checks o against c: every row a learned row of c, named once,
// the split and folds within the protocol, at least one repeat.
func (o CostOptions) validate(c *Config) error {
	var errs []string
	if len(o.Rows) < 2 {
		errs = append(errs, fmt.Sprintf("--rows must name at least two rows to compare, got %d", len(o.Rows)))
	}
	for i, l := range o.Rows {
		r := slices.IndexFunc(c.Rows, func(r RowConfig) bool { return r.Label == l })
		switch {
		case r < 0:
			errs = append(errs, fmt.Sprintf("--rows: %q is not a row of %s", l, c.Name))
		case c.Rows[r].Method == "native":
			errs = append(errs, fmt.Sprintf("--rows: %q is a native row: it fits nothing", l))
		case slices.Index(o.Rows, l) != i:
			errs = append(errs, fmt.Sprintf("--rows: %q is named twice", l))
		}
	}
	if o.Split < 0 || o.Split >= c.Protocol.Splits {
		errs = append(errs, fmt.Sprintf("--split must be in 0..%d, got %d", c.Protocol.Splits-1, o.Split))
	}
	if o.Folds < 1 || o.Folds > c.Protocol.InnerFolds {
		errs = append(errs, fmt.Sprintf("--folds must be in 1..%d (protocol.inner_folds), got %d", c.Protocol.InnerFolds, o.Folds))
	}
	if o.Repeats < 1 {
		errs = append(errs, fmt.Sprintf("--repeats must be ≥ 1, got %d", o.Repeats))
	}
	if len(errs) > 0 {
		return fmt.Errorf("cost: %s", strings.Join(errs, "; "))
	}
	return nil
}

// MeasureCost runs the cv tasks (every β of the grid, one inner fold each)
// of the rows o.Rows on outer split o.Split and inner folds 0 … o.Folds−1,
// o.Repeats times, one task at a time and interleaved (results.CostReport:
// repeat r runs each fold's rows in order when r is even, reversed when it
// is odd), and returns what each run cost. Each task starts after a
// garbage collection, so that none pays for the previous one's garbage.
// Nothing is written to the config's run directory: the tasks' results
// are the run's (same seeds), only their times are kept.
func MeasureCost(ctx context.Context, c *Config, o CostOptions) (*results.CostReport, error) {
	if err := o.validate(c); err != nil {
		return nil, errkind.BadInput(err)
	}
	if _, ok := cputime.Process(); !ok {
		return nil, fmt.Errorf("cost: this system does not report the process's CPU time (getrusage; mkpoe reads it on Linux)")
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		return nil, errkind.BadInput(err)
	}
	env := runEnv(c, 1)
	rep := &results.CostReport{Format: results.CostFormat, Config: c.Name, ConfigHash: c.Hash(),
		Commit: cmp.Or(env["vcs.revision"], env["git_commit"]), LinalgBackend: env["linalg_backend"],
		OpenBLASCore: env["openblas_core"], OpenBLASCoretype: env["OPENBLAS_CORETYPE"], CPUModel: env["cpu_model"],
		GOMAXPROCS: runtime.GOMAXPROCS(0), Started: env["started"],
		Rows: o.Rows, Split: o.Split, Folds: o.Folds, Repeats: o.Repeats}
	rep.Cores, _ = strconv.Atoi(env["cores"])
	if d := cmp.Or(env["vcs.modified"], env["git_dirty"]); d != "" {
		dirty := d == "true"
		rep.Dirty = &dirty
	}
	tasks := map[string]results.Task{}
	for _, t := range Plan(c) {
		if t.Kind == KindCV && t.Split == o.Split {
			tasks[c.Rows[t.Row].Label+"/"+strconv.Itoa(t.Fold)] = t
		}
	}
	for r := range o.Repeats {
		order := slices.Clone(o.Rows)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for f := range o.Folds {
			for _, label := range order {
				t := tasks[label+"/"+strconv.Itoa(f)]
				runtime.GC()
				res, stopped := runTask(ctx, c, ds, nil, t, nil, true)
				if stopped {
					return nil, ctx.Err()
				}
				if res.Status != "ok" || res.ProcessCPUSeconds == nil {
					return nil, fmt.Errorf("cost: task %s failed: %s", t.ID, res.Error)
				}
				run := costRun(r, label, res)
				rep.Runs = append(rep.Runs, run)
				if o.Log != nil {
					fmt.Fprintf(o.Log, "repeat %d fold %d %-20s %7.2f s wall %7.2f s CPU %6d iterations\n", r, f, label, run.Seconds, *run.ProcessCPUSeconds, run.Iterations)
				}
			}
		}
	}
	return rep, nil
}

// costRun is the CostRun of a task's result in repeat r of row label.
func costRun(r int, label string, res results.TaskResult) results.CostRun {
	run := results.CostRun{Repeat: r, Row: label, Fold: res.Fold, TaskID: res.ID, TrainComparisons: res.TrainComparisons,
		Seconds: res.Seconds, CPUSeconds: res.CPUSeconds, ProcessCPUSeconds: res.ProcessCPUSeconds,
		Stages: res.Stages, StageClock: res.StageClock}
	for _, it := range res.Iterations {
		run.Iterations += it
	}
	return run
}
