package data

import (
	"flag"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var taxSeed = flag.Uint64("taxseed", 1, "seed of the randomized taxonomy tests")

func TestParseTaxonomy(t *testing.T) {
	for _, test := range []struct {
		name, in, want string
	}{
		{"compact", "[[1,2],[3,[4,5]]]", "[[1,2],[3,[4,5]]]"},
		{"yaml flow", "[[1, 2], [3, [4, 5]]]", "[[1,2],[3,[4,5]]]"},
		{"comments and lines", "[ [1, 2], # fruit\n  3 ]", "[[1,2],3]"},
		{"block style under a key", "taxonomy:\n  - [1, 2]\n  - 3\n", "[[1,2],3]"},
		{"single leaf", "7", "7"},
		{"unary chain", "[[1],2]", "[[1],2]"},
		{"whole numbers written 2.0", "[[1, 2.0], 3e0]", "[[1,2],3]"},
	} {
		t.Run(test.name, func(t *testing.T) {
			tax, err := ParseTaxonomy(test.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := tax.String(); got != test.want {
				t.Errorf("got %s, want %s", got, test.want)
			}
			again, err := ParseTaxonomy(tax.String())
			if err != nil || again.String() != test.want {
				t.Errorf("round trip: got %v, %v", again, err)
			}
		})
	}
	for _, test := range []struct{ name, in, msg string }{
		{"unclosed", "[[1,2]", "line 1"},
		{"mismatched", "[[1,2)]", "line 1"},
		{"empty node", "[1,[]]", "internal node must have children"},
		{"duplicate label", "[[1,2],1]", "got 1 again"},
		{"not a number", "[1,x]", `line 1, column 4: root[1]: must be a class label (a whole number) or a list of subtrees, got "x"`},
		{"a fraction", "taxonomy:\n  - [1, 2]\n  - [3, 4.5]\n", `line 3, column 9: root[1][1]: must be a class label (a whole number) or a list of subtrees, got "4.5"`},
		{"a map", "fruit: [1, 2]", "line 1, column 1: root: must be a class label (a whole number) or a list of subtrees, got a mapping"},
		{"empty", "# nothing\n", "the file is empty"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := ParseTaxonomy(test.in)
			if err == nil || !strings.Contains(err.Error(), test.msg) {
				t.Errorf("got %v, want an error containing %q", err, test.msg)
			}
		})
	}
}

func TestTaxonomyFromNested(t *testing.T) {
	// As yaml.v3 decodes "[[1, 2], [3, [4, 5]]]" into an any.
	v := []any{[]any{1, 2}, []any{3, []any{4, 5}}}
	tax, err := TaxonomyFromNested(v)
	if err != nil || tax.String() != "[[1,2],[3,[4,5]]]" {
		t.Errorf("got %v, %v", tax, err)
	}
	if tax, err := TaxonomyFromNested([][]int{{1, 2}, {3}}); err != nil || tax.String() != "[[1,2],[3]]" {
		t.Errorf("[][]int: got %v, %v", tax, err)
	}
	if _, err := TaxonomyFromNested([]any{1, "b"}); err == nil || !strings.Contains(err.Error(), "root[1]") {
		t.Errorf("string label: got %v, want an error naming root[1]", err)
	}
	if _, err := TaxonomyFromNested([]any{1.5}); err == nil {
		t.Error("label 1.5: want an error")
	}
}

func TestReadTaxonomyFileALOI(t *testing.T) {
	tax, err := ReadTaxonomyFile(filepath.Join("..", "..", "configs", "taxonomies", "aloi10.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	labels := tax.Labels()
	slices.Sort(labels)
	if !slices.Equal(labels, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
		t.Errorf("ALOI taxonomy leaves: got %v, want 1..10", labels)
	}
}

func TestTaxonomyLCADepth(t *testing.T) {
	tax, _ := ParseTaxonomy("[[1,2],[3,[4,5]]]")
	for _, test := range []struct{ a, b, want int }{
		{1, 2, 1}, {1, 3, 0}, {4, 5, 2}, {3, 4, 1}, {5, 5, 3}, {1, 1, 2},
	} {
		if got, err := tax.LCADepth(test.a, test.b); err != nil || got != test.want {
			t.Errorf("LCADepth(%d,%d): got %d, %v, want %d", test.a, test.b, got, err, test.want)
		}
	}
	if _, err := tax.LCADepth(1, 9); err == nil {
		t.Error("label 9: want an error")
	}
}

// randomTaxonomy builds a random tree over labels 0..nLabels-1 with random
// fan-out and unary chains.
func randomTaxonomy(rng *rand.Rand, labels []int) *Taxonomy {
	if len(labels) == 1 {
		if rng.IntN(4) == 0 {
			return Node(Leaf(labels[0])) // a unary node
		}
		return Leaf(labels[0])
	}
	k := 2 + rng.IntN(min(3, len(labels)-1))
	parts := make([][]int, k)
	for i, l := range labels {
		if i < k {
			parts[i] = append(parts[i], l)
		} else {
			p := rng.IntN(k)
			parts[p] = append(parts[p], l)
		}
	}
	n := &Taxonomy{}
	for _, p := range parts {
		n.Children = append(n.Children, randomTaxonomy(rng, p))
	}
	return n
}

// impliedTriplets lists every triplet (i,j,i,k), i in anchors, j,k in refs
// minus i, with LCA(i,j) strictly deeper than LCA(i,k), computed from
// LCADepth alone.
func impliedTriplets(t *testing.T, tax *Taxonomy, labels, anchors, refs []int) map[Comparison]bool {
	out := map[Comparison]bool{}
	for _, i := range anchors {
		for _, j := range refs {
			for _, k := range refs {
				if j == i || k == i {
					continue
				}
				dj, err1 := tax.LCADepth(labels[i], labels[j])
				dk, err2 := tax.LCADepth(labels[i], labels[k])
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if dj > dk {
					out[Triplet(i, j, k)] = true
				}
			}
		}
	}
	return out
}

// transitiveReduction returns the edges of the comparison graph (pair {i,j}
// -> pair {k,l}, Sec. 2.1) that have no other path between their ends:
// brute force by Floyd–Warshall reachability.
func transitiveReduction(cs map[Comparison]bool) map[Comparison]bool {
	id := map[Pair]int{}
	for c := range cs {
		for _, p := range []Pair{c.Left(), c.Right()} {
			if _, ok := id[p]; !ok {
				id[p] = len(id)
			}
		}
	}
	n := len(id)
	reach := make([][]bool, n)
	for i := range reach {
		reach[i] = make([]bool, n)
	}
	for c := range cs {
		reach[id[c.Left()]][id[c.Right()]] = true
	}
	for k := range n {
		for i := range n {
			if !reach[i][k] {
				continue
			}
			for j := range n {
				if reach[k][j] {
					reach[i][j] = true
				}
			}
		}
	}
	out := map[Comparison]bool{}
	for c := range cs {
		u, v := id[c.Left()], id[c.Right()]
		redundant := false
		for w := range n {
			if w != u && w != v && reach[u][w] && reach[w][v] {
				redundant = true
				break
			}
		}
		if !redundant {
			out[c] = true
		}
	}
	return out
}

// TestTaxonomyComparisonsBruteForce checks on random small taxonomies that
// the generator emits exactly the transitive reduction of all triplets the
// tree implies: every emitted comparison is implied, none is redundant, and
// none of the reduction is missing (so the closure is the same).
func TestTaxonomyComparisonsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(*taxSeed, *taxSeed))
	for cas := range 200 {
		nl := 1 + rng.IntN(6)
		ls := make([]int, nl)
		for i := range ls {
			ls[i] = i + 1
		}
		tax := randomTaxonomy(rng, ls)
		n := 2 + rng.IntN(7)
		labels := make([]int, n)
		for i := range labels {
			labels[i] = ls[rng.IntN(nl)]
		}
		perm := rng.Perm(n)
		split := rng.IntN(n + 1)
		for _, mode := range []string{"train", "test"} {
			anchors, refs := perm, perm
			if mode == "test" {
				anchors, refs = perm[:split], perm[split:]
			}
			got, err := tax.Comparisons(labels, anchors, refs)
			if err != nil {
				t.Fatalf("case %d (seed %d): %v", cas, *taxSeed, err)
			}
			implied := impliedTriplets(t, tax, labels, anchors, refs)
			want := transitiveReduction(implied)
			gotSet := map[Comparison]bool{}
			for _, c := range got {
				if gotSet[c] {
					t.Fatalf("case %d %s: duplicate %v", cas, mode, c)
				}
				gotSet[c] = true
				if !implied[c] {
					t.Errorf("case %d %s (seed %d, tree %v, labels %v): %v is not implied by the tree", cas, mode, *taxSeed, tax, labels, c)
				}
				if !want[c] {
					t.Errorf("case %d %s (seed %d, tree %v, labels %v): %v is transitively redundant", cas, mode, *taxSeed, tax, labels, c)
				}
			}
			for c := range want {
				if !gotSet[c] {
					t.Errorf("case %d %s (seed %d, tree %v, labels %v): missing %v of the reduction", cas, mode, *taxSeed, tax, labels, c)
				}
			}
		}
	}
}

func TestTaxonomyComparisonsErrors(t *testing.T) {
	tax, _ := ParseTaxonomy("[[1,2],3]")
	for _, test := range []struct {
		name            string
		labels, a, refs []int
		msg             string
	}{
		{"index out of range", []int{1, 2}, []int{0, 2}, []int{0, 1}, "anchors[1] must be an item index in [0,2), got 2"},
		{"duplicate ref", []int{1, 2}, []int{0}, []int{1, 1}, "refs must not repeat an item, got 1 twice"},
		{"unknown label", []int{1, 4}, []int{0}, []int{1}, "got 4"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := tax.Comparisons(test.labels, test.a, test.refs)
			if err == nil || !strings.Contains(err.Error(), test.msg) {
				t.Errorf("got %v, want an error containing %q", err, test.msg)
			}
		})
	}
}

func TestTaxonomyComparisonsALOISubset(t *testing.T) {
	dir := fetchedData(t, "aloi10")
	d, err := LoadALOI(dir)
	if err != nil {
		t.Fatal(err)
	}
	tax, err := ReadTaxonomyFile(filepath.Join("..", "..", "configs", "taxonomies", "aloi10.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := SamplePerClass(d.Labels, 20, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := tax.Comparisons(d.Labels, sub, sub)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("no comparisons")
	}
	if err := ValidateComparisons(cs, len(d.Labels)); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d comparisons over 200 ALOI images", len(cs))
}

// FuzzParseTaxonomy: any input is parsed or rejected without a panic, and
// an accepted taxonomy round-trips through String.
func FuzzParseTaxonomy(f *testing.F) {
	for _, s := range []string{"[[1,2],[3,[4,5]]]", "taxonomy: [1, [2, 3]]", "7", "[1,[]]", "[[1,2)]", "- 1\n- [2, 3]\n",
		"[[1, 2.5], 3]", "[[1, 2.0], 3e0]", "a: &x [1, 2]\ntaxonomy: *x\n", "", "{a: 1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tax, err := ParseTaxonomy(s)
		if err != nil {
			return
		}
		again, err := ParseTaxonomy(tax.String())
		if err != nil || again.String() != tax.String() {
			t.Fatalf("%q parsed to %s, which reads back as %v, %v", s, tax, again, err)
		}
	})
}
