package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mkpoe/mkpoe/experiments"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestKernelGroupsHardFoldCertifies reruns the task that the kernel-group
// reproduction of 2026-11-23 left with one uncertified fit: ST + genre, K4
// diagonal, inner fold f08, whose β = 1e7 fit ended at a certified gap of 0.97
// after the diagonal working set cycled between two coordinate sets until
// the round limit (docs/solver.md, "Diagonal W"). Every fit of its β sweep
// must now be certified.
func TestKernelGroupsHardFoldCertifies(t *testing.T) {
	if _, err := os.Stat(filepath.Join(repoRoot, "data")); err != nil {
		t.Skip("data/ absent: run scripts/fetch_aset400.sh and scripts/fetch_aloi.sh (or with --mirror ../shared/data)")
	}
	cfgPath := filepath.Join(repoRoot, "configs", "aset400_kernel_groups.yaml")
	c, err := experiments.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	id := c.TaskID(experiments.KindCV, 4, 0, 8)
	index := -1
	for i, task := range experiments.Plan(c) {
		if task.ID == id {
			index = i
		}
	}
	if index < 0 || c.Rows[4].Label != "ST+genre K4 diag" {
		t.Fatalf("plan of %s changed: task %s not found, or row 4 is not ST+genre K4 diag", cfgPath, id)
	}
	out := t.TempDir()
	if code, _, stderr := run("run", cfgPath, "--out", out, "--task-index", strconv.Itoa(index), "--no-report"); code != 0 {
		t.Fatalf("run exited %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "tasks", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var res results.TaskResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Converged) != len(c.BetaGrid.Values) {
		t.Fatalf("%d fits recorded, want %d", len(res.Converged), len(c.BetaGrid.Values))
	}
	for i, ok := range res.Converged {
		if !ok || !(res.Gaps[i] <= 1e-3) {
			t.Errorf("β = %g: converged %v, certified gap %.3g after %d iterations", res.Betas[i], ok, res.Gaps[i], res.Iterations[i])
		}
	}
}
