package experiments

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
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
	c, s := runConfigFile(t, cfg)
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
		r, reason := newStore(c).read(Plan(c)[s])
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
	c.BetaGrid.Values = []float64{1e-6, 10}
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

// TestTiesCounted: in the native space of an identity kernel every pair of
// distinct items is at the same distance, so every held-out comparison
// (i,j,k,l) with i≠j and k≠l ties: accuracy 0 (ties are errors), 1/2 with
// ties counted as one half, tie rate 1. A feature kernel's tallies add up
// to its accuracy.
func TestTiesCounted(t *testing.T) {
	s := runOnTriplets(t, "ties", `
kernels:
  - {name: identity, type: identity}
  - {name: clean, source: clean, type: linear}
protocol: {holdout: comparisons, splits: 2, test_fraction: 0.1, inner_folds: 2}
rows:
  - {method: native, kernel: identity}
  - {method: native, kernel: clean}
`)
	id, clean := s.Rows[0], s.Rows[1]
	for sp, tl := range id.TestTallies {
		if tl.Right != 0 || tl.Wrong != 0 || tl.Ties != id.TestComparisons[sp] || tl.Ties != 300 {
			t.Errorf("identity, split %d: tally %+v, want all 300 test comparisons tied", sp, tl)
		}
	}
	if half, m, _ := id.HalfTies(); id.Mean != 0 || m != 0.5 || half[1] != 0.5 || id.TieRate() != 1 {
		t.Errorf("identity: accuracy %v, ties ½ %v, tie rate %v; want 0, 0.5, 1", id.Mean, m, id.TieRate())
	}
	for sp, tl := range clean.TestTallies {
		if got := float64(tl.Right) / float64(tl.Right+tl.Ties+tl.Wrong); got != clean.Accuracy[sp] {
			t.Errorf("clean, split %d: tally %+v gives %v, the row's accuracy is %v", sp, tl, got, clean.Accuracy[sp])
		}
	}
	if md := SummaryMarkdown(s); !strings.Contains(md, "| identity native | identity | 0.0000 ± 0.0000 | 0.5000 ± 0.0000 | 1.000 |") {
		t.Errorf("the summary table lacks the identity row's ties:\n%s", md)
	}
}

// TestClaims: a claim's difference is the two rows' accuracy difference
// (mean over splits) and its interval contains it. A clean feature kernel
// beats the identity kernel's native space (which ties everywhere, accuracy
// 0) by its whole accuracy, certainly; a blurry one does not beat it.
func TestClaims(t *testing.T) {
	s := runOnTriplets(t, "claims", `
kernels:
  - {name: identity, type: identity}
  - {name: clean, source: clean, type: linear}
  - {name: blurry, source: blurry, type: linear}
protocol: {holdout: comparisons, splits: 2, test_fraction: 0.1, inner_folds: 2}
rows:
  - {label: eye, method: native, kernel: identity}
  - {label: clean, method: native, kernel: clean}
  - {label: blurry, method: native, kernel: blurry}
claims:
  - {claim: clean beats ties, better: clean, worse: eye, paper: none}
  - {claim: blurry beats clean, better: blurry, worse: clean}
`)
	if len(s.Claims) != 2 {
		t.Fatalf("%d claims, want 2", len(s.Claims))
	}
	row := func(label string) results.Row {
		for _, r := range s.Rows {
			if r.Label == label {
				return r
			}
		}
		t.Fatalf("no row %q", label)
		return results.Row{}
	}
	for _, cl := range s.Claims {
		iv := cl.Interval
		if iv == nil {
			t.Fatalf("%s: no interval (%s)", cl.Claim, cl.Note)
		}
		want := row(cl.Better).Mean - row(cl.Worse).Mean
		if math.Abs(iv.Diff-want) > 1e-12 || !(iv.Lo <= iv.Diff && iv.Diff <= iv.Hi) || iv.N != 600 || iv.Strata != 2 || iv.Reps != 2000 {
			t.Errorf("%s: %+v, want difference %v inside its interval over 600 comparisons in 2 splits", cl.Claim, *iv, want)
		}
	}
	if cl := s.Claims[0]; !cl.Reproduced || cl.Interval.Lo < 0.7 {
		t.Errorf("clean vs ties: %+v, want reproduced with a lower end ≥ 0.7", *cl.Interval)
	}
	if cl := s.Claims[1]; cl.Reproduced {
		t.Errorf("blurry beats clean: reproduced with %+v", *cl.Interval)
	}
	if md := SummaryMarkdown(s); !strings.Contains(md, "| clean beats ties | clean | eye | none | +0.8") || !strings.Contains(md, "| blurry beats clean | blurry | clean |  | -0.") {
		t.Errorf("the summary lacks the claims table:\n%s", md)
	}
}

// runOnTriplets runs a config on examples/triplets: body is the YAML after
// the dataset line (kernels, protocol, rows, ...); the features clean and
// blurry are available as sources.
func runOnTriplets(t *testing.T, name, body string) *results.Summary {
	t.Helper()
	dir := t.TempDir()
	ex, err := filepath.Abs(filepath.Join("..", "examples", "triplets"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, dir, name+".yaml", fmt.Sprintf("name: %[2]s\nseed: 1\n"+
		"dataset: {type: generic, items: %[1]s/items.tsv, comparisons: %[1]s/triplets.tsv, features: {clean: %[1]s/clean.tsv, blurry: %[1]s/blurry.tsv}}\n", ex, name)+body)
	_, s := runConfigFile(t, cfg)
	return s
}

// runConfigFile loads the config file cfg, runs it into a run directory
// beside it on 2 workers and returns the config and the summary.
func runConfigFile(t *testing.T, cfg string) (*Config, *results.Summary) {
	t.Helper()
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Output = filepath.Join(filepath.Dir(cfg), "run")
	s, err := Run(context.Background(), c, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

// TestSummaryTableMultiples: a relative grid's table shows each split's β
// to four digits beside its multiple of β_min; an absolute grid's β as
// recorded.
func TestSummaryTableMultiples(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  results.Row
		want string
	}{
		{"relative", results.Row{Label: "GNMDS", Beta: []float64{2075.4221966668747, 1500.25}, BetaMultiple: []float64{2, 1.5}}, "| 2075 (2×β_min), 1500 (1.5×β_min) |"},
		{"absolute", results.Row{Label: "K1", Beta: []float64{1000, 0.01}}, "| 1000, 0.01 |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &results.Summary{Name: "x", Splits: 2, InnerFolds: 3, Rows: []results.Row{tc.row}}
			if md := SummaryMarkdown(s); !strings.Contains(md, tc.want) {
				t.Errorf("the table lacks %q:\n%s", tc.want, md)
			}
		})
	}
}
