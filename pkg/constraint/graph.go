package constraint

import (
	"fmt"
	"math"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// MaxItem is the largest item index the constraint graph accepts; it keeps
// [PairID] inside int64.
const MaxItem = math.MaxInt32

// PairID returns the stable vertex ID of the unordered pair p,
//
//	PairID({a,b}) = b(b+1)/2 + a,  a ≤ b,
//
// the position of p when pairs are listed {0,0}, {0,1}, {1,1}, {0,2}, {1,2},
// {2,2}, …. It does not depend on the number of items. p must be canonical
// (p.A ≤ p.B, as [data.NewPair] returns) with entries in [0, MaxItem];
// otherwise PairID panics.
func PairID(p data.Pair) int64 {
	if p.A < 0 || p.A > p.B || p.B > MaxItem {
		panic(fmt.Sprintf("constraint: PairID needs 0 ≤ A ≤ B ≤ MaxItem, got %v", p))
	}
	b := int64(p.B)
	return b*(b+1)/2 + int64(p.A)
}

// PairOf inverts [PairID]. It panics if id < 0.
func PairOf(id int64) data.Pair {
	if id < 0 {
		panic(fmt.Sprintf("constraint: PairOf needs id ≥ 0, got %d", id))
	}
	b := int64((math.Sqrt(8*float64(id)+1) - 1) / 2)
	for b*(b+1)/2 > id { // correct float rounding
		b--
	}
	for (b+1)*(b+2)/2 <= id {
		b++
	}
	return data.Pair{A: int(id - b*(b+1)/2), B: int(b)}
}

// EdgeKey identifies the edge of comparison c in the constraint graph: the
// vertex IDs of its near and far pairs. Two comparisons with equal keys are
// the same measurement written with the items of a pair swapped.
type EdgeKey struct{ From, To int64 }

// KeyOf returns the edge key of c. c must pass [Validate].
func KeyOf(c data.Comparison) EdgeKey {
	return EdgeKey{From: PairID(c.Left()), To: PairID(c.Right())}
}

// Validate checks what every function of this package needs: item indices in
// [0, MaxItem] and two different pairs in each comparison (a comparison of a
// pair with itself would be a self-loop). It names the first offender by its
// 0-based position in cs. An empty cs is valid.
func Validate(cs []data.Comparison) error {
	for idx, c := range cs {
		for _, v := range [4]int{c.I, c.J, c.K, c.L} {
			if v < 0 || v > MaxItem {
				return fmt.Errorf("constraint: comparison %d %v: item index must be in [0,%d], got %d", idx, c, MaxItem, v)
			}
		}
		if c.Left() == c.Right() {
			return fmt.Errorf("constraint: comparison %d %v: its two pairs must differ, got the pair {%d,%d} twice", idx, c, c.I, c.J)
		}
	}
	return nil
}

// digraph is the constraint graph of a comparison slice with dense vertex
// numbers: vertex v is the pair ids[v]; edge e (the index of the comparison
// in the input) runs src[e] → dst[e]. Vertices are numbered in order of first
// appearance, so the numbering is deterministic.
type digraph struct {
	ids      []int64
	src, dst []int32
}

// newDigraph builds the constraint graph of cs, which must be valid.
func newDigraph(cs []data.Comparison) *digraph {
	g := &digraph{src: make([]int32, len(cs)), dst: make([]int32, len(cs))}
	index := make(map[int64]int32, len(cs))
	vertex := func(id int64) int32 {
		v, ok := index[id]
		if !ok {
			v = int32(len(g.ids))
			index[id] = v
			g.ids = append(g.ids, id)
		}
		return v
	}
	for e, c := range cs {
		g.src[e] = vertex(PairID(c.Left()))
		g.dst[e] = vertex(PairID(c.Right()))
	}
	return g
}

func (g *digraph) order() int { return len(g.ids) }

// csr is a static adjacency list: the edges leaving (or entering) vertex v are
// edge[start[v]:start[v+1]], edge indices ascending.
type csr struct {
	start []int32
	edge  []int32
}

func (a *csr) of(v int32) []int32 { return a.edge[a.start[v]:a.start[v+1]] }

// adjacency returns the out-list (keyed by src) or in-list (keyed by dst).
func (g *digraph) adjacency(out bool) *csr {
	key := g.dst
	if out {
		key = g.src
	}
	a := &csr{start: make([]int32, g.order()+1), edge: make([]int32, len(key))}
	for _, v := range key {
		a.start[v+1]++
	}
	for v := 0; v < g.order(); v++ {
		a.start[v+1] += a.start[v]
	}
	next := append([]int32(nil), a.start[:g.order()]...)
	for e, v := range key {
		a.edge[next[v]] = int32(e)
		next[v]++
	}
	return a
}

// topoOrder returns the vertices in a topological order (Kahn's algorithm,
// a FIFO of ready vertices seeded in vertex order, so the order is
// deterministic) and whether the graph is acyclic.
func (g *digraph) topoOrder(out *csr) ([]int32, bool) {
	indeg := make([]int32, g.order())
	for _, v := range g.dst {
		indeg[v]++
	}
	order := make([]int32, 0, g.order())
	for v := range indeg {
		if indeg[v] == 0 {
			order = append(order, int32(v))
		}
	}
	for i := 0; i < len(order); i++ {
		for _, e := range out.of(order[i]) {
			w := g.dst[e]
			indeg[w]--
			if indeg[w] == 0 {
				order = append(order, w)
			}
		}
	}
	return order, len(order) == g.order()
}

// split returns the comparisons of cs whose keep flag is set, and the others,
// both in input order.
func split(cs []data.Comparison, keep []bool) (kept, removed []data.Comparison) {
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	kept = make([]data.Comparison, 0, n)
	removed = make([]data.Comparison, 0, len(cs)-n)
	for e, c := range cs {
		if keep[e] {
			kept = append(kept, c)
		} else {
			removed = append(removed, c)
		}
	}
	return kept, removed
}
