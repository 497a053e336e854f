package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// FuzzLoadConfig: any YAML is loaded or rejected with an error naming the
// file, never a panic; an accepted config plans, hashes and survives the
// round trip through config.resolved.yaml.
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte(tinyConfig))
	if b, err := os.ReadFile(filepath.Join("..", "configs", "quickstart.yaml")); err == nil {
		f.Add(b)
	}
	if b, err := os.ReadFile(filepath.Join("..", "configs", "aloi10_sensitivity_taxonomy.yaml")); err == nil {
		f.Add(b) // a taxonomy clustered at load time (dataset.taxonomy as a mapping)
	}
	f.Add([]byte("name: x\nrows: [{method: k4}]\n"))
	f.Add([]byte("protocol: {splits: 1000000000}\n"))
	f.Add([]byte("protocol: {outer: given, test_comparisons: test.tsv}\n")) // a given test set: its file is read at load
	f.Add([]byte(strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: {relative_to_min: [1.5, 30]}", 1)))
	if b, err := os.ReadFile(filepath.Join("..", "configs", "scale_planted2000.yaml")); err == nil {
		f.Add(b) // a planted data set, a relative grid, the low-rank solver
	}
	// Fractions of whole-number keys, values of the wrong kind, enums in
	// another case, taxonomies with fractions, and files of other kinds.
	f.Add([]byte(strings.Replace(tinyConfig, "inner_folds: 2", "inner_folds: 2.7", 1)))
	f.Add([]byte(strings.Replace(tinyConfig, "seed: 3", "seed: 1e3", 1)))
	f.Add([]byte(strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: [1e2, 1e3, abc]", 1)))
	f.Add([]byte(strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: 1000", 1)))
	f.Add([]byte(strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: {relative_to_min: [2], from: 3}", 1)))
	f.Add([]byte(strings.ReplaceAll(tinyConfig, "mode: diag", "mode: Diag")))
	f.Add([]byte("dataset: {type: Synthetic, taxonomy: [[1, 2.5], 3]}\nkernels: [{name: a, type: RBF}]\n"))
	f.Add([]byte("dataset: {type: aloi10, taxonomy: {cluster: Unused_Images, levels: [3, 5.5], views: [View1]}}\n"))
	f.Add([]byte(`{"format": "mkpoe-summary/1", "name": "x", "rows": []}`))
	f.Add([]byte(`{"format": "mkpoe-model/1"}`))
	f.Add([]byte("taxonomy: [[1, 2], 3]\n"))
	// Rank lists: good, repeated, fractional, empty, on a native row.
	f.Add([]byte(strings.Replace(tinyConfig, "{method: k4, group: both, mode: full}", "{method: k4, group: both, mode: full, rank: [0, 2, 5]}", 1)))
	f.Add([]byte(strings.Replace(tinyConfig, "{method: k4, group: both, mode: full}", "{method: k4, group: both, mode: full, rank: [2, 2.5, 2]}", 1)))
	f.Add([]byte(strings.Replace(tinyConfig, "{method: k4, group: both, mode: full}", "{method: k4, group: both, mode: full, rank: []}", 1)))
	f.Add([]byte(strings.Replace(tinyConfig, "{method: native, kernel: good}", "{method: native, kernel: good, rank: [0, 1]}", 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		ranks := 1
		for _, r := range c.Rows {
			ranks = max(ranks, len(r.Rank))
		}
		if c.Protocol.Splits*c.Protocol.InnerFolds*len(c.Rows)*ranks > 1e5 {
			return // a valid but huge plan: not this target's subject
		}
		plan := Plan(c)
		c.Output = dir
		if err := writeRunFiles(c, 0); err != nil {
			t.Fatal(err)
		}
		back, err := LoadConfig(filepath.Join(dir, "config.resolved.yaml"))
		if err != nil {
			t.Fatalf("config.resolved.yaml does not load back: %v", err)
		}
		back.Output = dir
		if back.Hash() != c.Hash() || len(Plan(back)) != len(plan) {
			t.Fatalf("config.resolved.yaml loads back to hash %s (was %s), %d tasks (was %d)", back.Hash(), c.Hash(), len(Plan(back)), len(plan))
		}
	})
}

// FuzzGivenTestFile: any test_comparisons file (outer: given) is accepted
// or refused with an error naming protocol.test_comparisons, never a
// panic; an accepted one makes a valid given split under either holdout,
// whose training comparisons ask no question of the test set.
func FuzzGivenTestFile(f *testing.F) {
	f.Add([]byte("0 1 2\n"), false, false)
	f.Add([]byte("i\tj\tk\n5 0 1\n5 1 2\n"), true, false)
	f.Add([]byte("1 2 3 4\n2,3,4\n"), false, true)
	f.Add([]byte("0 2 1\n3 4 5\n"), true, false)
	f.Fuzz(func(t *testing.T, b []byte, items, oneBased bool) {
		p := filepath.Join(t.TempDir(), "test.tsv")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c := &Config{Dataset: DatasetConfig{Type: "generic", OneBased: oneBased}, Protocol: ProtocolConfig{Outer: outerGiven, Holdout: holdoutComparisons, TestComparisons: p}}
		if items {
			c.Protocol.Holdout = holdoutItems
		}
		comps := []data.Comparison{data.Triplet(0, 1, 2), data.Triplet(1, 2, 3), data.Triplet(2, 3, 4), {I: 0, J: 1, K: 3, L: 4}}
		ds := &dataset{n: 7, comps: comps}
		if err := applyGiven(c, ds); err != nil {
			if !strings.HasPrefix(err.Error(), "protocol.test_comparisons: ") {
				t.Fatalf("error %q does not name protocol.test_comparisons", err)
			}
			return
		}
		units := ds.n
		if !items {
			units = len(ds.comps)
		}
		if err := ds.given.split.Validate(units); err != nil {
			t.Fatalf("accepted a bad split: %v", err)
		}
		test, train := ds.given.test, ds.comps
		if !items {
			nt := len(ds.given.split.Train)
			test, train = ds.comps[nt:], ds.comps[:nt]
		}
		asked := map[[4]int]bool{}
		for _, q := range test {
			k, _ := questionKey(q)
			asked[k] = true
		}
		for _, q := range train {
			if k, _ := questionKey(q); asked[k] {
				t.Fatalf("training comparison %v asks a test question", q)
			}
		}
	})
}
