package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// TestBetaGridForms: both forms of beta_grid parse, an absolute grid keeps
// the hash it had as a plain list, and a bad relative grid is reported with
// its YAML path.
func TestBetaGridForms(t *testing.T) {
	load := func(grid string) (*Config, error) {
		dir := t.TempDir()
		p := filepath.Join(dir, "tiny.yaml")
		body := strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: "+grid, 1)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	abs, err := load("[1, 10]")
	if err != nil {
		t.Fatal(err)
	}
	if abs.BetaGrid.Relative || len(abs.BetaGrid.Values) != 2 {
		t.Errorf("[1, 10]: %+v", abs.BetaGrid)
	}
	rel, err := load("{relative_to_min: [1.5, 30]}")
	if err != nil {
		t.Fatal(err)
	}
	if !rel.BetaGrid.Relative || rel.BetaGrid.Values[0] != 1.5 || rel.BetaGrid.Values[1] != 30 {
		t.Errorf("relative grid: %+v", rel.BetaGrid)
	}
	if abs.Hash() == rel.Hash() || abs.rowInputs(abs.Rows[2]) == rel.rowInputs(rel.Rows[2]) {
		t.Error("a relative grid must change the config hash and the learned rows' task inputs")
	}
	for _, tc := range []struct{ grid, want string }{
		{"{relative_to_min: [1, 10]}", "beta_grid.relative_to_min[0]: must be > 1 (a multiple of β_min; at or below 1 the fit learns W = 0), got 1"},
		{"{relative_to_min: [3, 2]}", "beta_grid.relative_to_min[1]: must be strictly increasing, got 2"},
		{"{relative: [3]}", "line 18, column 13: beta_grid.relative: is not a key of beta_grid (its keys: relative_to_min)"},
		{"{relative_to_min: [3], from: 1}", "line 18, column 35: beta_grid.from: is not a key of beta_grid (its keys: relative_to_min)"},
		{"{}", "line 18, column 12: beta_grid: must be a list of β values such as [0.1, 1, 10], or {relative_to_min: [multiples of β_min]}, got a mapping"},
		{"7", `line 18, column 12: beta_grid: must be a list of β values such as [0.1, 1, 10], or {relative_to_min: [multiples of β_min]}, got "7"`},
		{"[1e2, 1e3, abc]", `line 18, column 23: beta_grid[2]: must be a number, got "abc"`},
		{"{relative_to_min: [2, x]}", `line 18, column 34: beta_grid.relative_to_min[1]: must be a number, got "x"`},
	} {
		_, err := load(tc.grid)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("beta_grid: %s: error %v, want one containing %q", tc.grid, err, tc.want)
			continue
		}
		// The one problem, not what follows from the grid's absence.
		if n := strings.Count(err.Error(), "\n"); n != 1 {
			t.Errorf("beta_grid: %s: %d problems, want 1:\n%v", tc.grid, n, err)
		}
	}
}

// TestRelativeBetaGridRun runs the tiny config with a relative grid: every
// cv task fits at the multiples of its own training set's β_min (checked
// against mkpoe.MinBeta computed here), every refit at the chosen multiple
// of its training set's β_min, and the summary records both.
func TestRelativeBetaGridRun(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tiny.yaml")
	body := strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: {relative_to_min: [2, 20]}", 1)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, s := runConfigFile(t, cfg)
	if !s.BetaRelative || s.BetaGrid[0] != 2 || s.BetaGrid[1] != 20 {
		t.Fatalf("summary grid %v relative %v", s.BetaGrid, s.BetaRelative)
	}
	ds, err := loadDataset(c)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan(c)
	st, err := openStore(c)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, task := range plan {
		if task.Kind == KindNative {
			continue
		}
		res, ok := st.load(task.ID)
		if !ok {
			t.Fatalf("task %s has no result", task.ID)
		}
		row := c.Rows[task.Row]
		kidx := c.rowKernels(row)
		f, err := taskFold(c, ds, row, kidx, taskFoldID(task))
		if err != nil {
			t.Fatal(err)
		}
		mode, _ := mkpoe.ParseMode(row.Mode)
		set := &mkpoe.Settings{Mode: mode}
		if row.Method == "k1" {
			set.Combine = mkpoe.Sum
		}
		want, err := mkpoe.MinBeta(f.gramsOf(kidx), f.trainCs, set)
		if err != nil {
			t.Fatal(err)
		}
		if res.MinBeta != want {
			t.Errorf("%s: min_beta %.17g, recomputed %.17g", task.ID, res.MinBeta, want)
		}
		switch task.Kind {
		case KindCV:
			for b, beta := range res.Betas {
				if beta != c.BetaGrid.Values[b]*want {
					t.Errorf("%s: fit %d at β = %.17g, want %g·β_min = %.17g", task.ID, b, beta, c.BetaGrid.Values[b], c.BetaGrid.Values[b]*want)
				}
			}
		case KindRefit:
			if res.Beta != res.BetaMultiple*want || (res.BetaMultiple != 2 && res.BetaMultiple != 20) {
				t.Errorf("%s: refit β = %.17g with multiple %g of β_min %.17g", task.ID, res.Beta, res.BetaMultiple, want)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no learned task checked")
	}
	for _, r := range s.Rows {
		if r.Method == "native" {
			continue
		}
		if len(r.BetaMultiple) != c.Protocol.Splits || len(r.MinBeta) != c.Protocol.Splits {
			t.Errorf("row %s: beta_multiple %v, min_beta %v, want one per split", r.Label, r.BetaMultiple, r.MinBeta)
		}
	}
}

// TestPlantedGNMDS runs a small planted data set through the harness:
// GNMDS (the identity kernel) with the low-rank solver on a relative grid,
// comparisons held out. The native row on the true points scores about 1 −
// flip; GNMDS, learning from the comparisons alone, must beat chance
// clearly, and every fit must be certified.
func TestPlantedGNMDS(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "planted.yaml")
	body := `name: planted
seed: 2
dataset: {type: planted, planted: {n: 60, dim: 3, triplets: 3000, flip: 0.1}}
kernels:
  - {name: points, source: points, type: linear}
  - {name: identity, type: identity}
protocol: {holdout: comparisons, splits: 1, test_fraction: 0.2, inner_folds: 2}
beta_grid: {relative_to_min: [1.5, 3, 10]}
solver: {method: lowrank}
rows:
  - {method: native, kernel: points}
  - {method: k1, kernel: identity, mode: full}
`
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, s := runConfigFile(t, cfg)
	native, gnmds := s.Rows[0], s.Rows[1]
	if a := native.Accuracy[0]; a < 0.85 || a > 0.95 {
		t.Errorf("native accuracy on the true points %.3f, want about 0.9 (10%% flipped)", a)
	}
	if a := gnmds.Accuracy[0]; a < 0.7 {
		t.Errorf("GNMDS accuracy %.3f, want well above chance", a)
	}
	if gnmds.UnconvergedFits == nil || *gnmds.UnconvergedFits != 0 {
		t.Errorf("GNMDS: %v fits not certified (max gap %v)", gnmds.UnconvergedFits, gnmds.MaxGap)
	}
	t.Logf("native %.3f, GNMDS %.3f (β = %v, %v·β_min)", native.Accuracy[0], gnmds.Accuracy[0], gnmds.Beta, gnmds.BetaMultiple)
}

// TestRankRow: a row with rank: d learns embeddings of at most d
// dimensions, gets its own task inputs and label, and bad ranks are
// reported with their YAML paths.
func TestRankRow(t *testing.T) {
	dir := t.TempDir()
	body := `name: ranked
seed: 2
dataset: {type: planted, planted: {n: 40, dim: 3, triplets: 1500, flip: 0.1}}
kernels:
  - {name: identity, type: identity}
protocol: {holdout: comparisons, splits: 1, test_fraction: 0.2, inner_folds: 2}
beta_grid: {relative_to_min: [1.5, 3]}
rows:
  - {method: k1, kernel: identity, mode: full}
  - {method: k1, kernel: identity, mode: full, rank: 2, table_row: identity rank 2}
`
	cfg := filepath.Join(dir, "ranked.yaml")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, s := runConfigFile(t, cfg)
	if c.Rows[1].Label != "identity K1 full rank 2" {
		t.Errorf("label %q", c.Rows[1].Label)
	}
	if c.rowInputs(c.Rows[0]) == c.rowInputs(c.Rows[1]) {
		t.Error("a rank bound must change the row's task inputs")
	}
	if d := s.Rows[1].Accuracy[0]; !(d > 0.6) {
		t.Errorf("rank-2 row accuracy %.3f", d)
	}
	for _, m := range s.Rows[1].Models {
		model := readRunModel(t, c.Output, m)
		if model.Dim() > 2 {
			t.Errorf("%s: embedding of %d dimensions, want at most 2", m, model.Dim())
		}
	}
	for _, tc := range []struct{ row, want string }{
		{"{method: k1, kernel: identity, mode: full, rank: -1}", "rows[0].rank: must be >= 1"},
		{"{method: k1, kernel: identity, mode: diag, rank: 2}", "rows[0].rank: bounds a full W: it needs mode full"},
		{"{method: native, kernel: identity, rank: 2}", "rows[0].rank: must be absent for a native row"},
	} {
		bad := strings.Replace(body, "  - {method: k1, kernel: identity, mode: full}\n  - {method: k1, kernel: identity, mode: full, rank: 2, table_row: identity rank 2}\n", "  - "+tc.row+"\n", 1)
		p := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.row, err, tc.want)
		}
	}
}

// readRunModel reads the model file rel (as summary.json lists it) of the
// run directory dir.
func readRunModel(t *testing.T, dir, rel string) *mkpoe.Model {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mkpoe.ReadJSON(bytes.NewReader(b), rel)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
