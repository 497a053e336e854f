package experiments

import (
	"context"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// sameProtocolConfig has no comparison subsampling, no constraint processing
// and plain linear kernels, so that pkg/cv's KernelLearner sees exactly the
// folds the harness builds.
const sameProtocolConfig = `
name: same-protocol
seed: 11
dataset:
  type: synthetic
  synthetic:
    branching: [2, 2]
    per_class: 6
    views:
      - {name: good, dim: 3, noise: 0.5}
      - {name: junk, random: true}
kernels:
  - {name: good, source: good, type: linear}
  - {name: junk, source: junk, type: linear}
groups:
  - {name: both, kernels: [good, junk]}
protocol: {splits: 2, test_fraction: 0.25, inner_folds: 2}
beta_grid: [0.1, 10, 1000]
solver: {tol: 0.01}
rows:
  - {method: k4, group: both, mode: diag}
`

// TestHarnessRunsPkgCVProtocol checks that a harness run and cv.Nested on
// the same data give the same validation curves, the same β and the same
// test accuracies: the harness is pkg/cv's protocol run as tasks.
func TestHarnessRunsPkgCVProtocol(t *testing.T) {
	c, s := runConfigFile(t, writeFile(t, t.TempDir(), "c.yaml", sameProtocolConfig))
	ds, err := loadDataset(c)
	if err != nil {
		t.Fatal(err)
	}
	l := &cv.KernelLearner{
		Views: []cv.View{
			{Kernel: kernels.Linear{}, Input: ds.sources["good"]},
			{Kernel: kernels.Linear{}, Input: ds.sources["junk"]},
		},
		Comparisons: cv.FromTaxonomy{Taxonomy: ds.taxonomy, Labels: ds.labels},
		Settings:    mkpoe.Settings{Mode: mkpoe.Diag, Tol: c.Solver.Tol},
	}
	res, err := cv.Nested(context.Background(), l, ds.n, cv.Protocol{Splits: 2, TestFraction: 0.25, InnerFolds: 2, BetaGrid: c.BetaGrid.Values, Seed: c.Seed})
	if err != nil {
		t.Fatal(err)
	}
	row := s.Rows[0]
	t.Logf("harness: β %v, accuracy %v, curves %v", row.Beta, row.Accuracy, row.ValCurve)
	for sp, sr := range res.Splits {
		if sr.Beta != row.Beta[sp] || sr.Score != row.Accuracy[sp] {
			t.Errorf("split %d: cv.Nested β %g accuracy %v, harness β %g accuracy %v", sp, sr.Beta, sr.Score, row.Beta[sp], row.Accuracy[sp])
		}
		for b := range sr.Mean {
			if sr.Mean[b] != row.ValCurve[sp][b] {
				t.Errorf("split %d: validation curve %v, harness %v", sp, sr.Mean, row.ValCurve[sp])
				break
			}
		}
	}
	if res.Mean != row.Mean || res.Std != row.Std {
		t.Errorf("cv.Nested %v ± %v, harness %v ± %v", res.Mean, res.Std, row.Mean, row.Std)
	}
}
