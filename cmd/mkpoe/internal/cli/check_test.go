package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestBadConfigs(t *testing.T) {
	for _, test := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "name: x\nbogus: 1\n", []string{"line 2, column 1: bogus: is not a key of the config (its keys: beta_grid, "}},
		{"misspelt keys, all reported", "name: x\nbeta_gird: [1]\nprotocol: {test_fraction: 20}\nrows:\n  - {method: k1, kernal: a}\n", []string{
			"line 2, column 1: beta_gird: is not a key of the config (did you mean beta_grid?)",
			"rows[0].kernal: is not a key of rows[0] (did you mean kernel?)",
			"protocol.test_fraction: must be in (0,1), got 20"}},
		{"not a config", "- a\n- b\n", []string{"the file is a list, not an experiment config"}},
		{"a huge file", "name: x\n" + strings.Repeat("# padding\n", 500000), []string{"a config file must be at most 4 MB, got 4.8 MB"}},
		{"too large", "name: x\nprotocol: {splits: 100000, inner_folds: 1000}\nbeta_grid: [" + strings.Repeat("1,", 200) + "1]\n" +
			"rows:\n" + strings.Repeat("  - {method: native, kernel: a}\n", 2000), []string{
			"protocol.splits: must be at most 1000, got 100000", "protocol.inner_folds: must be at most 100, got 1000",
			"beta_grid: must list at most 100 values, got 201", "rows: must list at most 1000 rows, got 2000"}},
		{"wrong type", "name: x\nseed: many\n", []string{"line 2, column 7: seed: must be a whole number, got \"many\""}},
		{"given test set, file missing", "name: x\nprotocol: {outer: given, test_comparisons: published/test.tsv, splits: 2}\n", []string{
			"protocol.test_comparisons: does not exist (paths are relative to the config file's folder, ", "/published/test.tsv",
			"protocol.splits: must be 1 (or absent) with outer: given: the given test set is the one outer split, got 2"}},
		{"given test set, no file", "name: x\nprotocol: {outer: given, test_fraction: 0.1}\n", []string{
			`protocol.test_comparisons: must name the file of test comparisons with outer: given, got ""`,
			"protocol.test_fraction: must be absent with outer: given"}},
		{"many problems at once", `
dataset: {type: csv}
kernels:
  - {name: a, source: s, type: gaussian}
  - {name: a, source: s, type: linear, normalize: sideways}
protocol: {splits: -1, test_fraction: 1.5, inner_folds: 1}
beta_grid: [10, 1, -3]
solver: {method: newton}
rows:
  - {method: k9, kernel: a}
  - {method: k4, kernel: a, mode: full}
  - {method: k1, group: nope, mode: sparse}
`, []string{
			`dataset.type: must be synthetic, planted, aset400, aloi10 or generic, got "csv"`,
			"kernels[0].type: must be one of cf, chi2, identity, linear, noise, ppk, rbf, tfidf or precomputed",
			`kernels[1].name: must be unique, got "a" again`,
			`kernels[1].normalize: must be none, diag, trace or center, got "sideways"`,
			"protocol.splits: must be >= 1, got -1",
			"protocol.test_fraction: must be in (0,1), got 1.5",
			"protocol.inner_folds: must be >= 2, got 1",
			"beta_grid[1]: must be strictly increasing, got 1",
			"beta_grid[2]: must be > 0 and finite, got -3",
			`solver.method: must be one of accelerated, lowrank, alm, auto, subgradient, got "newton"`,
			`rows[0].method: must be native, k1 or k4, got "k9"`,
			"rows[1]: a k4 row needs a group and no kernel",
			`rows[2].group: must name a group, got "nope"`,
			`rows[2].mode: must be full or diag, got "sparse"`,
		}},
	} {
		t.Run(test.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.yaml")
			os.WriteFile(p, []byte(test.yaml), 0o644)
			code, _, errs := run("check", p)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", code, errs)
			}
			for _, w := range test.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}

// TestShippedConfigsCheck runs "mkpoe check" on every config in configs/.
// Configs whose data are absent (data/, not fetched) are skipped.
// dataSetRef matches a config's reference to a fetched data set, ../data/NAME.
var dataSetRef = regexp.MustCompile(`\.\./data/([A-Za-z0-9_.-]+)`)

func TestShippedConfigsCheck(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(repoRoot, "configs", "*.yaml"))
	if len(paths) == 0 {
		t.Fatal("no configs found")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b := readFile(t, p)
			// Each data set the config reads must be fetched (a user may
			// have fetched some sets and not others).
			for _, m := range dataSetRef.FindAllSubmatch(b, -1) {
				if _, err := os.Stat(filepath.Join(repoRoot, "data", string(m[1]))); err != nil {
					t.Skipf("data/%s absent: run scripts/fetch_aset400.sh and scripts/fetch_aloi.sh (or with --mirror ../shared/data)", m[1])
				}
			}
			code, out, errs := run("check", p)
			if code != 0 {
				t.Errorf("check %s: exit %d\n%s%s", p, code, out, errs)
			}
		})
	}
}

// TestOneValidationForRunCheckSlurm: what used to fail only at run time is
// refused up front, with the same message, by run, check and slurm, and
// run creates no run directory for it.
func TestOneValidationForRunCheckSlurm(t *testing.T) {
	for _, test := range []struct {
		name, from, to, want string
	}{
		{"more inner folds than training items", "inner_folds: 2,", "inner_folds: 16,",
			"protocol.inner_folds: must be at most the 15 training items of a split (20 items, test_fraction 0.25), got 16"},
		{"a source the data set lacks", "{name: good, source: good, type: linear}", "{name: good, source: goood, type: linear}",
			`kernels[0].source: must be one of [good junk] for a synthetic data set, got "goood"`},
		{"negative bandwidth", "{name: good, source: good, type: linear}", "{name: good, source: good, type: rbf, params: {bandwidth: -1}}",
			`kernels[0].params: parameter "bandwidth" of kernel type "rbf" must be ≥ 0, got -1`},
		{"normalize on a precomputed kernel", "{name: good, source: good, type: linear}", "{name: good, source: good, type: precomputed, normalize: diag}",
			`kernels[0].normalize: must be none for a precomputed kernel (the file is used as it is: normalise it before), got "diag"`},
	} {
		t.Run(test.name, func(t *testing.T) {
			if !strings.Contains(tinyConfig, test.from) {
				t.Fatalf("tinyConfig lacks %q", test.from)
			}
			dir := t.TempDir()
			cfg := writeFile(t, dir, "c.yaml", strings.Replace(tinyConfig, test.from, test.to, 1))
			out := filepath.Join(dir, "run")
			for _, args := range [][]string{{"check", cfg}, {"run", cfg, "--out", out}, {"slurm", cfg, "--out", out}} {
				code, _, stderr := run(args...)
				if code != ExitUsage || !strings.Contains(stderr, test.want) {
					t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", args[0], code, stderr, ExitUsage, test.want)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused config left a run directory (%v)", err)
			}
		})
	}
}

// TestRunDirBelongsToOneExperiment: run and slurm refuse a run directory of
// another experiment without touching it (its summary survives), --force
// takes it over, and the same experiment, edited, may run there again.
func TestRunDirBelongsToOneExperiment(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	tiny := writeFile(t, dir, "tiny.yaml", tinyConfig)
	if code, _, stderr := run("run", tiny, "--out", out, "--no-report"); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	summary := readFile(t, filepath.Join(out, "summary.json"))
	other := writeFile(t, dir, "other.yaml", strings.Replace(tinyConfig, "name: tiny", "name: other", 1))
	want := `run directory ` + out + ` belongs to experiment "tiny", not "other": use another --out, or --force to take it over`
	for _, args := range [][]string{{"run", other, "--out", out}, {"slurm", other, "--out", out}} {
		code, _, stderr := run(args...)
		if code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", args[0], code, stderr, ExitUsage, want)
		}
	}
	if got := readFile(t, filepath.Join(out, "summary.json")); !bytes.Equal(got, summary) {
		t.Error("a refused run changed the other experiment's summary.json")
	}
	edited := writeFile(t, dir, "edited.yaml", strings.Replace(tinyConfig, "name: tiny", "name: tiny\ndescription: edited", 1))
	if code, _, stderr := run("run", edited, "--out", out, "--no-report"); code != ExitOK {
		t.Errorf("the same experiment, edited: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run("run", other, "--out", out, "--no-report", "--force"); code != ExitOK {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
	if !bytes.Contains(readFile(t, filepath.Join(out, "config.resolved.yaml")), []byte("name: other")) {
		t.Error("--force did not take the directory over")
	}
}

// TestCommandHelp: every command's -h starts with its synopsis ("Usage:
// mkpoe NAME …", CONFIG or RUN_DIR for those that take one) and exits 0.
func TestCommandHelp(t *testing.T) {
	for name, cmd := range commands {
		if cmd.run == nil {
			continue
		}
		code, stdout, stderr := run(name, "-h")
		help := stdout + stderr
		if code != 0 || !strings.HasPrefix(help, "Usage:") || !strings.Contains(help, "mkpoe "+name+" ") {
			t.Errorf("%s -h: exit %d, help starts %q", name, code, help[:min(len(help), 80)])
		}
		if cmd.synopsis == "" || strings.Count(help, "Usage") != 1 {
			t.Errorf("%s -h: synopsis %q, %d usage lines", name, cmd.synopsis, strings.Count(help, "Usage"))
		}
	}
}

// TestMissingDataNamesKeyRuleAndFix: a copied config whose data folder is
// not beside it names the key, the rule (relative to the config file's
// folder) and the fetch script, exit 2.
func TestMissingDataNamesKeyRuleAndFix(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "copied.yaml", string(readFile(t, filepath.Join(repoRoot, "configs", "aset400_short.yaml"))))
	code, _, errs := run("check", cfg)
	for _, want := range []string{
		"dataset.dir: " + filepath.Join(filepath.Dir(dir), "data", "aset400") + " does not exist (dataset paths are relative to the config file's folder, " + dir + ")",
		"fetch the data with scripts/fetch_aset400.sh [--mirror DIR]",
		"dataset.lastfm_dir: ",
	} {
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, errs)
		}
	}
}
