package experiments

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/kernels"
)

// TestKernelFormsAgree: the folds' structured kernels (the identity as a
// *mat.DiagDense for every row, a native row's unnormalised linear kernel
// as its features, kernels.FeatureGram) hold the entries and held-out rows
// of the dense kernels, and every task scores and fits exactly as on the
// dense ones: native outcomes, β_min, the fit's objective, bound and
// iterations, held-out accuracy and kernel shares, under comparison and
// item holdout, for full and diagonal W, K1 and K4.
func TestKernelFormsAgree(t *testing.T) {
	t.Parallel()
	const identity = `  - {name: identity, type: identity}
  - {name: identity_diag, type: identity, normalize: diag}
groups:
  - {name: both, kernels: [points, identity]}
`
	for _, tc := range []struct{ name, protocol, kernels, rows string }{
		{"comparisons", "{holdout: comparisons, splits: 1, test_fraction: 0.2, inner_folds: 2}", identity, `  - {method: native, kernel: identity}
  - {method: native, group: both}
  - {method: k1, kernel: identity, mode: full}
  - {method: k1, kernel: identity_diag, mode: full}
  - {method: k1, kernel: identity, mode: diag}
  - {method: k4, group: both, mode: full}
  - {method: k1, group: both, mode: full}
`},
		// GNMDS has no out-of-sample extension: no identity kernel here.
		{"items", "{holdout: items, splits: 1, test_fraction: 0.2, inner_folds: 2}", "", `  - {method: k1, kernel: points, mode: full}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := `name: forms
seed: 3
dataset: {type: planted, planted: {n: 50, dim: 3, triplets: 1500, flip: 0.1}}
kernels:
  - {name: points, source: points, type: linear}
  - {name: scaled, source: points, type: linear, normalize: trace}
` + tc.kernels + `protocol: ` + tc.protocol + `
beta_grid: {relative_to_min: [3]}
solver: {method: alm}
rows:
  - {method: native, kernel: points}
  - {method: native, kernel: scaled}
` + tc.rows
			path := filepath.Join(t.TempDir(), "forms.yaml")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := loadDataset(c)
			if err != nil {
				t.Fatal(err)
			}
			structured := 0
			for _, task := range Plan(c) {
				row := taskRow(c, task)
				kidx := c.rowKernels(row)
				id := taskFoldID(task)
				got, err := taskFold(c, ds, row, kidx, id)
				if err != nil {
					t.Fatal(err)
				}
				train, test, source := foldOf(c, ds, id)
				seed := c.Seed*1_000_003 + uint64(id.Split)*101 + uint64(id.Fold+1)
				want, err := buildFold(c, ds, foldItems{train, test, source}, kidx, rowTrainSteps(c, row), seed, denseKernels)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range kidx {
					switch got.grams[p].(type) {
					case *mat.DiagDense, *kernels.FeatureGram:
						structured++
					}
					if !mat.Equal(got.grams[p], want.grams[p]) {
						t.Errorf("%s: kernel %s differs from the dense one", task.ID, c.Kernels[p].Name)
					}
					if (got.rows[p] == nil) != (want.rows[p] == nil) || (got.rows[p] != nil && !mat.Equal(got.rows[p], want.rows[p])) {
						t.Errorf("%s: kernel %s's held-out rows differ from the dense one's", task.ID, c.Kernels[p].Name)
					}
				}
				if !slices.Equal(got.trainCs, want.trainCs) || !slices.Equal(got.testCs, want.testCs) {
					t.Fatalf("%s: the comparisons differ", task.ID)
				}
				if task.Kind == KindNative {
					if g, w := nativeOutcomes(got, kidx), nativeOutcomes(want, kidx); !slices.Equal(g, w) {
						t.Errorf("%s: native outcomes differ", task.ID)
					}
					continue
				}
				mbGot, err := rowMinBeta(c, row, got, kidx)
				if err != nil {
					t.Fatal(err)
				}
				mbWant, err := rowMinBeta(c, row, want, kidx)
				if err != nil {
					t.Fatal(err)
				}
				if mbGot != mbWant {
					t.Errorf("%s: β_min %.17g, dense %.17g", task.ID, mbGot, mbWant)
				}
				mg, err := (&rowTrial{c: c, row: row, f: got, kidx: kidx}).Fit(context.Background(), 3*mbWant, nil)
				if err != nil {
					t.Fatal(err)
				}
				mw, err := (&rowTrial{c: c, row: row, f: want, kidx: kidx}).Fit(context.Background(), 3*mbWant, nil)
				if err != nil {
					t.Fatal(err)
				}
				if mg.Objective != mw.Objective || mg.Stats.DualBound != mw.Stats.DualBound || mg.Stats.Iterations != mw.Stats.Iterations || mw.Objective <= 0 {
					t.Errorf("%s: objective %.17g, bound %.17g, %d iterations; dense %.17g, %.17g, %d", task.ID,
						mg.Objective, mg.Stats.DualBound, mg.Stats.Iterations, mw.Objective, mw.Stats.DualBound, mw.Stats.Iterations)
				}
				ag, err := learnedAccuracy(mg, got, kidx)
				if err != nil {
					t.Fatal(err)
				}
				aw, err := learnedAccuracy(mw, want, kidx)
				if err != nil {
					t.Fatal(err)
				}
				sg, err := mg.KernelShares(got.gramsOf(kidx))
				if err != nil {
					t.Fatal(err)
				}
				sw, err := mw.KernelShares(want.gramsOf(kidx))
				if err != nil {
					t.Fatal(err)
				}
				if ag != aw || !slices.Equal(sg, sw) {
					t.Errorf("%s: held-out accuracy %v, shares %v; dense %v, %v", task.ID, ag, sg, aw, sw)
				}
			}
			if structured == 0 {
				t.Error("no fold held a structured kernel")
			}
		})
	}
}
