package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/experiments/slurm"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// loadRunArgs parses "RUN_DIR [flags]" or "CONFIG [--out DIR] [flags]". A
// run directory is loaded from its config.resolved.yaml, with the output
// set to the directory itself (so a moved run still works).
func loadRunArgs(name string, args []string, stderr io.Writer, extra func(fs *flagSet)) (*experiments.Config, error) {
	path, out, err := pathAndOut(name, args, stderr, "run directory, when the argument is a CONFIG (default: the config's output)", extra)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, usagef("usage: mkpoe %s RUN_DIR (or CONFIG [--out DIR])", name)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, badInput(err)
	}
	if !fi.IsDir() {
		return loadConfigFile(path, out)
	}
	if out != "" {
		return nil, usagef("--out: not with a run directory (%s)", path)
	}
	resolved := filepath.Join(path, "config.resolved.yaml")
	if _, err := os.Stat(resolved); err != nil {
		return nil, badInput(fmt.Errorf("%s is not a run directory: %w", path, err))
	}
	c, err := experiments.LoadConfig(resolved)
	if err != nil {
		return nil, badInput(err)
	}
	c.Output = path
	return c, nil
}

// absPath makes p absolute when it can (it cannot only when the working
// directory is gone, and then p is as good as anything).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// taskState is one task that is not done.
type taskState struct {
	Index int    `json:"index"` // plan index
	ID    string `json:"id"`
	Phase int    `json:"phase"`
	// Reason says why a task is missing: no result, unreadable, or stale
	// (written under another config hash).
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"` // a failed task's error
}

// unconvergedTask is a done task with fits that stopped above the solver's
// tolerance: its result is kept and used, but not certified.
type unconvergedTask struct {
	Index int    `json:"index"` // plan index
	ID    string `json:"id"`
	Phase int    `json:"phase"`
	Fits  int    `json:"fits"` // fits of the task
	// Unconverged lists the fits above the tolerance: β and certified gap.
	Unconverged []results.FitGap `json:"unconverged"`
	Note        string           `json:"note"` // for people
}

// runState is what "mkpoe status" reports.
type runState struct {
	RunDir     string      `json:"run_dir"`
	Name       string      `json:"name"`
	ConfigHash string      `json:"config_hash"`
	Total      int         `json:"total"`
	Done       int         `json:"done"`
	Missing    []taskState `json:"missing"`
	Failed     []taskState `json:"failed"`
	// NotConverged lists done tasks (counted in Done) with fits whose
	// certified relative gap stayed above SolverTol.
	NotConverged []unconvergedTask `json:"not_converged"`
	// ConvergenceUnknown counts done tasks with fits but no convergence
	// record (task files written by an older mkpoe).
	ConvergenceUnknown int              `json:"convergence_unknown"`
	SolverTol          float64          `json:"solver_tol"`
	Resubmit           []slurm.Resubmit `json:"resubmit"`
	// Commands resubmit the tasks that are not done, then merge (bash).
	Commands string `json:"commands"`
}

// complete reports whether every task of the plan is done.
func (s *runState) complete() bool { return len(s.Missing) == 0 && len(s.Failed) == 0 }

// statusOf reads the task results of c.Output. It reads files only: no
// Slurm query, so it is cheap to run as often as one likes.
func statusOf(c *experiments.Config) (*runState, error) {
	s := &runState{RunDir: absPath(c.Output), Name: c.Name, ConfigHash: c.Hash(), Missing: []taskState{}, Failed: []taskState{},
		NotConverged: []unconvergedTask{}, SolverTol: c.Solver.Tol, Resubmit: []slurm.Resubmit{}}
	plan := experiments.Plan(c)
	s.Total = len(plan)
	redo := map[int]bool{}
	for i, t := range plan {
		ts := taskState{Index: i, ID: t.ID, Phase: t.Phase}
		r, reason := experiments.ReadTask(c, t)
		switch {
		case r == nil:
			ts.Reason = reason
		case r.Status == "ok":
			s.Done++
			fits, bad, _, known := r.Convergence()
			switch {
			case !known:
				s.ConvergenceUnknown++
			case len(bad) > 0:
				s.NotConverged = append(s.NotConverged, unconvergedTask{Index: i, ID: t.ID, Phase: t.Phase, Fits: fits,
					Unconverged: bad, Note: r.NotConvergedNote(c.Solver.Tol)})
			}
			continue
		default:
			ts.Error = r.Error
			if ts.Error == "" {
				ts.Error = "status " + r.Status
			}
			s.Failed = append(s.Failed, ts)
			redo[i] = true
			continue
		}
		s.Missing = append(s.Missing, ts)
		redo[i] = true
	}
	if len(redo) == 0 {
		return s, nil
	}
	sp, err := slurm.ReadPlan(c.Output)
	if err == nil && sp.ConfigHash == s.ConfigHash {
		s.Resubmit, s.Commands = sp.Resubmit(func(i int) bool { return redo[i] })
		return s, nil
	}
	// No scripts of this config: plan indices per phase, and a local rerun.
	s.Resubmit = slurm.ResubmitLocal(plan, func(i int) bool { return redo[i] })
	resolved := filepath.Join(s.RunDir, "config.resolved.yaml")
	s.Commands = fmt.Sprintf("mkpoe run %s --out %s   # reruns only what is not done\n", slurm.ShellQuote(resolved), slurm.ShellQuote(s.RunDir))
	return s, nil
}

// write prints the state for people.
func (s *runState) write(w io.Writer) {
	fmt.Fprintf(w, "run %s: %s (config hash %s)\n", s.Name, s.RunDir, s.ConfigHash)
	fmt.Fprintf(w, "%d tasks: %d done, %d missing, %d failed\n", s.Total, s.Done, len(s.Missing), len(s.Failed))
	if len(s.NotConverged) > 0 {
		fmt.Fprintf(w, "%d done tasks not converged (certified gap above solver.tol %g; results kept, raise solver.max_iter or read them with care):\n", len(s.NotConverged), s.SolverTol)
		for _, t := range s.NotConverged {
			fmt.Fprintf(w, "  %d %s: %s\n", t.Index, t.ID, t.Note)
		}
	}
	if s.ConvergenceUnknown > 0 {
		fmt.Fprintf(w, "%d done tasks have no convergence record (written by an older mkpoe)\n", s.ConvergenceUnknown)
	}
	if len(s.Failed) > 0 {
		fmt.Fprintln(w, "failed:")
		for _, t := range s.Failed {
			fmt.Fprintf(w, "  %d %s: %s\n", t.Index, t.ID, t.Error)
		}
	}
	if len(s.Missing) > 0 {
		fmt.Fprintln(w, "missing (not run yet, still running, or lost):")
		for _, t := range s.Missing {
			fmt.Fprintf(w, "  %d %s: %s\n", t.Index, t.ID, t.Reason)
		}
	}
	if s.complete() {
		fmt.Fprintf(w, "complete: mkpoe merge %s\n", slurm.ShellQuote(s.RunDir))
		return
	}
	for _, r := range s.Resubmit {
		where := "plan indices"
		if r.Script != "" {
			where = filepath.Base(r.Script)
		}
		fmt.Fprintf(w, "resubmit phase %d (%s): --array=%s\n", r.Phase, where, r.Array)
	}
	fmt.Fprintf(w, "commands:\n%s", indent(s.Commands))
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// runStatus implements "mkpoe status RUN_DIR [--json]" (or CONFIG --out DIR):
// done, missing and failed tasks, and how to resubmit only those; and the
// done tasks whose fits did not converge.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var asJSON *bool
	c, err := loadRunArgs("status", args, stderr, func(fs *flagSet) {
		asJSON = fs.Bool("json", false, "print the status as JSON")
	})
	if err != nil {
		return err
	}
	s, err := statusOf(c)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	s.write(stdout)
	return nil
}

// runMerge implements "mkpoe merge RUN_DIR" (or CONFIG --out DIR): build
// summary.json, table.md and timings.json once every task is done (it is
// idempotent); otherwise say what is missing or failed and exit 1.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := loadRunArgs("merge", args, stderr, nil)
	if err != nil {
		return err
	}
	s, err := statusOf(c)
	if err != nil {
		return err
	}
	if !s.complete() {
		s.write(stderr)
		return fmt.Errorf("run incomplete: %d missing, %d failed of %d tasks", len(s.Missing), len(s.Failed), s.Total)
	}
	sum, err := experiments.Merge(c)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, experiments.SummaryMarkdown(sum))
	fmt.Fprintf(stdout, "\nmerged %d tasks: %s\n", s.Total, filepath.Join(s.RunDir, "summary.json"))
	return nil
}
