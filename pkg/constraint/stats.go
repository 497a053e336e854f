package constraint

import (
	"github.com/mkpoe/mkpoe/pkg/data"
)

// GraphStats describes the constraint graph of a comparison set.
type GraphStats struct {
	Vertices      int  `json:"vertices"`       // distinct item pairs that occur
	Edges         int  `json:"edges"`          // comparisons, repeats included
	DistinctEdges int  `json:"distinct_edges"` // distinct EdgeKeys
	SCCs          int  `json:"sccs"`           // strongly connected components, singletons included
	LargestSCC    int  `json:"largest_scc"`    // vertices in the largest one
	Cyclic        bool `json:"cyclic"`         // some SCC has ≥ 2 vertices
	// Diameter is diam(R) of McFee & Lanckriet (2011, Sec. 1.2), the length in
	// edges of the longest path; -1 when the graph is cyclic, 0 without edges.
	Diameter int `json:"diameter"`
}

// Stats computes the statistics of the constraint graph of cs. Strongly
// connected components come from an iterative version of Tarjan's (1972)
// algorithm, so deep graphs cannot overflow the stack; the diameter is a
// longest-path pass over a topological order. Time and memory O(|V| + |E|).
// Stats returns an error if cs fails [Validate]; cs is not modified.
func Stats(cs []data.Comparison) (GraphStats, error) {
	if err := Validate(cs); err != nil {
		return GraphStats{}, err
	}
	g := newDigraph(cs)
	out := g.adjacency(true)
	s := GraphStats{Vertices: g.order(), Edges: len(cs), Diameter: -1}
	seen := make(map[EdgeKey]struct{}, len(cs))
	for _, c := range cs {
		seen[KeyOf(c)] = struct{}{}
	}
	s.DistinctEdges = len(seen)
	comp, count := g.tarjan(out)
	s.SCCs = count
	size := make([]int, count)
	for _, c := range comp {
		size[c]++
	}
	for _, z := range size {
		s.LargestSCC = max(s.LargestSCC, z)
	}
	s.Cyclic = s.LargestSCC > 1
	if !s.Cyclic {
		order, _ := g.topoOrder(out)
		s.Diameter = g.longestPath(order, out)
	}
	return s, nil
}

// longestPath returns the number of edges on a longest path of the DAG g,
// given a topological order.
func (g *digraph) longestPath(order []int32, out *csr) int {
	depth := make([]int32, g.order())
	best := int32(0)
	for _, v := range order {
		for _, e := range out.of(v) {
			w := g.dst[e]
			if depth[v]+1 > depth[w] {
				depth[w] = depth[v] + 1
				best = max(best, depth[w])
			}
		}
	}
	return int(best)
}

// tarjan labels each vertex with its strongly connected component, numbered
// 0..count-1 in the order Tarjan's algorithm completes them (reverse
// topological order of the condensation). It uses an explicit stack.
func (g *digraph) tarjan(out *csr) (comp []int32, count int) {
	n := g.order()
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	comp = make([]int32, n)
	onStack := make([]bool, n)
	for v := range index {
		index[v] = unvisited
	}
	type frame struct {
		v    int32
		next int32 // next position in out.of(v)
	}
	var call []frame
	var stack []int32
	next := int32(0)
	for root := int32(0); root < int32(n); root++ {
		if index[root] != unvisited {
			continue
		}
		call = append(call, frame{v: root})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			edges := out.of(f.v)
			if int(f.next) < len(edges) {
				w := g.dst[edges[f.next]]
				f.next++
				switch {
				case index[w] == unvisited:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{v: w})
				case onStack[w]:
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = int32(count)
					if w == v {
						break
					}
				}
				count++
			}
		}
	}
	return comp, count
}

// cycleError finds a shortest cycle through one vertex of a non-trivial
// strongly connected component (breadth-first search inside the component)
// and returns it as a *CycleError. g must be cyclic.
func (g *digraph) cycleError(cs []data.Comparison, out *csr) *CycleError {
	comp, count := g.tarjan(out)
	size := make([]int, count)
	for _, c := range comp {
		size[c]++
	}
	s := int32(-1)
	for v, c := range comp {
		if size[c] > 1 {
			s = int32(v)
			break
		}
	}
	if s < 0 {
		panic("constraint: cycleError called on an acyclic graph")
	}
	// BFS from s inside its component until an edge returns to s.
	via := make([]int32, g.order()) // edge by which a vertex was reached
	for v := range via {
		via[v] = -1
	}
	queue := []int32{s}
	last := int32(-1)
	for i := 0; i < len(queue) && last < 0; i++ {
		v := queue[i]
		for _, e := range out.of(v) {
			w := g.dst[e]
			if comp[w] != comp[s] {
				continue
			}
			if w == s {
				last = e
				break
			}
			if via[w] < 0 {
				via[w] = e
				queue = append(queue, w)
			}
		}
	}
	var path []int32
	for e := last; ; e = via[g.src[e]] {
		path = append(path, e)
		if g.src[e] == s {
			break
		}
	}
	err := &CycleError{Len: len(path)}
	for i := len(path) - 1; i >= 0 && len(err.Cycle) < maxCycle; i-- {
		err.Cycle = append(err.Cycle, cs[path[i]])
	}
	return err
}
