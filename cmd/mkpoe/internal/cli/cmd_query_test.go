package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/query"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// handModel is a K4 model written by hand on fitFixture's items (x = 0, 1,
// 2, 4) with two kernels: K¹ = xxᵀ + 1 (fitFixture's) and K² = I. Its
// projections N¹ = [0 1 0 0] and N² = [1 0 0 0] give
// g(x) = (N¹K¹_x, N²K²_x) = (1 + x, [x is item 0]) (Sec. 4.3): training
// items (1,1), (2,0), (3,0), (5,0). A new item at x = 3 has rows
// K¹_x = (1,4,7,13) and K²_x = 0, so g = (4, 0).
const handModel = `{"format": "mkpoe-model/1", "input": "kernels", "mode": "full", "combine": "separate",
 "beta": 1, "solver": "accelerated", "n": 4, "num_inputs": 2, "objective": 0, "dual_bound": 0,
 "relative_gap": 0, "iterations": 0, "converged": true, "seconds": 0, "block_dims": [4, 4],
 "objective_trace": [],
 "W": [[[0,0,0,0],[0,1,0,0],[0,0,0,0],[0,0,0,0]], [[1,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]],
 "projection": [[[0,1,0,0]], [[1,0,0,0]]],
 "train_embedding": [[1,1],[2,0],[3,0],[5,0]]}`

// queryFixture writes fitFixture's files, the identity kernel and its zero
// row for the new item, k(x,x) = 3² + 1 = 10 of the new item, an items
// file and handModel.
func queryFixture(t *testing.T) (dir, kernel, rows, ident, identRows, self, items, model string) {
	dir, kernel, _, rows = fitFixture(t)
	ident = writeFile(t, dir, "ident.tsv", "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n")
	identRows = writeFile(t, dir, "identrows.tsv", "0 0 0 0\n")
	self = writeFile(t, dir, "self.tsv", "10\n")
	items = writeFile(t, dir, "items.tsv", "id\tname\na\tAlpha\nb\tBeta\nc\tGamma\nd\tDelta Dawn\n")
	model = writeFile(t, dir, "hand.json", handModel)
	return
}

// TestQueryHandChecked checks every table against distances computed by
// hand (in the comments): the native space of K = xxᵀ + 1 on x = 0, 1, 2,
// 4, where d(i,j) = |x_i − x_j|, and handModel's embedding.
func TestQueryHandChecked(t *testing.T) {
	dir, kernel, rows, ident, identRows, self, items, model := queryFixture(t)
	_ = dir
	native := "the native space of " + kernel
	inModel := "the embedding of model " + model + " (2 dimensions)"
	for _, test := range []struct {
		name string
		args []string
		want string
	}{
		{"native, by index, unnamed", []string{"--kernel", kernel, "--item", "0"},
			// From x=0: 1, 2, 4.
			"nearest 3 of 3 items to 0 (train) in " + native + "\n" +
				"rank  index  name  distance\n1     1      -     1\n2     2      -     2\n3     3      -     4\n"},
		{"native, by name, k=2", []string{"--kernel", kernel, "--items", items, "--item", "delta dawn", "-k", "2"},
			// From x=4: item 2 at 2, item 1 at 3.
			"nearest 2 of 3 items to 3 \"Delta Dawn\" (train) in " + native + "\n" +
				"rank  index  name   distance\n1     2      Gamma  2\n2     1      Beta   3\n"},
		{"native, by id", []string{"--kernel", kernel, "--items", items, "--item", "b", "-k", "1"},
			// From x=1: items 0 and 2 both at 1: the tie goes to the smaller index.
			"nearest 1 of 3 items to 1 \"Beta\" (train) in " + native + "\n" +
				"rank  index  name   distance\n1     0      Alpha  1\n(1 more items tie with rank 1 at distance 1)\n"},
		{"native, a new item", []string{"--kernel", kernel, "--kernel-rows", rows, "--kernel-self", self, "--items", items, "-k", "3"},
			// x=3: √(10 + K_jj − 2k(x,x_j)) = |3 − x_j|: items 2 and 3 at 1, item 1 at 2.
			"nearest 3 of 4 items to 4 \"new:0\" (new) in " + native + "\n" +
				"rank  index  name        distance\n1     2      Gamma       1\n2     3      Delta Dawn  1\n3     1      Beta        2\n"},
		{"native sum of two kernels", []string{"--kernel", kernel, "--kernel", ident, "--item", "1", "-k", "2"},
			// K + I adds I_ii + I_jj − 2I_ij = 2 to the squared distance of two
			// distinct items: √(1+2) to both neighbours of x=1.
			"nearest 2 of 3 items to 1 (train) in the native space of " + kernel + " + " + ident + "\n" +
				"rank  index  name  distance\n1     0      -     1.73205\n2     2      -     1.73205\n"},
		{"sum of two kernels with a new item", []string{"--kernel", kernel, "--kernel", ident, "--kernel-rows", rows, "--kernel-rows", identRows,
			"--kernel-self", self, "--kernel-self", writeFile(t, dir, "one.tsv", "1\n"), "-k", "1"},
			// (3 − x_j)² + 1 + 1 − 0 (k(x,x) = 1 and a zero row against I):
			// item 2 at √3, tied with item 3.
			"nearest 1 of 4 items to 4 \"new:0\" (new) in the native space of " + kernel + " + " + ident + "\n" +
				"rank  index  name  distance\n1     2      -     1.73205\n(1 more items tie with rank 1 at distance 1.73205)\n"},
		{"model, two queries", []string{"--model", model, "--items", items, "--item", "Alpha", "--item", "GAMMA"},
			// From (1,1): (2,0) √2, (3,0) √5, (5,0) √17. From (3,0): 1, 2, √5.
			"nearest 3 of 3 items to 0 \"Alpha\" (train) in " + inModel + "\n" +
				"rank  index  name        distance\n1     1      Beta        1.41421\n2     2      Gamma       2.23607\n3     3      Delta Dawn  4.12311\n" +
				"\nnearest 3 of 3 items to 2 \"Gamma\" (train) in " + inModel + "\n" +
				"rank  index  name        distance\n1     1      Beta        1\n2     3      Delta Dawn  2\n3     0      Alpha       2.23607\n"},
		{"model, a new item among all", []string{"--model", model, "--kernel-rows", rows, "--kernel-rows", identRows, "--items", items, "--item", "0"},
			// g(new) = (4,0) is √10 from (1,1): after Gamma (√5), before Delta Dawn (√17).
			"nearest 4 of 4 items to 0 \"Alpha\" (train) in " + inModel + "\n" +
				"rank  index  name         distance\n1     1      Beta         1.41421\n2     2      Gamma        2.23607\n" +
				"3     4      new:0 (new)  3.16228\n4     3      Delta Dawn   4.12311\n"},
		{"model, the new item by name", []string{"--model", model, "--kernel-rows", rows, "--kernel-rows", identRows, "--item", "new:0", "-k", "3"},
			// From (4,0): (3,0) 1 and (5,0) 1, then (2,0) 2.
			"nearest 3 of 4 items to 4 \"new:0\" (new) in " + inModel + "\n" +
				"rank  index  name  distance\n1     2      -     1\n2     3      -     1\n3     1      -     2\n"},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, out, errs := run(append([]string{"query"}, test.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if out != test.want+backendLine {
				t.Errorf("output\n%s\nwant\n%s", out, test.want)
			}
		})
	}
}

// TestQueryJSON checks the documented schema (docs/query.md) field by field
// on the hand-checked model, and that the JSON decodes with no field left
// over.
func TestQueryJSON(t *testing.T) {
	_, _, rows, _, identRows, _, items, model := queryFixture(t)
	code, out, errs := run("query", "--model", model, "--kernel-rows", rows, "--kernel-rows", identRows, "--items", items, "--item", "new:0", "-k", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got query.Output
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	want := query.Output{Format: "mkpoe-query/1", Space: "model", Model: model, KernelRows: []string{rows, identRows}, K: 1, Candidates: 5,
		Queries: []query.Result{{Query: "new:0", Index: 4, Name: "new:0", Kind: "new", Ranked: 4, TiedBeyondK: 1,
			Neighbors: []query.Neighbor{{Rank: 1, Index: 2, Name: "Gamma", Kind: "train", Distance: 1, SquaredDistance: 1}}}}}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// The key names and their order are the documented schema.
	for _, key := range []string{`"format": "mkpoe-query/1"`, `"space": "model"`, `"model": `, `"kernel_rows": [`, `"k": 1`, `"candidates": 5`,
		`"queries": [`, `"query": "new:0"`, `"index": 4`, `"name": "new:0"`, `"kind": "new"`, `"ranked": 4`, `"neighbors": [`,
		`"rank": 1`, `"distance": 1`, `"squared_distance": 1`, `"tied_beyond_k": 1`} {
		if !strings.Contains(out, key) {
			t.Errorf("JSON lacks %s:\n%s", key, out)
		}
	}
	for _, absent := range []string{`"kernels"`, `"run"`, `"row"`, `"split"`} {
		if strings.Contains(out, absent) {
			t.Errorf("JSON of a model query has %s:\n%s", absent, out)
		}
	}
}

// TestQueryRunDir queries a finished run's refit model by the global
// numbering of items.json, held-out items included, and checks the
// neighbours against distances computed here from the model file and
// models/<id>.test.tsv.
func TestQueryRunDir(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	if code, _, errs := run("run", writeFile(t, dir, "tiny.yaml", tinyConfig), "--out", runDir, "--no-report", "--workers", "2"); code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	sum, err := results.DecodeSummary(readFile(t, filepath.Join(runDir, "summary.json")), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	items, err := results.DecodeItems(readFile(t, filepath.Join(runDir, "items.json")), "items.json")
	if err != nil {
		t.Fatal(err)
	}
	// Without --row a run with several learned rows names them.
	code, _, errs := run("query", "--run", runDir, "--item", "0")
	if code != 2 || !strings.Contains(errs, "--row is required: the run has 3 learned rows") {
		t.Errorf("no --row: exit %d, stderr %q", code, errs)
	}
	row := sum.Rows[4] // k4 full
	const split = 1
	m, err := readModel(filepath.Join(runDir, row.Models[split]))
	if err != nil {
		t.Fatal(err)
	}
	held, err := data.ReadMatrixFile(filepath.Join(runDir, strings.TrimSuffix(row.Models[split], ".json")+".test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	// Global item → its embedding row.
	train, test := items.Splits[split].Train, items.Splits[split].Test
	vec := map[int][]float64{}
	for r, g := range train {
		vec[g] = mat.Row(nil, r, m.Train)
	}
	for r, g := range test {
		vec[g] = mat.Row(nil, r, held)
	}
	for _, q := range []int{test[0], train[3]} {
		t.Run(items.Names[q], func(t *testing.T) {
			code, out, errs := run("query", "--run", runDir, "--row", row.Label, "--split", "1", "--item", items.Names[q], "-k", "5", "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got query.Output
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if got.Space != "run" || got.Row != row.Label || got.Split == nil || *got.Split != 1 || got.Candidates != len(train)+len(test) || len(got.Queries) != 1 {
				t.Fatalf("header %+v", got)
			}
			res := got.Queries[0]
			wantKind := map[bool]string{true: "test", false: "train"}[q == test[0]]
			if res.Index != q || res.Name != items.Names[q] || res.Kind != wantKind {
				t.Errorf("query %d %q %s, want %d %q %s", res.Index, res.Name, res.Kind, q, items.Names[q], wantKind)
			}
			// The 5 nearest by a direct computation over every other item.
			type cand struct {
				g  int
				d2 float64
			}
			var all []cand
			for g, v := range vec {
				if g != q {
					s := 0.0
					for c := range v {
						s += (v[c] - vec[q][c]) * (v[c] - vec[q][c])
					}
					all = append(all, cand{g, s})
				}
			}
			sort.Slice(all, func(a, b int) bool {
				if all[a].d2 != all[b].d2 {
					return all[a].d2 < all[b].d2
				}
				return all[a].g < all[b].g
			})
			for r, nb := range res.Neighbors {
				w := all[r]
				if nb.Index != w.g || nb.Name != items.Names[w.g] || math.Abs(nb.SquaredDistance-w.d2) > 1e-12*(1+w.d2) || math.Abs(nb.Distance-math.Sqrt(w.d2)) > 1e-12 {
					t.Errorf("rank %d: %+v, want item %d %q at squared distance %v", r+1, nb, w.g, items.Names[w.g], w.d2)
				}
			}
			if len(res.Neighbors) != 5 {
				t.Errorf("%d neighbours, want 5", len(res.Neighbors))
			}
		})
	}
}

// TestQueryRunNativeRow: a run's native row is queried in its kernels'
// space, rebuilt on the split from the run's config and data: items are
// numbered as items.json numbers them, training items are the candidates,
// and the distances are those of the rebuilt kernels
// (experiments.RunNativeSpace, whose scores match the run's).
func TestQueryRunNativeRow(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	if code, _, errs := run("run", writeFile(t, dir, "tiny.yaml", tinyConfig), "--out", runDir, "--no-report", "--workers", "2"); code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	items, err := results.DecodeItems(readFile(t, filepath.Join(runDir, "items.json")), "items.json")
	if err != nil {
		t.Fatal(err)
	}
	const split = 1
	ns, err := experiments.RunNativeSpace(runDir, "both native", split)
	if err != nil {
		t.Fatal(err)
	}
	train, test := items.Splits[split].Train, items.Splits[split].Test
	pos := map[int]int{} // global item → its position among train, then test
	for r, g := range append(append([]int(nil), train...), test...) {
		pos[g] = r
	}
	// k(a, b) in the sum of the rebuilt kernels (a a training item unless a = b).
	k := func(a, b int) float64 {
		s := 0.0
		for p := range ns.Grams {
			pa, pb := pos[a], pos[b]
			switch {
			case a == b && pa >= len(train):
				s += ns.Self[p][pa-len(train)]
			case pb >= len(train):
				s += ns.Rows[p].At(pb-len(train), pa)
			default:
				s += ns.Grams[p].At(pa, pb)
			}
		}
		return s
	}
	for _, q := range []int{test[0], train[3]} {
		code, out, errs := run("query", "--run", runDir, "--row", "BOTH native", "--split", "1", "--item", items.Names[q], "-k", "4", "--json")
		if code != 0 {
			t.Fatalf("query %d: exit %d: %s", q, code, errs)
		}
		if want := `mkpoe query: row "BOTH native" is native: rebuilding its kernels on split 1 from ` + filepath.Join(runDir, "config.resolved.yaml") + " and its data (a run stores no kernels)\n"; !strings.HasPrefix(errs, want) {
			t.Errorf("stderr %q, want it to start with %q", errs, want)
		}
		var got query.Output
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Space != "run" || got.Row != "both native" || got.Split == nil || *got.Split != split || got.Candidates != len(train) || len(got.Queries) != 1 {
			t.Fatalf("header %+v", got)
		}
		res := got.Queries[0]
		wantKind := map[bool]string{true: "test", false: "train"}[q == test[0]]
		if res.Index != q || res.Kind != wantKind || len(res.Neighbors) != 4 {
			t.Errorf("query %d %s with %d neighbours, want %d %s with 4", res.Index, res.Kind, len(res.Neighbors), q, wantKind)
		}
		for r, nb := range res.Neighbors {
			d2 := k(q, q) + k(nb.Index, nb.Index) - 2*k(nb.Index, q)
			if nb.Kind != "train" || math.Abs(nb.SquaredDistance-d2) > 1e-12*(1+d2) || (r > 0 && nb.SquaredDistance < res.Neighbors[r-1].SquaredDistance) {
				t.Errorf("rank %d: %+v, want a training item at squared distance %v, in increasing order", r+1, nb, d2)
			}
		}
	}
	// The table says which space it is.
	if code, out, _ := run("query", "--run", runDir, "--row", "good native", "--item", "0", "-k", "1"); code != 0 || !strings.Contains(out, `in row "good native" of run `+runDir+", split 0 (the native space of good, rebuilt from the run's config and data)\n") {
		t.Errorf("exit %d, table\n%s", code, out)
	}
	// A split that the config and data no longer give is refused.
	items.Splits[1].Train, items.Splits[1].Test = items.Splits[1].Train[1:], append(items.Splits[1].Test, items.Splits[1].Train[0])
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, runDir, "items.json", string(b))
	code, _, errs := run("query", "--run", runDir, "--row", "good native", "--split", "1", "--item", "0")
	if want := fmt.Sprintf(`row "good native": the split rebuilt from the run's config and data (%d training, %d held-out items) is not the run's (%s splits[1]: %d and %d): the data or the config changed since the run`,
		len(train), len(test), filepath.Join(runDir, "items.json"), len(train)-1, len(test)+1); code != ExitUsage || !strings.Contains(errs, want) {
		t.Errorf("changed split: exit %d, stderr %q, want 2 and %q", code, errs, want)
	}
}

// TestQueryAset400 asks for the neighbours of Metallica among the 412
// aset400 artists in the social-tag kernel (TF-IDF cosine over Last.fm
// tags, built as configs/aset400_single_kernels.yaml builds it), in the
// genre kernel, and in a model learned from the 9107 triplets, and checks
// them against the genre labels of data/aset400.
func TestQueryAset400(t *testing.T) {
	for _, set := range []string{"aset400", "lastfm-hetrec2011"} {
		if _, err := os.Stat(filepath.Join(repoRoot, "data", set)); err != nil {
			t.Skipf("data/%s absent: run scripts/fetch_aset400.sh (or with --mirror ../shared/data)", set)
		}
	}
	a, err := data.LoadAset400(filepath.Join(repoRoot, "data", "aset400"))
	if err != nil {
		t.Fatal(err)
	}
	lf, err := data.LoadLastFM(filepath.Join(repoRoot, "data", "lastfm-hetrec2011"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, genre, itemsFile, triplets := aset400QueryFiles(t, dir, a, lf)
	labels := func(i int) []string {
		var gs []string
		for c, name := range a.GenreNames {
			if a.GenreLabels.At(i, c) != 0 {
				gs = append(gs, name)
			}
		}
		return gs
	}
	ask := func(args ...string) query.Result {
		t.Helper()
		code, out, errs := run(append([]string{"query", "--items", itemsFile, "--item", "Metallica", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("query %v: exit %d: %s", args, code, errs)
		}
		var got query.Output
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		return got.Queries[0]
	}
	count := func(res query.Result, pred func(genre string) bool) (n int, names []string) {
		for _, nb := range res.Neighbors {
			for _, g := range labels(nb.Index) {
				if pred(g) {
					n++
					names = append(names, nb.Name)
					break
				}
			}
		}
		return n, names
	}

	// Social tags: Last.fm users' tags know nothing of the genre labels,
	// yet the artists users tag like Metallica are metal bands. Only 27 of
	// the 412 artists carry the "heavy metal" label (6.6%, 0.7 of 10 by
	// chance); the tag space puts at least 8 of them among Metallica's 10
	// nearest (10 at the time of writing: Ozzy Osbourne, Black Sabbath,
	// Iron Maiden, …).
	res := ask("--kernel", st)
	if res.Name != "Metallica" || len(res.Neighbors) != 10 {
		t.Fatalf("query %q with %d neighbours", res.Name, len(res.Neighbors))
	}
	if n, names := count(res, func(g string) bool { return g == "heavy metal" }); n < 8 {
		t.Errorf("social tags: %d of Metallica's 10 nearest are labelled heavy metal (%v), want >= 8", n, names)
	}
	if _, table, _ := run("query", "--items", itemsFile, "--item", "Metallica", "--kernel", st); testing.Verbose() {
		t.Logf("social tags (docs/query.md shows this table):\n%s", table)
	}

	// Genre kernel (cosine of the 0/1 label vectors): distance 0 means the
	// very same label set, here {hard rock, heavy metal}. The neighbours
	// at distance 0 are exactly those artists, by index.
	res = ask("--kernel", genre, "-k", "20")
	var same []int
	for i := range a.Names {
		if i != res.Index && strings.Join(labels(i), ",") == strings.Join(labels(res.Index), ",") {
			same = append(same, i)
		}
	}
	var zero []int
	for _, nb := range res.Neighbors {
		if nb.Distance == 0 {
			zero = append(zero, nb.Index)
		}
	}
	if len(same) == 0 || fmt.Sprint(zero) != fmt.Sprint(same) {
		t.Errorf("genre kernel: items at distance 0 %v, want the artists labelled exactly %v: %v", zero, labels(res.Index), same)
	}

	if testing.Short() {
		return
	}
	// A diagonal K1 model learned from all triplets on the tag kernel
	// (0.3 s): its space is shaped by what listeners judged similar. 44 of
	// the 412 artists carry a genre label with "metal" in it (10.7%); at
	// least 7 of Metallica's 10 nearest must (9 at the time of writing).
	model := filepath.Join(dir, "st.json")
	if code, _, errs := run("fit", "--kernel", st, "--comparisons", triplets, "--beta", "1000", "--mode", "diag", "--out", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errs)
	}
	res = ask("--model", model)
	if n, names := count(res, func(g string) bool { return strings.Contains(g, "metal") }); n < 7 {
		t.Errorf("learned space: %d of Metallica's 10 nearest have a metal genre (%v), want >= 7", n, names)
	}
}

// aset400QueryFiles writes the social-tag and genre kernels of aset400 (as
// the shipped configs build them on all items), an items file (id: the
// cblearn name, name: the display name) and the triplets, 0-based.
func aset400QueryFiles(t testing.TB, dir string, a *data.Aset400, lf *data.LastFM) (st, genre, items, triplets string) {
	n := len(a.Names)
	missing, noGenre := make([]bool, n), make([]bool, n)
	for i := 0; i < n; i++ {
		missing[i] = !lf.Present[i]
		noGenre[i] = mat.Sum(a.GenreLabels.RowView(i)) == 0
	}
	tags, err := kernels.Fit(kernels.TFIDF{}, kernels.Input{Counts: lf.TagCounts, Missing: missing}, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lin, err := kernels.New("linear", nil)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := kernels.Fit(lin, kernels.Input{Features: a.GenreLabels, Missing: noGenre}, kernels.Options{Normalize: kernels.NormDiag})
	if err != nil {
		t.Fatal(err)
	}
	st, genre = filepath.Join(dir, "st.npy"), filepath.Join(dir, "genre.npy")
	for path, g := range map[string]mat.Matrix{st: tags.Gram(), genre: gen.Gram()} {
		if err := data.WriteMatrixFile(path, g); err != nil {
			t.Fatal(err)
		}
	}
	var b, c bytes.Buffer
	b.WriteString("id\tname\n")
	for i, id := range a.Names {
		name := a.DisplayNames[i]
		if name == "" {
			name = id
		}
		fmt.Fprintf(&b, "%s\t%s\n", id, name)
	}
	for _, cmp := range a.Comparisons {
		fmt.Fprintf(&c, "%d %d %d %d\n", cmp.I, cmp.J, cmp.K, cmp.L)
	}
	items, triplets = filepath.Join(dir, "items.tsv"), filepath.Join(dir, "triplets.tsv")
	for path, text := range map[string][]byte{items: b.Bytes(), triplets: c.Bytes()} {
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return st, genre, items, triplets
}

// BenchmarkQueryAset400 times mkpoe query on aset400 (412 artists): the
// whole command (reading the files, ranking, writing the table) in the
// social-tag kernel's native space and in a diagonal K4 model of the tag
// and genre kernels (165 dimensions), and the ranking alone.
//
//	go test ./cmd/mkpoe/internal/cli -run '^$' -bench QueryAset400
func BenchmarkQueryAset400(b *testing.B) {
	if _, err := os.Stat(filepath.Join(repoRoot, "data")); err != nil {
		b.Skip("data/ absent: run scripts/fetch_aset400.sh (or with --mirror ../shared/data)")
	}
	a, err := data.LoadAset400(filepath.Join(repoRoot, "data", "aset400"))
	if err != nil {
		b.Fatal(err)
	}
	lf, err := data.LoadLastFM(filepath.Join(repoRoot, "data", "lastfm-hetrec2011"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	st, genre, items, triplets := aset400QueryFiles(b, dir, a, lf)
	model := filepath.Join(dir, "k4.json")
	if code, _, errs := run("fit", "--kernel", st, "--kernel", genre, "--comparisons", triplets, "--beta", "1000", "--mode", "diag", "--out", model); code != 0 {
		b.Fatalf("fit: exit %d: %s", code, errs)
	}
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"native", []string{"--kernel", st}},
		{"model", []string{"--model", model}},
	} {
		b.Run("command "+bc.name, func(b *testing.B) {
			args := append([]string{"query", "--items", items, "--item", "Metallica"}, bc.args...)
			for i := 0; i < b.N; i++ {
				if code, _, errs := run(args...); code != 0 {
					b.Fatalf("exit %d: %s", code, errs)
				}
			}
		})
	}
	m, err := readModel(model)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ranking", func(b *testing.B) {
		d := eval.EmbeddingDistance(m.Train)
		for i := 0; i < b.N; i++ {
			eval.Nearest(d, m.N, 229, 10)
		}
	})
}
