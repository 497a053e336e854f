package experiments

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/testconfigs"
	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestRunNativeSpaceScoresAsTheTask: the native space that RunNativeSpace
// rebuilds from a finished run's resolved config scores the split's test
// comparisons exactly as the row's native task did (summary.json), on the
// run's own split (items.json).
func TestRunNativeSpaceScoresAsTheTask(t *testing.T) {
	text := testconfigs.Tiny[:strings.Index(testconfigs.Tiny, "rows:")] + "rows:\n  - {method: native, kernel: good}\n  - {method: native, group: both}\n  - {method: k1, kernel: good, mode: diag}\n"
	dir := t.TempDir()
	c := configOf(t, text)
	c.Output = filepath.Join(dir, "run")
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	sum, err := results.DecodeSummary(readFile(t, filepath.Join(c.Output, "summary.json")), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	items, err := results.DecodeItems(readFile(t, filepath.Join(c.Output, "items.json")), "items.json")
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := LoadConfig(filepath.Join(c.Output, "config.resolved.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := resolved.loadAndCheckData()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for r, row := range sum.Rows[:2] {
		for s := range resolved.Protocol.Splits {
			ns, err := RunNativeSpace(c.Output, strings.ToUpper(row.Label), s) // labels match case aside
			if err != nil {
				t.Fatal(err)
			}
			if ns.Label != row.Label || !slices.Equal(ns.Train, items.Splits[s].Train) || !slices.Equal(ns.Test, items.Splits[s].Test) {
				t.Fatalf("row %q split %d: rebuilt %q with %d/%d items, want the run's %d/%d", row.Label, s, ns.Label, len(ns.Train), len(ns.Test), len(items.Splits[s].Train), len(items.Splits[s].Test))
			}
			f, err := taskFold(resolved, ds, resolved.Rows[r], resolved.rowKernels(resolved.Rows[r]), cv.Outer(s))
			if err != nil {
				t.Fatal(err)
			}
			n, nt := len(ns.Train), len(ns.Test)
			k, rows, self := mat.NewSymDense(n, nil), mat.NewDense(nt, n, nil), make([]float64, nt)
			for p := range ns.Grams {
				k.AddSym(k, ns.Grams[p])
				rows.Add(rows, ns.Rows[p])
				for q, v := range ns.Self[p] {
					self[q] += v
				}
			}
			got := eval.Count(eval.Outcomes(f.testCs, eval.NativeDistanceNew(k, rows, self))).Accuracy()
			if math.Abs(got-row.Accuracy[s]) > 1e-12 {
				t.Errorf("row %q split %d: accuracy %v in the rebuilt space, the run's task %v", row.Label, s, got, row.Accuracy[s])
			}
			checked++
		}
	}
	if checked != 4 {
		t.Errorf("%d row-splits checked, want 4", checked)
	}
	for _, tc := range []struct {
		label string
		split int
		want  string
	}{
		{"good K1 diag", 0, `--row "good K1 diag" is a k1 row of`},
		{"nope", 0, `has no row labelled "nope"`},
		{"good native", 2, "--split must be in 0..1 (the run's outer splits), got 2"},
	} {
		if _, err := RunNativeSpace(c.Output, tc.label, tc.split); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RunNativeSpace(%q, %d): %v, want an error with %q", tc.label, tc.split, err, tc.want)
		}
	}
	if err := os.Remove(filepath.Join(c.Output, "config.resolved.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := RunNativeSpace(c.Output, "good native", 0); err == nil || !strings.Contains(err.Error(), "no config.resolved.yaml, from which a native row's kernels are rebuilt") {
		t.Errorf("without the resolved config: %v", err)
	}
}
