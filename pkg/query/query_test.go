package query

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// handModel is a K4 model written by hand on the items x = 0, 1, 2, 4 with
// two kernels: K¹ = xxᵀ + 1 and K² = I. Its projections N¹ = [0 1 0 0] and
// N² = [1 0 0 0] give g(x) = (N¹K¹_x, N²K²_x) = (1 + x, [x is item 0])
// (Sec. 4.3): training items (1,1), (2,0), (3,0), (5,0). A new item at
// x = 3 has rows K¹_x = (1,4,7,13) and K²_x = 0, so g = (4, 0).
// (The same model as the CLI's TestQueryHandChecked.)
const handModel = `{"format": "mkpoe-model/1", "input": "kernels", "mode": "full", "combine": "separate",
 "beta": 1, "solver": "accelerated", "n": 4, "num_inputs": 2, "objective": 0, "dual_bound": 0,
 "relative_gap": 0, "iterations": 0, "converged": true, "seconds": 0, "block_dims": [4, 4],
 "objective_trace": [],
 "W": [[[0,0,0,0],[0,1,0,0],[0,0,0,0],[0,0,0,0]], [[1,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]],
 "projection": [[[0,1,0,0]], [[1,0,0,0]]],
 "train_embedding": [[1,1],[2,0],[3,0],[5,0]]}`

// files writes the fixture: handModel, K¹ = xxᵀ + 1 on x = 0, 1, 2, 4, its
// row and k(x,x) = 10 for a new item at x = 3, K² = I and its zero row, and
// an items file.
type files struct{ model, kernel, rows, self, ident, identRows, items string }

func writeFiles(t *testing.T) files {
	t.Helper()
	dir := t.TempDir()
	w := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return files{
		model:     w("hand.json", handModel),
		kernel:    w("k.tsv", "1 1 1 1\n1 2 3 5\n1 3 5 9\n1 5 9 17\n"),
		rows:      w("rows.tsv", "1 4 7 13\n"),
		self:      w("self.tsv", "10\n"),
		ident:     w("ident.tsv", "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"),
		identRows: w("identrows.tsv", "0 0 0 0\n"),
		items:     w("items.tsv", "id\tname\na\tAlpha\nb\tBeta\nc\tGamma\nd\tDelta Dawn\n"),
	}
}

// neighbours formats a result as "index:distance" pairs.
func neighbours(res Result) string {
	var parts []string
	for _, nb := range res.Neighbors {
		parts = append(parts, fmt.Sprintf("%d:%g", nb.Index, nb.Distance))
	}
	return strings.Join(parts, " ")
}

// TestSpacesHandChecked checks each constructor's distances against values
// worked out by hand (in the comments).
func TestSpacesHandChecked(t *testing.T) {
	t.Parallel()
	f := writeFiles(t)
	model, err := FromModel(f.model, []string{f.rows, f.identRows}, f.items)
	if err != nil {
		t.Fatal(err)
	}
	native, err := FromKernels([]string{f.kernel}, []string{f.rows}, []string{f.self}, f.items)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := FromKernels([]string{f.kernel, f.ident}, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name      string
		sp        *Space
		q         string
		k         int
		want      string // index:distance, nearest first
		ranked    int
		tied      int
		kind      string
		total     int
		candidate int
	}{
		// g = (1,1), (2,0), (3,0), (5,0) and the new item (4,0).
		{"model train", model, "Alpha", 2, "1:1.4142135623730951 2:2.23606797749979", 4, 0, KindTrain, 5, 5},
		{"model new", model, "new:0", 1, "2:1", 4, 1, KindNew, 5, 5}, // items 2 and 3 both at 1
		{"model by id", model, "d", 4, "4:1 2:2 1:3 0:4.123105625617661", 4, 0, KindTrain, 5, 5},
		// d(i,j) = |x_i − x_j| on x = 0, 1, 2, 4; the new item at x = 3 ranks
		// against the four kernel items only.
		{"native", native, "gamma", 3, "1:1 0:2 3:2", 3, 0, KindTrain, 5, 4},
		{"native new", native, "new:0", 2, "2:1 3:1", 4, 0, KindNew, 5, 4},
		// K¹ + I adds √2 between distinct items: d² = (x_i − x_j)² + 2.
		{"sum", sum, "0", 1, "1:1.7320508075688772", 3, 0, KindTrain, 4, 4},
	} {
		t.Run(test.name, func(t *testing.T) {
			out, err := test.sp.Query([]string{test.q}, test.k)
			if err != nil {
				t.Fatal(err)
			}
			res := out.Queries[0]
			if got := neighbours(res); got != test.want || res.Ranked != test.ranked || res.TiedBeyondK != test.tied || res.Kind != test.kind {
				t.Errorf("%s: %s (ranked %d, tied %d, %s), want %s (%d, %d, %s)", test.q, got, res.Ranked, res.TiedBeyondK, res.Kind, test.want, test.ranked, test.tied, test.kind)
			}
			if test.sp.Total() != test.total || test.sp.Candidates() != test.candidate || out.Candidates != test.candidate {
				t.Errorf("total %d, candidates %d; want %d, %d", test.sp.Total(), test.sp.Candidates(), test.total, test.candidate)
			}
			for _, nb := range res.Neighbors {
				if math.Abs(nb.Distance*nb.Distance-nb.SquaredDistance) > 1e-12 {
					t.Errorf("neighbour %d: distance %g, squared %g", nb.Index, nb.Distance, nb.SquaredDistance)
				}
			}
		})
	}
	if out, _ := model.Query(nil, 1); len(out.Queries) != 1 || out.Queries[0].Query != "new:0" || out.Space != "model" || out.Model != f.model || len(out.KernelRows) != 2 {
		t.Errorf("no queries: %+v", out)
	}
	if got := native.Desc(); got != "the native space of "+f.kernel {
		t.Errorf("Desc: %q", got)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	names := []string{"Alpha", "beta", "Beta", "112", "Gamma ray", "", "alphabet"}
	sp := NewEmbedding(mat.NewDense(8, 1, []float64{0, 1, 2, 3, 4, 5, 6, 7}), 7, names)
	unnamed := NewEmbedding(mat.NewDense(3, 1, []float64{0, 1, 2}), 3, nil)
	bands := NewEmbedding(mat.NewDense(4, 1, []float64{0, 1, 2, 3}), 4, []string{"Metallica", "Megadeth", "Metal Church", "Mötley Crüe"})
	for _, test := range []struct {
		sp   *Space
		q    string
		want int
		err  string
	}{
		{sp, "0", 0, ""},
		{sp, "7", 7, ""}, // the new item, by index
		{sp, "new:0", 7, ""},
		{sp, "Alpha", 0, ""},
		{sp, "ALPHA", 0, ""}, // ignoring case when no exact match
		{sp, "beta", 1, ""},  // exact first
		{sp, "BETA", 0, "2 items have this name, give an index: 1 \"beta\", 2 \"Beta\""},
		{sp, "name:112", 3, ""}, // a name that looks like an index
		{sp, "112", 0, "an index must be in 0..7 (0-based), got 112 (an item is named 112: write --item name:112)"},
		{sp, "-1", 0, "an index must be in 0..7"},
		{sp, "alp", 0, "names containing it: 0 \"Alpha\", 6 \"alphabet\""},
		{sp, "zeta", 0, `no item has this name (matched whole, ignoring case), and no name contains it; did you mean 1 "beta", 2 "Beta"?`},
		{sp, "omega", 0, "no item has this name (matched whole, ignoring case), and no name contains it\x00"}, // nothing close: no suggestion
		{sp, "Alpah", 0, `--item "Alpah": no item has this name (matched whole, ignoring case), and no name contains it; did you mean 0 "Alpha"?` + "\x00"},
		{bands, "Metalica", 0, `--item "Metalica": no item has this name (matched whole, ignoring case), and no name contains it; did you mean 0 "Metallica"?` + "\x00"},
		{bands, "metal", 0, `names containing it: 0 "Metallica", 2 "Metal Church"` + "\x00"},
		{bands, "Metalica Church", 0, `no name contains it; did you mean 2 "Metal Church"?`},
		{bands, "motley crue", 0, `did you mean 3 "Mötley Crüe"?`},
		{sp, "name: ", 0, "give a 0-based index or a name"},
		{unnamed, "x", 0, "the items have no names (give --items FILE to name them)"},
	} {
		got, err := test.sp.Resolve(test.q)
		switch {
		case test.err == "" && (err != nil || got != test.want):
			t.Errorf("Resolve(%q) = %d, %v; want %d", test.q, got, err, test.want)
		case test.err != "" && (err == nil || !strings.Contains(err.Error()+"\x00", test.err)): // \x00 marks the end
			t.Errorf("Resolve(%q): error %v, want one containing %q", test.q, err, test.err)
		}
	}
	if _, err := sp.Query([]string{"0", "zeta"}, 1); err == nil {
		t.Error("Query with an unknown item: no error")
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"metalica", "metallica", 1}, {"kitten", "sitting", 3},
		{"alpah", "alpha", 2}, {"motley crue", "mötley crüe", 2}, {"flaw", "lawn", 2},
	} {
		if got, back := editDistance(test.a, test.b), editDistance(test.b, test.a); got != test.want || back != test.want {
			t.Errorf("editDistance(%q, %q) = %d (%d reversed), want %d", test.a, test.b, got, back, test.want)
		}
	}
}

func TestResolveSuggestionsCapped(t *testing.T) {
	t.Parallel()
	names := make([]string, 30)
	for i := range names {
		names[i] = "Item"
	}
	sp := NewEmbedding(mat.NewDense(30, 1, nil), 30, names)
	_, err := sp.Resolve("item")
	if err == nil || !strings.Contains(err.Error(), "30 items have this name") || !strings.HasSuffix(err.Error(), `9 "Item", and 20 more`) {
		t.Errorf("error %v", err)
	}
}

func TestFromFilesErrors(t *testing.T) {
	t.Parallel()
	f := writeFiles(t)
	dir := filepath.Dir(f.model)
	w := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	negSelf := w("neg.tsv", "-1\n")
	twoSelf := w("two.tsv", "10\n10\n")
	threeItems := w("three.tsv", "id\tname\na\tA\nb\tB\nc\tC\n")
	for _, test := range []struct {
		name string
		fn   func() (*Space, error)
		err  string
	}{
		{"model rows count", func() (*Space, error) { return FromModel(f.model, []string{f.rows}, "") }, "takes 2 files of new-item rows"},
		{"model items", func() (*Space, error) { return FromModel(f.model, nil, threeItems) }, "--items must list one item per training item of the model (4)"},
		{"model missing", func() (*Space, error) { return FromModel(filepath.Join(dir, "none.json"), nil, "") }, "reading model"},
		{"native self missing", func() (*Space, error) { return FromKernels([]string{f.kernel}, []string{f.rows}, nil, "") }, "one --kernel-rows and one --kernel-self per --kernel (1), got 1 and 0"},
		{"native self negative", func() (*Space, error) {
			return FromKernels([]string{f.kernel}, []string{f.rows}, []string{negSelf}, "")
		}, "k(x,x) must be >= 0"},
		{"native self count", func() (*Space, error) {
			return FromKernels([]string{f.kernel}, []string{f.rows}, []string{twoSelf}, "")
		}, "must hold k(x,x) of each of the 1 new items"},
		{"native sizes", func() (*Space, error) {
			return FromKernels([]string{f.kernel, w("k3.tsv", "1 0 0\n0 1 0\n0 0 1\n")}, nil, nil, "")
		}, "same size"},
		{"run missing", func() (*Space, error) { return FromRun(dir, "", 0) }, "not a finished run directory"},
	} {
		if _, err := test.fn(); err == nil || !strings.Contains(err.Error(), test.err) {
			t.Errorf("%s: error %v, want one containing %q", test.name, err, test.err)
		}
	}
}

func TestPickRow(t *testing.T) {
	t.Parallel()
	sum := &results.Summary{Rows: []results.Row{
		{Label: "native good", Method: "native"},
		{Label: "K4 diag", Method: "k4", Models: []string{"models/a.json"}},
		{Label: "K1 diag", Method: "k1", Models: []string{"models/b.json"}},
		{Label: "K4 none", Method: "k4"},
	}}
	for _, test := range []struct{ label, want, err string }{
		{"K1 diag", "K1 diag", ""},
		{"k1 DIAG", "K1 diag", ""}, // labels match case aside
		{"native good", "", "is a native row"},
		{"K4 none", "", "lists no refit models"},
		{"bogus", "", `no row is labelled "bogus"; the learned rows are "K4 diag", "K1 diag"`},
		{"", "", `--row is required: the run has 2 learned rows: "K4 diag", "K1 diag"`},
	} {
		r, err := pickRow(sum, test.label)
		switch {
		case test.err == "" && (err != nil || r.Label != test.want):
			t.Errorf("pickRow(%q): %v, %v", test.label, r, err)
		case test.err != "" && (err == nil || !strings.Contains(err.Error(), test.err)):
			t.Errorf("pickRow(%q): error %v, want one containing %q", test.label, err, test.err)
		}
	}
	one := &results.Summary{Rows: sum.Rows[:2]}
	if r, err := pickRow(one, ""); err != nil || r.Label != "K4 diag" {
		t.Errorf("the only learned row: %v, %v", r, err)
	}
}
