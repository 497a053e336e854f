package experiments

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestEnumSpellings: a mode's alias (diagonal) and the paper's upper-case
// method names (K1, K4) become the canonical spellings before labels, task
// ids and task inputs are derived; an unknown one is refused with the
// valid values.
func TestEnumSpellings(t *testing.T) {
	dir := t.TempDir()
	load := func(row string) (*Config, error) {
		body := "name: x\nseed: 1\ndataset: {type: planted, planted: {n: 40, dim: 3, triplets: 1500, flip: 0.1}}\n" +
			"kernels:\n  - {name: identity, type: identity}\nprotocol: {holdout: comparisons, splits: 1, test_fraction: 0.2, inner_folds: 2}\n" +
			"beta_grid: [1, 10]\nrows:\n  - " + row + "\n"
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	canonical, err := load("{method: k1, kernel: identity, mode: diag}")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"{method: k1, kernel: identity, mode: diagonal}", "{method: K1, kernel: identity, mode: diag}"} {
		c, err := load(row)
		if err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		r := c.Rows[0]
		if r.Mode != "diag" || r.Method != "k1" || r.Label != "identity K1 diag" || c.rowInputs(r) != canonical.rowInputs(canonical.Rows[0]) {
			t.Errorf("%s: mode %q, method %q, label %q; want diag, k1, identity K1 diag and the canonical row's inputs", row, r.Mode, r.Method, r.Label)
		}
	}
	if _, err := load("{method: k1, kernel: identity, mode: diagnal}"); err == nil || !strings.Contains(err.Error(), `rows[0].mode: must be full or diag, got "diagnal"`) {
		t.Errorf("a misspelt mode: %v", err)
	}
}

// TestLabelsCaseAside: claims name rows case aside (spelt as the rows are
// once loaded), a miss lists the labels, and two labels that differ only
// in case are refused.
func TestLabelsCaseAside(t *testing.T) {
	dir := t.TempDir()
	load := func(tail string) (*Config, error) {
		body := "name: x\nseed: 1\ndataset: {type: planted, planted: {n: 40, dim: 3, triplets: 1500, flip: 0.1}}\n" +
			"kernels:\n  - {name: identity, type: identity}\n  - {name: points, source: points, type: linear}\n" +
			"protocol: {holdout: comparisons, splits: 1, test_fraction: 0.2, inner_folds: 2}\nbeta_grid: [1, 10]\n" + tail
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	rows := "rows:\n  - {method: native, kernel: points, label: True points}\n  - {method: k1, kernel: identity, mode: full, label: GNMDS}\n"
	c, err := load(rows + "claims:\n  - {claim: c, better: true POINTS, worse: gnmds}\n")
	if err != nil {
		t.Fatal(err)
	}
	if cl := c.Claims[0]; cl.Better != "True points" || cl.Worse != "GNMDS" {
		t.Errorf("claim rows %q, %q; want the rows' spellings", cl.Better, cl.Worse)
	}
	if _, err := load(rows + "claims:\n  - {claim: c, better: true dots, worse: gnmds}\n"); err == nil ||
		!strings.Contains(err.Error(), `claims[0].better: must be the label of a row (case aside), one of "True points", "GNMDS", got "true dots"`) {
		t.Errorf("a claim naming no row: %v", err)
	}
	if _, err := load("rows:\n  - {method: native, kernel: points, label: A}\n  - {method: k1, kernel: identity, mode: full, label: a}\n"); err == nil ||
		!strings.Contains(err.Error(), `rows[1].label: must be unique`) {
		t.Errorf("labels differing in case: %v", err)
	}
}

// TestTestAnchorsRecorded: native and refit task files record, per test
// comparison, its anchor: the held-out item i of (i,j,i,k), one of the
// split's test items (items.json), in the order of test_outcomes.
func TestTestAnchorsRecorded(t *testing.T) {
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var items struct {
		Splits []struct {
			Test []int `json:"test"`
		} `json:"splits"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(c.Output, "items.json")), &items); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(c.Output, "tasks", "*.json"))
	checked := 0
	for _, p := range files {
		var res results.TaskResult
		if err := json.Unmarshal(readFile(t, p), &res); err != nil {
			t.Fatal(err)
		}
		if res.Kind == KindCV {
			if res.TestAnchors != nil {
				t.Errorf("%s: a cv task records anchors", p)
			}
			continue
		}
		if len(res.TestAnchors) != len(res.TestOutcomes) || len(res.TestAnchors) != res.TestComparisons || res.TestComparisons == 0 {
			t.Fatalf("%s: %d anchors, %d outcomes, %d test comparisons", p, len(res.TestAnchors), len(res.TestOutcomes), res.TestComparisons)
		}
		for _, a := range res.TestAnchors {
			if !slices.Contains(items.Splits[res.Split].Test, a) {
				t.Fatalf("%s: anchor %d is not a test item of split %d", p, a, res.Split)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no native or refit task checked")
	}
}
