package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestSynthExampleIsReproducible: examples/triplets, which
// configs/gnmds_triplets.yaml reads, is exactly what its SOURCE.txt command
// writes.
func TestSynthExampleIsReproducible(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run("synth", "--out", dir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	example := filepath.Join(repoRoot, "examples", "triplets")
	entries, err := os.ReadDir(example)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 8 {
		t.Errorf("examples/triplets holds %d files, synth writes 8", len(entries))
	}
	for _, e := range entries {
		if !bytes.Equal(readFile(t, filepath.Join(example, e.Name())), readFile(t, filepath.Join(dir, e.Name()))) {
			t.Errorf("examples/triplets/%s differs from a fresh `mkpoe synth --out DIR`", e.Name())
		}
	}
}

// TestGNMDSComparisonHoldoutMatchesHandSplit runs GNMDS (an identity
// kernel, Sec. 3.3) under comparison holdout on the shipped triplets, then
// redoes split 0 by hand: the held-out comparisons drawn with
// cv.OuterSplit over the comparison indices, `mkpoe fit --identity` on the
// rest at the β the run chose, `mkpoe eval` on the held-out ones. The
// accuracies must be equal.
func TestGNMDSComparisonHoldoutMatchesHandSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits GNMDS on 90 items (about 10 s); skipped with -short")
	}
	dir := t.TempDir()
	cfgText := string(readFile(t, filepath.Join(repoRoot, "configs", "gnmds_triplets.yaml")))
	cfgText = strings.ReplaceAll(cfgText, "../examples/", filepath.Join(absPath(repoRoot), "examples")+"/")
	cfgText = strings.Replace(cfgText, "splits: 3, test_fraction: 0.2, inner_folds: 3", "splits: 1, test_fraction: 0.2, inner_folds: 2", 1)
	cfgText = strings.Replace(cfgText, "beta_grid: [1, 10, 100, 1000]", "beta_grid: [10, 100]", 1)
	i := strings.Index(cfgText, "  - {label: clean native")
	cfgText = cfgText[:i] // the GNMDS row alone
	cfg := writeFile(t, dir, "gnmds.yaml", cfgText)
	out := filepath.Join(dir, "run")
	if code, _, stderr := run("run", cfg, "--out", out, "--no-report"); code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	sum, err := results.DecodeSummary(readFile(t, filepath.Join(out, "summary.json")), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	row := sum.Rows[0]
	if row.TestComparisons[0] != 600 || row.TrainComparisons[0] != 2400 {
		t.Errorf("split 0: %d training and %d test comparisons, want 2400 and 600", row.TrainComparisons[0], row.TestComparisons[0])
	}
	// By hand.
	c, err := experiments.LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := data.ReadComparisonsFile(filepath.Join(repoRoot, "examples", "triplets", "triplets.tsv"), data.ComparisonOptions{})
	if err != nil {
		t.Fatal(err)
	}
	trainIdx, heldIdx := cv.OuterSplit(len(cf.Comparisons), c.Protocol.TestFraction, c.Seed, 0)
	pick := func(name string, idx []int) string {
		var b bytes.Buffer
		cs := make([]data.Comparison, len(idx))
		for r, i := range idx {
			cs[r] = cf.Comparisons[i]
		}
		if err := data.WriteComparisons(&b, cs, cf.Format); err != nil {
			t.Fatal(err)
		}
		return writeFile(t, dir, name, b.String())
	}
	trainFile, heldFile := pick("train.tsv", trainIdx), pick("held.tsv", heldIdx)
	model := filepath.Join(dir, "gnmds.json")
	beta := fmt.Sprint(row.Beta[0])
	if code, _, stderr := run("fit", "--identity", "90", "--comparisons", trainFile, "--beta", beta, "--mode", "full", "--out", model); code != ExitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run("eval", "--model", model, "--comparisons", heldFile)
	if code != ExitOK {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	if want := fmt.Sprintf("accuracy %.6f\n", row.Accuracy[0]) + backendLine; stdout != want {
		t.Errorf("by hand %q, the run's split 0 %q (β = %s)", stdout, want, beta)
	}
	if row.Accuracy[0] < 0.8 {
		t.Errorf("GNMDS accuracy %v on held-out triplets (10%% reversed), want ≥ 0.8", row.Accuracy[0])
	}
}

// TestGivenExampleChecks: examples/given/given.yaml, a given test set of
// 300 triplets, passes `mkpoe check` and reports that split.
func TestGivenExampleChecks(t *testing.T) {
	code, out, errs := run("check", filepath.Join(repoRoot, "examples", "given", "given.yaml"))
	if code != 0 {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	for _, w := range []string{"(split: 2700 train / 300 test comparisons)", "given test set: 300 comparisons from ", "300 of the data set's comparisons removed from training (300 the same as a test comparison, 0 its reverse), 2700 train"} {
		if !strings.Contains(out, w) {
			t.Errorf("check output lacks %q:\n%s", w, out)
		}
	}
}
