package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestKernelRankConfig: solver.kernel_rank truncates the kernels of the
// full-W rows only, every refit records the energy its kernel kept (task
// file and model), and bad values are reported with their YAML path.
func TestKernelRankConfig(t *testing.T) {
	dir := t.TempDir()
	body := `name: truncated
seed: 3
dataset: {type: planted, planted: {n: 40, dim: 3, triplets: 1200, flip: 0.1}}
kernels:
  - {name: rbf, source: points, type: rbf}
protocol: {holdout: comparisons, splits: 1, test_fraction: 0.2, inner_folds: 2}
beta_grid: {relative_to_min: [1.5, 3]}
solver: {method: accelerated, tol: 0.001, kernel_rank: 6}
rows:
  - {method: k1, kernel: rbf, mode: full}
  - {method: k1, kernel: rbf, mode: diag}
`
	cfg := filepath.Join(dir, "truncated.yaml")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, s := runConfigFile(t, cfg)
	for r, wantTruncated := range []bool{true, false} {
		if len(s.Rows[r].Models) == 0 {
			t.Fatalf("row %d: no refit models", r)
		}
		for _, m := range s.Rows[r].Models {
			model := readRunModel(t, c.Output, m)
			e := model.Stats.KernelEnergy
			switch {
			case wantTruncated && (len(e) != 1 || !(e[0] > 0.5 && e[0] < 1) || model.Stats.BlockDims[0] != 6):
				t.Errorf("%s: kernel energy %v, block dims %v; want one fraction in (0.5, 1) and 6 dimensions", m, e, model.Stats.BlockDims)
			case !wantTruncated && e != nil:
				t.Errorf("%s: a diagonal row recorded kernel energy %v", m, e)
			}
			task := strings.TrimSuffix(filepath.Base(m), ".json")
			tb, err := os.ReadFile(filepath.Join(c.Output, "tasks", task+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var tr results.TaskResult
			if err := json.Unmarshal(tb, &tr); err != nil {
				t.Fatal(err)
			}
			if len(tr.KernelEnergy) != len(e) || (e != nil && tr.KernelEnergy[0] != e[0]) {
				t.Errorf("task %s records kernel energy %v, its model %v", task, tr.KernelEnergy, e)
			}
		}
	}
	for _, tc := range []struct{ edit, want string }{
		{"kernel_rank: -2", "solver.kernel_rank: must be >= 1"},
		{"kernel_rank: 6, kernel_energy: 1", "solver.kernel_energy: must be in (0, 1)"},
		{"kernel_rank: 6, method: subgradient", "solver.kernel_rank: truncates the kernels' eigenbasis"},
	} {
		bad := strings.Replace(body, "method: accelerated, tol: 0.001, kernel_rank: 6", tc.edit, 1)
		p := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.edit, err, tc.want)
		}
	}
}
