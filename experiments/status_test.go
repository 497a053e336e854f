package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/experiments/slurm"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestStatus runs the native tasks (plan indices 0-3) of the tiny config,
// fails task 1, makes task 2 stale and loses task 3, and checks the state
// and resubmission lists without Slurm scripts, with the scripts of this
// config (chunked at 10) and with the scripts of another config.
func TestStatus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	c := loadTiny(t, dir)
	plan := Plan(c)
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1, NoMerge: true, Only: func(i int, _ results.Task) bool { return i < 4 }}); err != nil {
		t.Fatal(err)
	}
	if s := Status(c); s.Total != 22 || s.Done != 4 || len(s.Missing) != 18 || len(s.Failed) != 0 || s.Complete() {
		t.Fatalf("after the native tasks: %+v", s)
	}
	task := func(i int) string { return filepath.Join(dir, "tasks", plan[i].ID+".json") }
	edit := func(i int, f func(r *results.TaskResult)) {
		var r results.TaskResult
		if err := json.Unmarshal(readFile(t, task(i)), &r); err != nil {
			t.Fatal(err)
		}
		f(&r)
		if err := results.WriteFile(task(i), &r); err != nil {
			t.Fatal(err)
		}
	}
	edit(1, func(r *results.TaskResult) { r.Status, r.Error = "failed", "boom" })
	edit(2, func(r *results.TaskResult) { r.Inputs = "0123456789abcdef" })
	if err := os.Remove(task(3)); err != nil {
		t.Fatal(err)
	}

	s := Status(c)
	abs, _ := filepath.Abs(dir)
	if s.RunDir != abs || s.Name != "tiny" || s.ConfigHash != c.Hash() || s.SolverTol != c.Solver.Tol {
		t.Errorf("run: %q %q %q %g", s.RunDir, s.Name, s.ConfigHash, s.SolverTol)
	}
	if s.Total != 22 || s.Done != 1 || len(s.Failed) != 1 || len(s.Missing) != 20 || s.Complete() {
		t.Fatalf("status: %d total, %d done, %d failed, %d missing", s.Total, s.Done, len(s.Failed), len(s.Missing))
	}
	if f := s.Failed[0]; f.Index != 1 || f.ID != plan[1].ID || f.Error != "boom" || f.Reason != "" {
		t.Errorf("failed: %+v", f)
	}
	if m := s.Missing[0]; m.Index != 2 || !strings.HasPrefix(m.Reason, "stale") {
		t.Errorf("missing[0]: %+v", m)
	}
	if m := s.Missing[1]; m.Index != 3 || m.Reason != "no result" || m.Phase != 0 {
		t.Errorf("missing[1]: %+v", m)
	}
	if m := s.Missing[19]; m.Index != 21 || m.Phase != 1 {
		t.Errorf("missing[19]: %+v", m)
	}
	resubmit := func(s *RunState) string {
		var parts []string
		for _, r := range s.Resubmit {
			parts = append(parts, fmt.Sprintf("%d %s %s %v", r.Phase, filepath.Base(r.Script), r.Array, r.Tasks))
		}
		return strings.Join(parts, "; ")
	}
	if got, want := resubmit(s), "0 . 1-15 [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]; 1 . 16-21 [16 17 18 19 20 21]"; got != want {
		t.Errorf("resubmit without scripts: %s, want %s", got, want)
	}
	if want := "mkpoe run " + abs + "/config.resolved.yaml --out " + abs + "   # reruns only what is not done\n"; s.Commands != want {
		t.Errorf("commands without scripts: %q, want %q", s.Commands, want)
	}

	// With this config's scripts, chunked at 10: the lists are per array job.
	p := &slurm.Plan{RunDir: abs, Config: filepath.Join(abs, "config.resolved.yaml"), Binary: "/opt/mkpoe", ConfigHash: c.Hash(), MaxArraySize: 10}
	if _, err := p.Write(plan, c.Name, slurm.Options{CPUs: 1}); err != nil {
		t.Fatal(err)
	}
	s = Status(c)
	if got, want := resubmit(s), "0 phase0-chunk00.sbatch 1-9 [1 2 3 4 5 6 7 8 9]; 0 phase0-chunk01.sbatch 0-5 [10 11 12 13 14 15]; "+
		"1 phase1-chunk01.sbatch 6-9 [16 17 18 19]; 1 phase1-chunk02.sbatch 0-1 [20 21]"; got != want {
		t.Errorf("resubmit with scripts: %s, want %s", got, want)
	}
	for _, want := range []string{
		"p0c00=$(sbatch --parsable --array=1-9 " + abs + "/slurm/phase0-chunk00.sbatch | cut -d';' -f1)\n",
		"p1c02=$(sbatch --parsable --dependency=afterany:$p0c00:$p0c01 --array=0-1 " + abs + "/slurm/phase1-chunk02.sbatch",
		"merge=$(sbatch --parsable --dependency=afterany:$p0c00:$p0c01:$p1c01:$p1c02 " + abs + "/slurm/merge.sbatch",
	} {
		if !strings.Contains(s.Commands, want) {
			t.Errorf("commands lack %q:\n%s", want, s.Commands)
		}
	}

	// Scripts of another config are ignored.
	p.ConfigHash = "another"
	if err := results.WriteFile(filepath.Join(abs, "slurm", "slurm.json"), p); err != nil {
		t.Fatal(err)
	}
	if s = Status(c); !strings.HasPrefix(s.Commands, "mkpoe run ") || s.Resubmit[0].Script != "" {
		t.Errorf("scripts of another config used: %+v", s.Resubmit)
	}
}

// TestStatusShardFailure: a shard whose task fails returns that task's
// error, a shard of other tasks succeeds beside it, and Status lists the
// failure with its error.
func TestStatusShardFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	c := loadTiny(t, dir)
	// A refit before its cv tasks fails and records why.
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1, NoMerge: true, Only: func(i int, t results.Task) bool { return i == 16 }}); err == nil || !strings.Contains(err.Error(), "refit needs the results") {
		t.Fatalf("refit without cv results: %v", err)
	}
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1, NoMerge: true, Only: func(i int, t results.Task) bool { return i == 0 }}); err != nil {
		t.Fatalf("another shard beside a failed task: %v", err)
	}
	s := Status(c)
	if s.Done != 1 || len(s.Failed) != 1 || s.Failed[0].Index != 16 || !strings.Contains(s.Failed[0].Error, expandIDs(c, "refit needs the results of [{cv 2 0 0} {cv 2 0 1}] first")) {
		t.Errorf("status: %+v", s)
	}
}
