package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// tripletsDir is the generic example data set: 90 items, 3000 triplets,
// features clean and blurry (written by mkpoe synth).
var tripletsDir = filepath.Join("..", "examples", "triplets")

// givenConfig writes a config of the generic example data set with the
// given comparisons file and protocol into dir and loads it.
func givenConfig(t *testing.T, dir, comparisons, protocol, kernels, rows string) *Config {
	t.Helper()
	abs, err := filepath.Abs(tripletsDir)
	if err != nil {
		t.Fatal(err)
	}
	y := fmt.Sprintf(`name: given
seed: 3
dataset:
  type: generic
  items: %s
  comparisons: %s
  features: {clean: %s}
kernels:
%sprotocol: %s
beta_grid: [1, 100]
rows:
%s`, filepath.Join(abs, "items.tsv"), comparisons, filepath.Join(abs, "clean.tsv"), kernels, protocol, rows)
	p := filepath.Join(dir, "given.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	c.Output = filepath.Join(dir, "run")
	return c
}

// readTriplets reads the example's triplets (0-based).
func readTriplets(t *testing.T) []data.Comparison {
	t.Helper()
	cf, err := data.ReadComparisonsFile(filepath.Join(tripletsDir, "triplets.tsv"), data.ComparisonOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cf.Comparisons
}

// writeTriplets writes cs as a 3-column comparisons file, numbered from base.
func writeTriplets(t *testing.T, path string, cs []data.Comparison, base int) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("i\tj\tk\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "%d\t%d\t%d\n", c.I+base, c.J+base, c.L+base)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readHeldout reads heldout.tsv: per (split, fold), its comparisons.
func readHeldout(t *testing.T, dir string) map[[2]int][]data.Comparison {
	t.Helper()
	out := map[[2]int][]data.Comparison{}
	for _, v := range readIntTSV(t, filepath.Join(dir, heldoutFile), "split\tfold\ti\tj\tk\tl") {
		k := [2]int{v[0], v[1]}
		out[k] = append(out[k], data.Comparison{I: v[2], J: v[3], K: v[4], L: v[5]})
	}
	return out
}

// readIntTSV reads a tab-separated file of integers whose first line must
// be header, and returns its rows, each with one value per column.
func readIntTSV(t *testing.T, path, header string) [][]int {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, path)), "\n"), "\n")
	if lines[0] != header {
		t.Fatalf("%s: header %q, want %q", path, lines[0], header)
	}
	cols := len(strings.Split(header, "\t"))
	var rows [][]int
	for _, l := range lines[1:] {
		fields := strings.Split(l, "\t")
		if len(fields) != cols {
			t.Fatalf("%s: line %q has %d fields, want %d", path, l, len(fields), cols)
		}
		v := make([]int, cols)
		for f, s := range fields {
			x, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: line %q: %v", path, l, err)
			}
			v[f] = x
		}
		rows = append(rows, v)
	}
	return rows
}

// accuracy is the fraction of cs that emb satisfies strictly (ties wrong).
func accuracy(emb mat.Matrix, cs []data.Comparison) float64 {
	d := func(a, b int) float64 {
		_, dim := emb.Dims()
		s := 0.0
		for x := 0; x < dim; x++ {
			v := emb.At(a, x) - emb.At(b, x)
			s += v * v
		}
		return s
	}
	right := 0
	for _, c := range cs {
		if d(c.I, c.J) < d(c.K, c.L) {
			right++
		}
	}
	return float64(right) / float64(len(cs))
}

func readModel(t *testing.T, path string) *mkpoe.Model {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mkpoe.ReadJSON(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGivenComparisonHoldout runs a given test set of published triplets
// under comparison holdout: some of the data set's triplets as they are,
// some reversed. The GNMDS refit's test accuracy in the summary equals
// the accuracy of its embedding on the file's comparisons computed here;
// no question of the test set reaches training; heldout.tsv's outer rows
// are the file, and its inner rows are pkg/cv's folds of the training
// comparisons.
func TestGivenComparisonHoldout(t *testing.T) {
	dir := t.TempDir()
	all := readTriplets(t)
	test := slices.Clone(all[:120])
	for _, c := range all[120:150] { // reversed: the same question, answered the other way
		test = append(test, data.Triplet(c.I, c.L, c.J))
	}
	writeTriplets(t, filepath.Join(dir, "test.tsv"), test, 0)
	trip, err := filepath.Abs(filepath.Join(tripletsDir, "triplets.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	c := givenConfig(t, dir, trip, "{outer: given, test_comparisons: test.tsv, inner_folds: 3}",
		"  - {name: identity, type: identity}\n", "  - {label: GNMDS, method: k1, kernel: identity, mode: full}\n")
	if c.Protocol.Holdout != holdoutComparisons || c.Protocol.TestFraction != 0 {
		t.Fatalf("given defaults: holdout %q, test_fraction %g; want comparisons, 0", c.Protocol.Holdout, c.Protocol.TestFraction)
	}
	// The training comparisons, independently: every triplet whose
	// question the test set does not ask, in the file's order.
	asked := map[[3]int]bool{}
	for _, q := range test {
		asked[[3]int{q.I, min(q.J, q.L), max(q.J, q.L)}] = true
	}
	var train []data.Comparison
	for _, q := range all {
		if !asked[[3]int{q.I, min(q.J, q.L), max(q.J, q.L)}] {
			train = append(train, q)
		}
	}
	if len(train) > len(all)-150 {
		t.Fatalf("%d training triplets of %d, want at most %d", len(train), len(all), len(all)-150)
	}

	s, err := Run(context.Background(), c, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		t.Fatal(err)
	}
	// The refit's fold: its training comparisons are exactly train.
	f, err := taskFold(c, ds, c.Rows[0], c.rowKernels(c.Rows[0]), cv.Outer(0))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.trainCs, train) || !slices.Equal(f.testCs, test) {
		t.Fatalf("refit fold: %d training, %d test comparisons; want %d, %d in order", len(f.trainCs), len(f.testCs), len(train), len(test))
	}
	for _, q := range f.trainCs {
		if asked[[3]int{q.I, min(q.J, q.L), max(q.J, q.L)}] {
			t.Fatalf("training comparison %v asks a test question", q)
		}
	}

	m := readModel(t, filepath.Join(c.Output, "models", c.TaskID(KindRefit, 0, 0, -1)+".json"))
	want := accuracy(m.Train, test)
	if got := s.Rows[0].Accuracy; len(got) != 1 || got[0] != want {
		t.Errorf("summary accuracy %v, want [%v] (the refit's embedding on the given file)", got, want)
	}
	if want < 0.6 {
		t.Errorf("GNMDS scores %v on the given triplets: the fit learned nothing?", want)
	}

	h := readHeldout(t, c.Output)
	if got := h[[2]int{0, -1}]; !slices.Equal(got, test) {
		t.Errorf("heldout.tsv outer rows: %d comparisons, want the %d of the given file in order", len(got), len(test))
	}
	p := cv.Protocol{HoldOut: cv.HoldOutComparisons, Splits: 1, InnerFolds: 3, Seed: 3,
		Given: &cv.GivenSplit{Train: seq(0, len(train)), Held: seq(len(train), len(train)+len(test))}}
	units := append(append([]data.Comparison(nil), train...), test...)
	seen := 0
	for fold := 0; fold < 3; fold++ {
		_, val := p.Fold(len(units), cv.FoldID{Split: 0, Fold: fold})
		var wantVal []data.Comparison
		for _, u := range val {
			wantVal = append(wantVal, units[u])
		}
		if got := h[[2]int{0, fold}]; !slices.Equal(got, wantVal) {
			t.Errorf("heldout.tsv fold %d: %d comparisons, want pkg/cv's %d", fold, len(got), len(wantVal))
		}
		seen += len(val)
	}
	if seen != len(train) || len(h) != 4 {
		t.Errorf("inner folds hold out %d comparisons in %d (split, fold) groups; want the %d training ones in 4", seen, len(h), len(train))
	}
	if _, err := os.Stat(filepath.Join(c.Output, heldoutItemsFile)); err == nil {
		t.Errorf("%s written under comparison holdout", heldoutItemsFile)
	}
}

// TestGivenItemHoldout runs a given test set that is a held-out item set
// (the paper's protocol with a published split): the data set's
// comparisons are the published training triplets, none touching the
// held-out items, and the test file's triplets are anchored at them. The
// held-out items are embedded out of sample; the summary's accuracy equals
// the accuracy of the refit's embeddings (training items from the model,
// held-out ones from its .test.tsv) on the file.
func TestGivenItemHoldout(t *testing.T) {
	dir := t.TempDir()
	held := map[int]bool{}
	for i := 0; i < 90; i += 9 {
		held[i] = true
	}
	var train, test []data.Comparison
	for _, q := range readTriplets(t) {
		switch {
		case held[q.I] && !held[q.J] && !held[q.L]:
			test = append(test, q)
		case !held[q.I] && !held[q.J] && !held[q.L]:
			train = append(train, q)
		}
	}
	writeTriplets(t, filepath.Join(dir, "train.tsv"), train, 1)
	writeTriplets(t, filepath.Join(dir, "test.tsv"), test, 1)
	kernels := "  - {name: clean, source: clean, type: rbf}\n"
	c := givenConfig(t, dir, filepath.Join(dir, "train.tsv")+"\n  one_based: true", "{outer: given, holdout: items, test_comparisons: test.tsv, inner_folds: 3}", kernels,
		"  - {label: clean native, method: native, kernel: clean}\n  - {label: clean K1 diag, method: k1, kernel: clean, mode: diag}\n")
	s, err := Run(context.Background(), c, RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var items results.Items
	if err := json.Unmarshal(readFile(t, filepath.Join(c.Output, "items.json")), &items); err != nil {
		t.Fatal(err)
	}
	var wantHeld, wantTrain []int
	for i := 0; i < 90; i++ {
		if held[i] {
			wantHeld = append(wantHeld, i)
		} else {
			wantTrain = append(wantTrain, i)
		}
	}
	if sp := items.Splits; len(sp) != 1 || !slices.Equal(sp[0].Test, wantHeld) || !slices.Equal(sp[0].Train, wantTrain) {
		t.Fatalf("items.json splits %v, want test %v", items.Splits, wantHeld)
	}
	// The learned row: training items' embedding, then the held-out ones'.
	m := readModel(t, filepath.Join(c.Output, "models", c.TaskID(KindRefit, 1, 0, -1)+".json"))
	te, err := data.ReadMatrixFile(filepath.Join(c.Output, "models", c.TaskID(KindRefit, 1, 0, -1)+".test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	emb := mat.NewDense(90, m.Dim(), nil)
	for r, i := range wantTrain {
		emb.SetRow(i, m.Train.RawRowView(r))
	}
	for r, i := range wantHeld {
		emb.SetRow(i, te.RawRowView(r))
	}
	want := accuracy(emb, test)
	if got := s.Rows[1].Accuracy; len(got) != 1 || got[0] != want {
		t.Errorf("summary accuracy %v, want [%v] (the refit's embeddings on the given file)", got, want)
	}
	var native results.TaskResult
	if err := json.Unmarshal(readFile(t, filepath.Join(c.Output, "tasks", c.TaskID(KindNative, 0, 0, -1)+".json")), &native); err != nil {
		t.Fatal(err)
	}
	if native.TestComparisons != len(test) || native.TrainItems != 80 || native.TestItems != 10 {
		t.Errorf("native task: %d test comparisons, %d/%d items; want %d, 80/10", native.TestComparisons, native.TrainItems, native.TestItems, len(test))
	}
	h := readHeldout(t, c.Output)
	if got := h[[2]int{0, -1}]; !slices.Equal(got, test) {
		t.Errorf("heldout.tsv outer rows: %d comparisons, want the %d of the given file", len(got), len(test))
	}
	// Inner folds: pkg/cv's item folds of the training items, scored on
	// the training triplets anchored at the validation items.
	p := cv.Protocol{Splits: 1, InnerFolds: 3, Seed: 3, Given: &cv.GivenSplit{Train: wantTrain, Held: wantHeld}}
	heldItems := readHeldoutItems(t, c.Output)
	for fold := 0; fold < 3; fold++ {
		in, val := p.Fold(90, cv.FoldID{Split: 0, Fold: fold})
		_, vc := data.SplitComparisons(train, in, val)
		items := append(append([]int(nil), in...), val...)
		var wantVal []data.Comparison
		for _, q := range vc {
			wantVal = append(wantVal, data.Comparison{I: items[q.I], J: items[q.J], K: items[q.K], L: items[q.L]})
		}
		if got := h[[2]int{0, fold}]; !slices.Equal(got, wantVal) {
			t.Errorf("heldout.tsv fold %d: %d comparisons, want %d", fold, len(got), len(wantVal))
		}
		if got := heldItems[[2]int{0, fold}]; !slices.Equal(got, val) {
			t.Errorf("heldout-items.tsv fold %d: %v, want %v", fold, got, val)
		}
	}
	if got := heldItems[[2]int{0, -1}]; !slices.Equal(got, wantHeld) {
		t.Errorf("heldout-items.tsv outer: %v, want %v", got, wantHeld)
	}
}

// readHeldoutItems reads heldout-items.tsv: per (split, fold), its items.
func readHeldoutItems(t *testing.T, dir string) map[[2]int][]int {
	t.Helper()
	out := map[[2]int][]int{}
	for _, v := range readIntTSV(t, filepath.Join(dir, heldoutItemsFile), "split\tfold\titem") {
		k := [2]int{v[0], v[1]}
		out[k] = append(out[k], v[2])
	}
	return out
}

// TestGivenBadInputs: every misuse of outer: given is refused with the
// YAML path, the rule and the value (or the file, line and column of a
// bad line), by LoadConfig or by Check against the data.
func TestGivenBadInputs(t *testing.T) {
	abs, err := filepath.Abs(tripletsDir)
	if err != nil {
		t.Fatal(err)
	}
	gnmds := "kernels: [{name: identity, type: identity}]\nrows: [{method: k1, kernel: identity, mode: full}]\n"
	clean := "kernels: [{name: clean, source: clean, type: rbf}]\nrows: [{method: native, kernel: clean}]\n"
	generic := func(comparisons, extra string) string {
		return fmt.Sprintf("dataset: {type: generic, items: %q, comparisons: %q, features: {clean: %q}%s}\n", filepath.Join(abs, "items.tsv"), comparisons, filepath.Join(abs, "clean.tsv"), extra)
	}
	all := generic(filepath.Join(abs, "triplets.tsv"), "")
	for _, test := range []struct {
		name, yaml string
		files      map[string]string
		want       []string
	}{
		{"no file named", all + "protocol: {outer: given}\n" + gnmds, nil,
			[]string{`protocol.test_comparisons: must name the file of test comparisons with outer: given, got ""`}},
		{"missing file", all + "protocol: {outer: given, test_comparisons: nope.tsv}\n" + gnmds, nil,
			[]string{"protocol.test_comparisons: does not exist (paths are relative to the config file's folder, DIR), got DIR/nope.tsv"}},
		{"splits and test_fraction", all + "protocol: {outer: given, test_comparisons: t.tsv, splits: 3, test_fraction: 0.3}\n" + gnmds, map[string]string{"t.tsv": "0 1 2\n"},
			[]string{"protocol.splits: must be 1 (or absent) with outer: given: the given test set is the one outer split, got 3",
				"protocol.test_fraction: must be absent with outer: given: the test set is the file protocol.test_comparisons, got 0.3"}},
		{"file without given", all + "protocol: {test_comparisons: t.tsv}\n" + gnmds, map[string]string{"t.tsv": "0 1 2\n"},
			[]string{`protocol.test_comparisons: is the test set of outer: given only (set protocol.outer: given, or remove it), got "DIR/t.tsv" with outer "random"`}},
		{"taxonomy data set", "dataset: {type: synthetic, synthetic: {views: [{name: v, dim: 2}]}}\nprotocol: {outer: given, test_comparisons: t.tsv}\nkernels: [{name: v, source: v, type: linear}]\nrows: [{method: native, kernel: v}]\n", map[string]string{"t.tsv": "0 1 2\n"},
			[]string{"protocol.outer: given needs a data set with a fixed list of comparisons (aset400, generic, planted); a synthetic data set derives its comparisons from its taxonomy"}},
		{"bad line", all + "protocol: {outer: given, test_comparisons: t.tsv}\n" + gnmds, map[string]string{"t.tsv": "0 1 2\n3 x 4\n"},
			[]string{"protocol.test_comparisons: data: DIR/t.tsv:2:2: item index must be an integer", `got "x"`}},
		{"index out of range", all + "protocol: {outer: given, test_comparisons: t.tsv}\n" + gnmds, map[string]string{"t.tsv": "0 1 2\n3 4 90\n"},
			[]string{"DIR/t.tsv:2:3: item index must be < 90 (there are 90 items, 0-based) (the data set has 90 items, numbered from 0 as its comparisons)"}},
		{"one-based as the data set", generic("DIR/d.tsv", ", one_based: true") + "protocol: {outer: given, test_comparisons: t.tsv}\n" + gnmds, map[string]string{"d.tsv": "1 2 3\n2 3 4\n", "t.tsv": "1 2 3\n0 1 2\n"},
			[]string{"DIR/t.tsv:2:1: item index must be >= 1 (indices are 1-based)"}},
		{"empty test set", all + "protocol: {outer: given, test_comparisons: t.tsv}\n" + gnmds, map[string]string{"t.tsv": "i\tj\tk\n# none\n"},
			[]string{"protocol.test_comparisons: DIR/t.tsv holds no comparison; a given test set must hold at least one"}},
		{"no training left", generic("DIR/d.tsv", "") + "protocol: {outer: given, test_comparisons: t.tsv}\n" + gnmds, map[string]string{"d.tsv": "0 1 2\n3 4 5\n", "t.tsv": "0 1 2\n3 5 4\n"},
			[]string{"protocol.test_comparisons: no training comparison is left: each of the data set's 2 comparisons asks a question of the 2 in DIR/t.tsv"}},
		{"item holdout holds out nothing", all + "protocol: {outer: given, holdout: items, test_comparisons: t.tsv}\n" + clean, map[string]string{"t.tsv": "0 1 2\n"},
			[]string{"protocol.test_comparisons: under protocol.holdout items the held-out items are those of the test comparisons in no training comparison, and DIR/t.tsv has none"}},
		{"item holdout, held-out item not an anchor", generic("DIR/d.tsv", "") + "protocol: {outer: given, holdout: items, test_comparisons: t.tsv, inner_folds: 2}\n" + clean, map[string]string{"d.tsv": "0 1 2\n1 2 3\n2 3 4\n", "t.tsv": "5 0 1\n0 5 1\n"},
			[]string{"protocol.test_comparisons: DIR/t.tsv:2: under protocol.holdout items a held-out item (one in no training comparison) may only be the anchor i of a triplet (i,j,k) with j and k training items (Sec. 5.1), got (0,5,1) with held-out item 5"}},
		{"identity kernel, item holdout", all + "protocol: {outer: given, holdout: items, test_comparisons: t.tsv}\n" + gnmds, map[string]string{"t.tsv": "0 1 2\n"},
			[]string{"kernels[0].type: identity (GNMDS) has no out-of-sample extension"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := t.TempDir()
			sub := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
			for name, body := range test.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := filepath.Join(dir, "c.yaml")
			if err := os.WriteFile(p, []byte(sub("beta_grid: [1]\n"+test.yaml)), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(p)
			if err == nil {
				_, err = Check(c)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range test.want {
				if !strings.Contains(err.Error(), sub(w)) {
					t.Errorf("error lacks %q:\n%v", sub(w), err)
				}
			}
		})
	}
}

// TestHeldoutFilesMatchFolds: under the drawn protocols (random and
// partition outer splits, item and comparison holdout) heldout.tsv and
// heldout-items.tsv hold the units pkg/cv's protocol deals, split by
// split and fold by fold, and the same config writes the same bytes.
func TestHeldoutFilesMatchFolds(t *testing.T) {
	trip, err := filepath.Abs(filepath.Join(tripletsDir, "triplets.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	all := readTriplets(t)
	kernels := "  - {name: clean, source: clean, type: rbf}\n"
	rows := "  - {method: native, kernel: clean}\n"
	for _, tc := range []struct {
		protocol string
		p        cv.Protocol
	}{
		{"{holdout: comparisons, splits: 2, test_fraction: 0.2, inner_folds: 3}", cv.Protocol{HoldOut: cv.HoldOutComparisons, Splits: 2, TestFraction: 0.2, InnerFolds: 3, Seed: 3}},
		{"{splits: 2, test_fraction: 0.25, inner_folds: 2}", cv.Protocol{Splits: 2, TestFraction: 0.25, InnerFolds: 2, Seed: 3}},
		{"{outer: partition, splits: 3, test_fraction: 0.3333333333333333, inner_folds: 2}", cv.Protocol{Partition: true, Splits: 3, TestFraction: 1.0 / 3, InnerFolds: 2, Seed: 3}},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			dir := t.TempDir()
			c := givenConfig(t, dir, trip, tc.protocol, kernels, rows)
			ds, err := c.loadAndCheckData()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(c.Output, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := writeHeldout(c, ds); err != nil {
				t.Fatal(err)
			}
			first := readFile(t, filepath.Join(c.Output, heldoutFile))
			h := readHeldout(t, c.Output)
			var hi map[[2]int][]int
			if tc.p.HoldOut == cv.HoldOutItems {
				hi = readHeldoutItems(t, c.Output)
			} else if _, err := os.Stat(filepath.Join(c.Output, heldoutItemsFile)); err == nil {
				t.Errorf("%s written under comparison holdout", heldoutItemsFile)
			}
			for s := 0; s < tc.p.Splits; s++ {
				for f := -1; f < tc.p.InnerFolds; f++ {
					id := cv.FoldID{Split: s, Fold: f}
					var want []data.Comparison
					if tc.p.HoldOut == cv.HoldOutComparisons {
						_, held := tc.p.Fold(len(all), id)
						for _, u := range held {
							want = append(want, all[u])
						}
					} else {
						train, held := tc.p.Fold(90, id)
						_, hc := data.SplitComparisons(all, train, held)
						items := append(append([]int(nil), train...), held...)
						for _, q := range hc {
							want = append(want, data.Comparison{I: items[q.I], J: items[q.J], K: items[q.K], L: items[q.L]})
						}
						if got := hi[[2]int{s, f}]; !slices.Equal(got, held) {
							t.Errorf("split %d fold %d: heldout-items.tsv %v, want %v", s, f, got, held)
						}
					}
					if got := h[[2]int{s, f}]; len(want) == 0 || !slices.Equal(got, want) {
						t.Errorf("split %d fold %d: heldout.tsv has %d comparisons, want pkg/cv's %d", s, f, len(got), len(want))
					}
				}
			}
			if err := writeHeldout(c, ds); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(readFile(t, filepath.Join(c.Output, heldoutFile)), first) {
				t.Error("heldout.tsv differs between two writes of the same config")
			}
		})
	}
}

// TestGivenDigestIsContents: the tasks of a given test set are named by
// the file's contents, not its path: a copy elsewhere plans the same task
// IDs, an edited file other ones.
func TestGivenDigestIsContents(t *testing.T) {
	trip, err := filepath.Abs(filepath.Join(tripletsDir, "triplets.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	plan := func(dir, body string) []string {
		if err := os.WriteFile(filepath.Join(dir, "test.tsv"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c := givenConfig(t, dir, trip, "{outer: given, test_comparisons: test.tsv, inner_folds: 2}",
			"  - {name: identity, type: identity}\n", "  - {label: GNMDS, method: k1, kernel: identity, mode: full}\n")
		var ids []string
		for _, task := range Plan(c) {
			ids = append(ids, task.ID)
		}
		return ids
	}
	a := plan(t.TempDir(), "0 1 2\n3 4 5\n")
	if b := plan(t.TempDir(), "0 1 2\n3 4 5\n"); !slices.Equal(a, b) {
		t.Errorf("the same file elsewhere plans %v, want %v", b, a)
	}
	if b := plan(t.TempDir(), "0 1 2\n3 5 4\n"); slices.ContainsFunc(b, func(id string) bool { return slices.Contains(a, id) }) {
		t.Errorf("an edited file plans %v, which shares IDs with %v", b, a)
	}
}
