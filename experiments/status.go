package experiments

import (
	"fmt"
	"path/filepath"

	"github.com/mkpoe/mkpoe/experiments/slurm"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TaskState is one task that is not done.
type TaskState struct {
	Index int    `json:"index"` // plan index
	ID    string `json:"id"`
	Phase int    `json:"phase"`
	// Reason says why a task is missing: no result, unreadable, or stale
	// (written under another config hash).
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"` // a failed task's error
}

// UnconvergedTask is a done task with fits that stopped above the solver's
// tolerance: its result is kept and used, but not certified.
type UnconvergedTask struct {
	Index int    `json:"index"` // plan index
	ID    string `json:"id"`
	Phase int    `json:"phase"`
	Fits  int    `json:"fits"` // fits of the task
	// Unconverged lists the fits above the tolerance: β and certified gap.
	Unconverged []results.FitGap `json:"unconverged"`
	Note        string           `json:"note"` // for people
}

// RunState is the state of a run directory's tasks, as "mkpoe status"
// reports it (its JSON is the output of mkpoe status --json). Its lists
// are never nil.
type RunState struct {
	RunDir     string      `json:"run_dir"` // absolute when it can be
	Name       string      `json:"name"`
	ConfigHash string      `json:"config_hash"`
	Total      int         `json:"total"`
	Done       int         `json:"done"`
	Missing    []TaskState `json:"missing"`
	Failed     []TaskState `json:"failed"`
	// NotConverged lists done tasks (counted in Done) with fits whose
	// certified relative gap stayed above SolverTol.
	NotConverged []UnconvergedTask `json:"not_converged"`
	// ConvergenceUnknown counts done tasks with fits but no convergence
	// record (task files written by an older mkpoe).
	ConvergenceUnknown int              `json:"convergence_unknown"`
	SolverTol          float64          `json:"solver_tol"`
	Resubmit           []slurm.Resubmit `json:"resubmit"`
	// Commands resubmit the tasks that are not done, then merge (bash).
	Commands string `json:"commands"`
}

// Complete reports whether every task of the plan is done.
func (s *RunState) Complete() bool { return len(s.Missing) == 0 && len(s.Failed) == 0 }

// Status reads the task results of c.Output and says which tasks of c's
// plan are done, missing (no result, unreadable, or stale) or failed, and
// how to redo only those: with the Slurm scripts of "mkpoe slurm" when the
// run directory holds some for this config, else with a local "mkpoe run".
// It reads files only (no Slurm query), so it is cheap to run as often as
// one likes.
func Status(c *Config) *RunState {
	s := &RunState{RunDir: absPath(c.Output), Name: c.Name, ConfigHash: c.Hash(), Missing: []TaskState{}, Failed: []TaskState{},
		NotConverged: []UnconvergedTask{}, SolverTol: c.Solver.Tol, Resubmit: []slurm.Resubmit{}}
	plan := Plan(c)
	s.Total = len(plan)
	redo := map[int]bool{}
	st := newStore(c)
	for i, t := range plan {
		ts := TaskState{Index: i, ID: t.ID, Phase: t.Phase}
		r, reason := st.read(t)
		switch {
		case r == nil:
			ts.Reason = reason
			s.Missing = append(s.Missing, ts)
			redo[i] = true
		case r.Status == "ok":
			s.Done++
			fits, bad, _, known := r.Convergence()
			switch {
			case !known:
				s.ConvergenceUnknown++
			case len(bad) > 0:
				s.NotConverged = append(s.NotConverged, UnconvergedTask{Index: i, ID: t.ID, Phase: t.Phase, Fits: fits,
					Unconverged: bad, Note: r.NotConvergedNote(c.Solver.Tol)})
			}
		default:
			ts.Error = r.Error
			if ts.Error == "" {
				ts.Error = "status " + r.Status
			}
			s.Failed = append(s.Failed, ts)
			redo[i] = true
		}
	}
	if len(redo) == 0 {
		return s
	}
	again := func(i int) bool { return redo[i] }
	if sp, err := slurm.ReadPlan(c.Output); err == nil && sp.ConfigHash == s.ConfigHash {
		s.Resubmit, s.Commands = sp.Resubmit(again)
		return s
	}
	// No scripts of this config: plan indices per phase, and a local rerun.
	s.Resubmit = slurm.ResubmitLocal(plan, again)
	resolved := filepath.Join(s.RunDir, "config.resolved.yaml")
	s.Commands = fmt.Sprintf("mkpoe run %s --out %s   # reruns only what is not done\n", slurm.ShellQuote(resolved), slurm.ShellQuote(s.RunDir))
	return s
}

// absPath makes p absolute when it can (it cannot only when the working
// directory is gone, and then p is as good as anything).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
