package experiments

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnscorableFolds: a data set whose comparisons are all anchored at one
// item leaves folds without a scorable held-out comparison. The run must
// not die on NaN (it once did, writing JSON): accuracies with nothing to
// score are NaN in memory and null in the files.
func TestUnscorableFolds(t *testing.T) {
	dir := t.TempDir()
	var items, feats, comps strings.Builder
	items.WriteString("id\tname\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&items, "i%d\titem %d\n", i, i)
		fmt.Fprintf(&feats, "%d %d\n", i%3, i/3)
	}
	for j := 1; j < 12; j++ {
		for k := j + 1; k < 12; k++ {
			fmt.Fprintf(&comps, "0 %d %d\n", j, k) // every comparison anchored at item 0
		}
	}
	writeFile(t, dir, "items.tsv", items.String())
	writeFile(t, dir, "x.tsv", feats.String())
	writeFile(t, dir, "comps.tsv", comps.String())
	cfg := writeFile(t, dir, "c.yaml", `
name: unscorable
seed: 1
dataset: {type: generic, items: items.tsv, comparisons: comps.tsv, features: {x: x.tsv}}
kernels: [{name: x, source: x, type: linear}]
protocol: {splits: 3, test_fraction: 0.25, inner_folds: 2}
beta_grid: [1, 10]
rows:
  - {method: native, kernel: x}
  - {method: k1, kernel: x, mode: diag}
`)
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Output = filepath.Join(dir, "run")
	s, err := Run(context.Background(), c, RunOptions{Workers: 2})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	// Item 0, the only anchor, is a training item in every split: no test
	// comparison anywhere, so every accuracy is NaN, written as null.
	for _, r := range s.Rows {
		if !math.IsNaN(r.Mean) {
			t.Errorf("%s: mean %v, want NaN", r.Label, r.Mean)
		}
	}
	md := SummaryMarkdown(s)
	for _, col := range []string{"native", "k1 diag"} {
		if w := "- column " + col + ": every row's accuracy is NaN on every split"; !strings.Contains(md, w) {
			t.Errorf("the summary does not warn %q:\n%s", w, md)
		}
	}
	if b := readFile(t, filepath.Join(c.Output, "summary.json")); !strings.Contains(string(b), `"mean": null`) {
		t.Error("summary.json does not store the NaN mean as null")
	}
	// The native tasks finished: a split without item 0 held out has
	// nothing to score and records null, not a crash.
	nulls := 0
	for s := 0; s < 3; s++ {
		r, reason := ReadTask(c, Plan(c)[s])
		if r == nil {
			t.Fatalf("native task of split %d: %s", s, reason)
		}
		if math.IsNaN(r.TestAccuracy) {
			nulls++
			if b, _ := os.ReadFile(filepath.Join(c.Output, "tasks", r.ID+".json")); !strings.Contains(string(b), `"test_accuracy": null`) {
				t.Errorf("%s: NaN accuracy not stored as null", r.ID)
			}
		}
	}
	if nulls == 0 {
		t.Error("no split without a scorable test comparison: the test no longer exercises NaN")
	}
}

// TestZeroModelsCounted: at β = 10⁻⁶ every inner fold's fit is W = 0, so
// its validation accuracy is 0 by the tie rule; the summary counts those
// folds per split and β (val_zero_folds) so that the report can say why.
func TestZeroModelsCounted(t *testing.T) {
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	c.BetaGrid = []float64{1e-6, 10}
	c.Rows = c.Rows[2:3] // the K1 diagonal row
	s, err := Run(context.Background(), c, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Rows[0]
	if len(r.ValZeroFolds) != c.Protocol.Splits {
		t.Fatalf("val_zero_folds %v, want one list per split", r.ValZeroFolds)
	}
	for sp, z := range r.ValZeroFolds {
		if z[0] != c.Protocol.InnerFolds || z[1] != 0 || r.ValCurve[sp][0] != 0 {
			t.Errorf("split %d: zero folds %v and curve %v, want all folds W = 0 (accuracy 0) at β = 1e-6 and none at β = 10", sp, z, r.ValCurve[sp])
		}
	}
}
