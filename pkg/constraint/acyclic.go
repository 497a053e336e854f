package constraint

import (
	"math/rand/v2"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// Acyclic returns a maximal acyclic subset of cs by the greedy approximate
// maximum acyclic subgraph algorithm of McFee & Lanckriet (2011, Sec. 2.2,
// Algorithm 1; Berger & Shor 1990):
//
//	E' ← ∅
//	for each (u,v) ∈ E in random order:
//	    if E' ∪ {(u,v)} is acyclic: E' ← E' ∪ {(u,v)}
//
// The random order is a permutation of cs drawn from rng; a nil rng means
// rand.New(rand.NewPCG(0, 0)). The same rng state gives the same result.
//
// The acyclicity test is incremental, by the sparse algorithm of Bender,
// Fineman, Gilbert & Tarjan (2016, Sec. 2): each pair-vertex has a level,
// levels never decrease along a kept edge, and an edge u→v with
// level(u) < level(v) is accepted at once. Otherwise a backward search from u
// over same-level edges (at most Δ = min(m^½, n^⅔) edges) either meets v
// (cycle), proves that no same-level path v⇝u exists, or gives up and lifts v
// one level up; then a forward search from v lifts the vertices whose level
// is now too low, and a cycle is found if it meets u or a vertex of the
// backward search. Deviation from that paper, which stops at the first cycle:
// a rejected edge has all its level changes rolled back, so the structure is
// exactly that of the kept edges (without the rollback the levels grow
// unboundedly and the search cost with them). Cost: O(m·Δ) for the accepted
// edges; on random graphs of 10⁶ comparisons the whole call takes seconds.
//
// Result: kept is acyclic and maximal (every removed comparison would close a
// cycle with kept); repeats of a kept comparison are kept too. Algorithm 1
// returns a set; kept and removed here are in the input order of cs, not the
// random order, so a file keeps its order. cs is not modified. Acyclic
// returns an error if cs fails [Validate].
func Acyclic(cs []data.Comparison, rng *rand.Rand) (kept, removed []data.Comparison, err error) {
	if err := Validate(cs); err != nil {
		return nil, nil, err
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(0, 0))
	}
	g := newDigraph(cs)
	perm := make([]int32, len(cs))
	for e := range perm {
		perm[e] = int32(e)
	}
	rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })

	keep := make([]bool, len(cs))
	lv := newLevels(g.order(), len(cs))
	for _, e := range perm {
		keep[e] = lv.insert(g.src[e], g.dst[e])
	}
	kept, removed = split(cs, keep)
	return kept, removed, nil
}
