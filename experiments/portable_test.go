package experiments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// repoDir is this repository's root, seen from the package's folder.
const repoDir = ".."

// newClone makes a folder standing for a clone of the repository at
// another place: a go.mod at its root, the given files copied from this
// repository, and data/ a symbolic link to this repository's data folder
// (as the fetch scripts' --mirror leave it). It returns the clone's root.
func newClone(t *testing.T, files ...string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "clone")
	for _, f := range append([]string{"go.mod"}, files...) {
		b := readFile(t, filepath.Join(repoDir, f))
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Dir(filepath.Join(root, f)), filepath.Base(f), string(b))
	}
	data, err := filepath.Abs(filepath.Join(repoDir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, filepath.Join(root, "data")); err != nil {
		t.Fatal(err)
	}
	return root
}

// loadOrSkip loads a config, skipping the test when the data it names
// are not on this machine (scripts/fetch_*.sh place them).
func loadOrSkip(t *testing.T, path string) *Config {
	t.Helper()
	c, err := LoadConfig(path)
	if err != nil && strings.Contains(err.Error(), "no such file") {
		t.Skipf("data not fetched: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHashSameInTwoClones: a shipped config loaded from two clones at
// different places has one config hash and one plan (task IDs and input
// digests), which its config.resolved.yaml, written to a run directory
// outside both clones, loads back to; the paths' old absolute form gave
// each clone its own.
func TestHashSameInTwoClones(t *testing.T) {
	examples, _ := filepath.Glob(filepath.Join(repoDir, "examples", "triplets", "*.tsv"))
	for _, tc := range []struct {
		config string
		files  []string
	}{
		{"gnmds_triplets", examples},
		{"aset400_short", nil},
		{"aloi10_taxonomy_experiment", nil},
	} {
		t.Run(tc.config, func(t *testing.T) {
			cfg := filepath.Join("configs", tc.config+".yaml")
			var files []string
			for _, f := range tc.files {
				files = append(files, strings.TrimPrefix(filepath.ToSlash(f), "../"))
			}
			a := loadOrSkip(t, filepath.Join(newClone(t, append(files, cfg)...), cfg))
			b := loadOrSkip(t, filepath.Join(newClone(t, append(files, cfg)...), cfg))
			if a.Dataset.Dir == b.Dataset.Dir && a.Dataset.Items == b.Dataset.Items {
				t.Fatalf("the clones share their data paths (%s %s): the test proves nothing", a.Dataset.Dir, a.Dataset.Items)
			}
			if a.Hash() != b.Hash() {
				t.Errorf("hash %s in one clone, %s in the other", a.Hash(), b.Hash())
			}
			if a.legacyHash() == b.legacyHash() {
				t.Errorf("the old hash %s is the same in both clones: the test does not exercise the paths", a.legacyHash())
			}
			if pa, pb := Plan(a), Plan(b); !slices.Equal(pa, pb) {
				t.Errorf("plans differ: %v and %v", pa[:2], pb[:2])
			}
			out := filepath.Join(t.TempDir(), "run") // outside both clones
			a.Output = out
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := writeRunFiles(a, 1); err != nil {
				t.Fatal(err)
			}
			back := loadOrSkip(t, filepath.Join(out, "config.resolved.yaml"))
			if back.Hash() != b.Hash() || !slices.Equal(Plan(back), Plan(b)) {
				t.Errorf("config.resolved.yaml loads back to hash %s, want %s (or another plan)", back.Hash(), b.Hash())
			}
		})
	}
}

// TestPortablePath: paths inside a repository are relative to its root
// (a go.mod or a .git, file or folder, marks it), whatever links lead
// there; others stay absolute.
func TestPortablePath(t *testing.T) {
	tmp := t.TempDir()
	mod, git, none := filepath.Join(tmp, "mod"), filepath.Join(tmp, "git"), filepath.Join(tmp, "none")
	for _, d := range []string{filepath.Join(mod, "data", "x"), filepath.Join(git, "sub"), none} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, mod, "go.mod", "module m\n")
	writeFile(t, git, ".git", "gitdir: elsewhere\n") // a worktree's .git is a file
	for _, tc := range []struct{ in, want string }{
		{filepath.Join(mod, "data", "x"), "data/x"},
		{filepath.Join(mod, "data", "x", "f.tsv"), "data/x/f.tsv"},
		{filepath.Join(mod, "configs", "..", "data", "x"), "data/x"},
		{filepath.Join(git, "sub", "t.yaml"), "sub/t.yaml"},
		{filepath.Join(none, "f.tsv"), filepath.Join(none, "f.tsv")},
		{"rel/f.tsv", "rel/f.tsv"},
		{"", ""},
	} {
		if got := portablePath(tc.in); got != tc.want {
			t.Errorf("portablePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// portableConfig is a small generic experiment on files of the
// repository's examples/triplets, fast enough to run twice.
const portableConfig = `name: portable
seed: 3
dataset:
  type: generic
  items: ../examples/triplets/items.tsv
  comparisons: ../examples/triplets/triplets.tsv
  features: {clean: ../examples/triplets/clean.tsv}
kernels:
  - {name: clean, source: clean, type: rbf}
protocol: {holdout: comparisons, splits: 1, inner_folds: 2, max_train_comparisons: 300, max_test_comparisons: 200}
beta_grid: [10, 100]
rows:
  - {method: native, kernel: clean}
  - {method: k1, kernel: clean, mode: diag}
`

// runInClone runs portableConfig in a new clone and returns the clone's
// config and run directory.
func runInClone(t *testing.T) (*Config, string) {
	t.Helper()
	root := newClone(t, "examples/triplets/items.tsv", "examples/triplets/triplets.tsv", "examples/triplets/clean.tsv")
	if err := os.MkdirAll(filepath.Join(root, "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(writeFile(t, filepath.Join(root, "configs"), "portable.yaml", portableConfig))
	if err != nil {
		t.Fatal(err)
	}
	c.Output = filepath.Join(root, "results", c.Name)
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	return c, c.Output
}

// TestCompareRunsOfTwoClones: the same config run in two clones at
// different places writes the same summary (config hash and model paths
// included) and the same task files, and compare prints no warning.
func TestCompareRunsOfTwoClones(t *testing.T) {
	ca, a := runInClone(t)
	cb, b := runInClone(t)
	if !strings.HasPrefix(a, filepath.Dir(filepath.Dir(filepath.Dir(ca.Dataset.Items)))) || ca.Dataset.Items == cb.Dataset.Items {
		t.Fatalf("runs in %s and %s of data %s and %s: not two clones", a, b, ca.Dataset.Items, cb.Dataset.Items)
	}
	if sa, sb := string(readFile(t, filepath.Join(a, "summary.json"))), string(readFile(t, filepath.Join(b, "summary.json"))); sa != sb {
		t.Errorf("the summaries differ:\n%s\n%s", sa, sb)
	}
	ta, _ := filepath.Glob(filepath.Join(a, "tasks", "*.json"))
	tb, _ := filepath.Glob(filepath.Join(b, "tasks", "*.json"))
	if len(ta) != len(Plan(ca)) || len(ta) != len(tb) {
		t.Fatalf("task files: %d and %d, want %d each", len(ta), len(tb), len(Plan(ca)))
	}
	for i := range ta {
		if filepath.Base(ta[i]) != filepath.Base(tb[i]) {
			t.Errorf("task files %s and %s", filepath.Base(ta[i]), filepath.Base(tb[i]))
		}
	}
	cmp, err := LoadComparison([]string{a, b}, []string{"here", "there"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Warnings) > 0 {
		t.Errorf("compare warns: %q", cmp.Warnings)
	}
}

// TestResumeLegacyRunDir: a run directory whose task files carry the IDs
// and digests of an older mkpoe (one digest per row, with the β grid and
// this clone's absolute data paths) is resumed: every task whose ID moved
// is renamed and reused, none recomputed, and the summary is the same;
// a task file that matches no task is counted. For a config with data
// files (paths) and a synthetic one (no paths: only the learned rows' IDs
// moved, with the grid).
func TestResumeLegacyRunDir(t *testing.T) {
	for _, tc := range []struct {
		name          string
		run           func(t *testing.T) (*Config, string)
		tasks, change int
	}{
		{"generic files", runInClone, 4, 4},
		{"synthetic", func(t *testing.T) (*Config, string) {
			c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
			if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
				t.Fatal(err)
			}
			return c, c.Output
		}, 22, 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := tc.run(t)
			want := readFile(t, filepath.Join(dir, "summary.json"))
			if n := toLegacy(t, c, dir); n != tc.change {
				t.Fatalf("%d task IDs moved, want %d", n, tc.change)
			}
			writeFile(t, filepath.Join(dir, "tasks"), "native-0123abcd-s00.json", "{}")
			var log strings.Builder
			if _, err := Run(context.Background(), c, RunOptions{Workers: 2, Log: &log}); err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{fmt.Sprintf("renamed %d task files of an older mkpoe", tc.change), fmt.Sprintf("reusing %d of %d tasks", tc.tasks, tc.tasks),
				"1 task files in " + filepath.Join(dir, "tasks") + " are of no task of this config, and are kept but not used"} {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, log.String())
				}
			}
			if got := readFile(t, filepath.Join(dir, "summary.json")); string(got) != string(want) {
				t.Errorf("summary after the resume:\n%s\nwant\n%s", got, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "history")); err == nil {
				t.Error("the resume moved the summary to history/: it is of the same config")
			}
		})
	}
}

// toLegacy rewrites the task files of c's run in dir as an older mkpoe
// wrote them (IDs and digests of legacyRowInputs, its config hash, model
// files named after those IDs) and returns how many IDs moved.
func toLegacy(t *testing.T, c *Config, dir string) int {
	t.Helper()
	var rs []*results.TaskResult
	for _, task := range Plan(c) {
		r, why := newStore(c).read(task)
		if r == nil {
			t.Fatalf("task %s: %s", task.ID, why)
		}
		rs = append(rs, r)
	}
	moved := 0
	for i, task := range Plan(c) {
		old := c.legacyRowInputs(c.Rows[task.Row])
		oldID := taskID(task.Kind, rowPrefix(c.Rows[task.Row], old), task.Split, task.Fold)
		if oldID == task.ID {
			continue
		}
		r := rs[i]
		r.ID, r.Inputs, r.ConfigHash = oldID, old, c.legacyHash()
		if r.Model != "" {
			r.Model = filepath.Join("models", oldID+".json")
			for _, ext := range []string{".json", ".test.tsv"} {
				if err := os.Rename(filepath.Join(dir, "models", task.ID+ext), filepath.Join(dir, "models", oldID+ext)); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
			}
		}
		if err := results.WriteFile(taskPath(dir, oldID), r); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(taskPath(dir, task.ID)); err != nil {
			t.Fatal(err)
		}
		moved++
	}
	return moved
}
