package constraint_test

import (
	"flag"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/graph/simple"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/data"
)

var seedFlag = flag.Uint64("seed", 1, "seed of the randomized property tests")

// randomComparisons returns up to m random valid comparisons over n items;
// a third are triplets, and repeats and contradictions are frequent.
func randomComparisons(rng *rand.Rand, n, m int) []data.Comparison {
	var cs []data.Comparison
	for len(cs) < m {
		i, j, k, l := rng.IntN(n), rng.IntN(n), rng.IntN(n), rng.IntN(n)
		if rng.IntN(3) == 0 {
			k = i
		}
		c := data.Comparison{I: i, J: j, K: k, L: l}
		if c.Left() == c.Right() {
			continue
		}
		cs = append(cs, c)
	}
	return cs
}

// gonumGraph builds the constraint graph of cs as a gonum graph, nodes
// numbered by PairID; repeated edges merge.
func gonumGraph(cs []data.Comparison) *simple.DirectedGraph {
	g := simple.NewDirectedGraph()
	for _, c := range cs {
		k := constraint.KeyOf(c)
		if g.Node(k.From) == nil {
			g.AddNode(simple.Node(k.From))
		}
		if g.Node(k.To) == nil {
			g.AddNode(simple.Node(k.To))
		}
		g.SetEdge(g.NewEdge(g.Node(k.From), g.Node(k.To)))
	}
	return g
}

// closure is the brute-force transitive closure (Floyd–Warshall) of the
// graph of cs over the given vertex IDs: reach[a][b] means a path a⇝b of ≥ 1
// edges.
type closure map[int64]map[int64]bool

func newClosure(cs []data.Comparison, vertices []int64) closure {
	r := closure{}
	for _, v := range vertices {
		r[v] = map[int64]bool{}
	}
	for _, c := range cs {
		k := constraint.KeyOf(c)
		r[k.From][k.To] = true
	}
	for _, m := range vertices {
		for _, a := range vertices {
			if !r[a][m] {
				continue
			}
			for _, b := range vertices {
				if r[m][b] {
					r[a][b] = true
				}
			}
		}
	}
	return r
}

func vertexIDs(cs []data.Comparison) []int64 {
	seen := map[int64]bool{}
	var ids []int64
	for _, c := range cs {
		k := constraint.KeyOf(c)
		for _, id := range []int64{k.From, k.To} {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// checkSplit fails unless kept and removed interleave back into cs with both
// in input order: some choice of flags over cs selects kept, the rest removed.
func checkSplit(t *testing.T, name string, cs, kept, removed []data.Comparison) {
	t.Helper()
	if len(kept)+len(removed) != len(cs) {
		t.Fatalf("%s: %d kept + %d removed != %d input", name, len(kept), len(removed), len(cs))
	}
	// Greedy matching is exact for a merge of two subsequences only up to
	// ties of equal values, which are interchangeable.
	a, b := 0, 0
	for _, c := range cs {
		switch {
		case a < len(kept) && kept[a] == c:
			a++
		case b < len(removed) && removed[b] == c:
			b++
		default:
			t.Fatalf("%s: output is not an order-preserving split of the input at %v", name, c)
		}
	}
}

func equalComparisons(a, b []data.Comparison) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
