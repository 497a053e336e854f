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

// writeStatus prints the state of a run for people.
func writeStatus(w io.Writer, s *experiments.RunState) {
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
	if s.Complete() {
		if experiments.SummaryCurrent(s.RunDir, s.ConfigHash) {
			fmt.Fprintf(w, "complete: %s\n", filepath.Join(s.RunDir, "summary.json"))
		} else {
			fmt.Fprintf(w, "complete, not merged yet: mkpoe merge %s\n", slurm.ShellQuote(s.RunDir))
		}
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
	s := experiments.Status(c)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	writeStatus(stdout, s)
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
	s := experiments.Status(c)
	if !s.Complete() {
		writeStatus(stderr, s)
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
