package constraint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// maxCycle caps the comparisons a CycleError carries.
const maxCycle = 64

// CycleError reports that a comparison set has a cycle, so it is not a partial
// order and no embedding satisfies it (McFee & Lanckriet 2011, Sec. 2.1, first
// fact). Cycle holds the comparisons of one shortest cycle through a vertex of
// a strongly connected component, in path order, capped at 64 comparisons;
// Len is the full length of that cycle.
type CycleError struct {
	Cycle []data.Comparison
	Len   int
}

func (e *CycleError) Error() string {
	const show = 8
	var b strings.Builder
	fmt.Fprintf(&b, "constraint: comparisons have a cycle of length %d (run the acyclic step first): ", e.Len)
	for i, c := range e.Cycle {
		if i == show {
			fmt.Fprintf(&b, " … (%d more)", e.Len-show)
			break
		}
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(c.String())
	}
	return b.String()
}

// Reduce returns the transitive reduction of the acyclic comparison set cs
// (McFee & Lanckriet 2011, Sec. 2.2; Aho, Garey & Ullman 1972): the fewest
// comparisons with the same transitive closure. Sec. 2.1 shows that an
// embedding satisfying the reduction satisfies all of cs. Of repeated
// comparisons (same [EdgeKey]) the first is kept when the edge stays.
//
// If cs has a cycle the reduction is not unique and Reduce returns a
// *[CycleError] carrying a cycle. kept and removed are in input order; cs is
// not modified. Reduce returns an error if cs fails [Validate].
//
// Algorithm. In a DAG the reduction is unique: an edge u→c is redundant iff c
// is reachable from another child c' of u. With the vertices in topological
// order, let desc(v) be the set of proper descendants of v. Then
//
//	U(u) = ∪_{c' child of u} desc(c'),   desc(u) = U(u) ∪ children(u),
//
// and u→c is redundant iff c ∈ U(u). The sets are bitsets over a block of
// consecutive topological positions [a,b): vertices at positions ≥ b cannot
// reach the block and are skipped, and the block width is chosen so that the
// bitsets of all vertices take at most 32 MiB. Time O(|E|·|V|/64) word
// operations in the worst case, memory O(|E| + 32 MiB).
func Reduce(cs []data.Comparison) (kept, removed []data.Comparison, err error) {
	if err := Validate(cs); err != nil {
		return nil, nil, err
	}
	g := newDigraph(cs)
	out := g.adjacency(true)
	order, acyclic := g.topoOrder(out)
	if !acyclic {
		return nil, nil, g.cycleError(cs, out)
	}
	n := g.order()
	pos := make([]int32, n)
	for p, v := range order {
		pos[v] = int32(p)
	}
	// children[p] lists (child position, first edge) of the vertex at topological
	// position p, child positions ascending and distinct.
	start := make([]int32, n+1)
	arcs := make([]arc, 0, len(cs))
	keep := make([]bool, len(cs))
	for p, v := range order {
		start[p] = int32(len(arcs))
		first := len(arcs)
		for _, e := range out.of(v) {
			arcs = append(arcs, arc{to: pos[g.dst[e]], edge: e})
		}
		as := arcs[first:]
		slices.SortStableFunc(as, func(x, y arc) int { return int(x.to) - int(y.to) })
		// Drop repeats, keeping the earliest edge index (out.of lists edges
		// ascending and the sort is stable).
		w := 0
		for i := range as {
			if i > 0 && as[i].to == as[w-1].to {
				continue
			}
			as[w] = as[i]
			w++
		}
		arcs = arcs[:first+w]
	}
	start[n] = int32(len(arcs))
	for _, a := range arcs {
		keep[a.edge] = true
	}

	const budgetWords = 1 << 22 // 32 MiB of bitsets per block
	words := max(1, min(budgetWords/max(n, 1), (n+63)/64))
	width := int32(64 * words)
	desc := make([]uint64, n*words)
	u := make([]uint64, words)
	for a := int32(0); a < int32(n); a += width {
		b := min(a+width, int32(n))
		clear(desc[:int(b)*words])
		for p := b - 1; p >= 0; p-- {
			clear(u)
			as := arcs[start[p]:start[p+1]]
			for _, c := range as {
				if c.to >= b {
					break
				}
				dc := desc[int(c.to)*words : int(c.to+1)*words]
				for i, x := range dc {
					u[i] |= x
				}
			}
			dp := desc[int(p)*words : int(p+1)*words]
			copy(dp, u)
			for _, c := range as {
				if c.to >= b {
					break
				}
				if c.to < a {
					continue
				}
				bit := c.to - a
				if u[bit/64]&(1<<(bit%64)) != 0 {
					keep[c.edge] = false
				}
				dp[bit/64] |= 1 << (bit % 64)
			}
		}
	}
	kept, removed = split(cs, keep)
	return kept, removed, nil
}

// arc is an edge seen from its tail: the head's topological position and
// the edge (comparison) index.
type arc struct{ to, edge int32 }
