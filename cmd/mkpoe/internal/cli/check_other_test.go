package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOtherFiles: "mkpoe check" of a file of mkpoe's that is not a
// config says in two lines what it is, which command reads it, and what
// that command's reader finds in it (exit 0), or why it does not read
// (exit 2); run, plan and slurm refuse it in one line.
func TestCheckOtherFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "tiny.yaml", tinyConfig)
	runDir := filepath.Join(dir, "run")
	if code, _, errs := run("run", cfg, "--out", runDir, "--no-report", "--workers", "2"); code != ExitOK {
		t.Fatalf("run: %d %s", code, errs)
	}
	tasks, _ := filepath.Glob(filepath.Join(runDir, "tasks", "refit-*.json"))
	models, _ := filepath.Glob(filepath.Join(runDir, "models", "*.json"))
	if len(tasks) == 0 || len(models) == 0 {
		t.Fatalf("the run wrote %d refit task files and %d models", len(tasks), len(models))
	}
	fixture := filepath.Join(repoRoot, "pkg", "report", "testdata", "run")
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"summary", filepath.Join(runDir, "summary.json"), []string{"is a run's summary (summary.json), not an experiment config: mkpoe report, compare and status read it through its run directory (mkpoe report " + runDir + ")",
			"it reads back: experiment tiny, 5 rows, 2 splits, config hash "}},
		{"task file", tasks[0], []string{"is the result of one task of a run (tasks/ID.json)", "mkpoe status " + runDir, "it reads back: task refit-", "(refit), status ok"}},
		{"items", filepath.Join(runDir, "items.json"), []string{"is a run's items and splits (items.json)", "it reads back: 20 items, 2 splits"}},
		{"model", models[0], []string{"is a learned model (mkpoe-model/1)", "mkpoe eval, embed and query read it", "it reads back: ", "W (", "training items, β = "}},
		{"provenance", filepath.Join(runDir, "provenance.json"), []string{"is a run's provenance record (provenance.json)", "it reads back: experiment tiny, config hash "}},
		{"timings", filepath.Join(runDir, "timings.json"), []string{"is a run's task times (timings.json: task → seconds)", "it reads back: 22 tasks, "}},
		{"env", filepath.Join(runDir, "env.json"), []string{"is a run's environment record (env.json)"}},
		{"items without a format tag", filepath.Join(fixture, "items.json"), []string{"it reads back: 8 items, 2 splits"}},
		{"taxonomy file", filepath.Join(repoRoot, "configs", "taxonomies", "aloi10.yaml"), []string{"is a taxonomy (nested lists of class labels), not an experiment config: a config names it as dataset.taxonomy: FILE",
			"it reads back: 10 classes: [[1,[2,[4,7]],[3,[5,6,10]]],8,9]"}},
		{"bare taxonomy", writeFile(t, dir, "tax.yaml", "[[1, 2], [3, 4]]\n"), []string{"it reads back: 4 classes: [[1,2],[3,4]]"}},
	} {
		code, out, errs := run("check", tc.path)
		if code != ExitOK || strings.Count(out, "\n") != 2 {
			t.Errorf("%s: exit %d, want 0 and two lines; stdout %q, stderr %q", tc.name, code, out, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", tc.name, w, out)
			}
		}
	}
	// Broken files of a known kind: their reader's error, exit 2.
	summary, err := os.ReadFile(filepath.Join(runDir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"summary with a stray field", strings.Replace(string(summary), `"name"`, `"bogus": 1, "name"`, 1), `is a run's summary (summary.json), not an experiment config, and it does not read as one: parsing bad.json: json: unknown field "bogus"`},
		{"taxonomy with a label twice", "taxonomy: [[1, 2], [2, 3]]\n", "is a taxonomy (nested lists of class labels), not an experiment config, and it does not read as one: data: taxonomy root[1][0]: every class label must appear once, got 2 again"},
		{"a model of another version", `{"format": "mkpoe-model/1", "mode": "full"}`, "is a learned model (mkpoe-model/1), not an experiment config, and it does not read as one: mkpoe: reading model bad.json"},
	} {
		p := writeFile(t, dir, "bad.json", tc.text)
		code, _, errs := run("check", p)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, errs, ExitUsage, tc.want)
		}
	}
	// The commands that need a config: one line, exit 2.
	for _, cmd := range []string{"run", "plan", "slurm"} {
		p := filepath.Join(runDir, "summary.json")
		code, _, errs := run(cmd, p, "--out", filepath.Join(dir, "other"))
		want := "the file is a run's summary (summary.json), not an experiment config: mkpoe report, compare and status read it"
		if code != ExitUsage || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s summary.json: exit %d, stderr %q; want exit %d and the one line %q", cmd, code, errs, ExitUsage, want)
		}
	}
}
