package constraint

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The dynamic topological order of Pearce & Kelly (2006), kept as an
// independent oracle for the level structure that Acyclic uses: for the same
// edge order both must accept exactly the same edges.

// dynTopo is a DAG with a dynamic topological order (Pearce & Kelly 2006):
// ord[v] is the position of v, and ord[u] < ord[v] for every edge u→v.
type dynTopo struct {
	out, in [][]int32
	ord     []int32
	// mark[v] == stamp means v was visited by the current search.
	markF, markB []uint32
	stamp        uint32
	deltaF       []int32
	deltaB       []int32
	stack        []int32
	pool         []int32
}

func newDynTopo(n int) *dynTopo {
	t := &dynTopo{
		out:   make([][]int32, n),
		in:    make([][]int32, n),
		ord:   make([]int32, n),
		markF: make([]uint32, n),
		markB: make([]uint32, n),
	}
	for v := range t.ord {
		t.ord[v] = int32(v)
	}
	return t
}

// insert adds u→v and reports true, unless the edge would close a cycle, in
// which case the graph is left unchanged and insert reports false.
func (t *dynTopo) insert(u, v int32) bool {
	if u == v {
		return false
	}
	lb, ub := t.ord[v], t.ord[u]
	if lb < ub {
		t.stamp++
		if t.stamp == 0 { // wrapped: clear marks
			clear(t.markF)
			clear(t.markB)
			t.stamp = 1
		}
		if !t.forward(v, ub) {
			return false
		}
		t.backward(u, lb)
		t.reorder()
	}
	t.out[u] = append(t.out[u], v)
	t.in[v] = append(t.in[v], u)
	return true
}

// forward collects in deltaF the vertices reachable from v with ord < ub and
// reports false if the vertex at ord ub (the tail u of the new edge) is
// reachable, that is if the edge closes a cycle.
func (t *dynTopo) forward(v, ub int32) bool {
	t.deltaF = append(t.deltaF[:0], v)
	t.markF[v] = t.stamp
	t.stack = append(t.stack[:0], v)
	for len(t.stack) > 0 {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		for _, x := range t.out[w] {
			ox := t.ord[x]
			if ox == ub {
				return false
			}
			if ox < ub && t.markF[x] != t.stamp {
				t.markF[x] = t.stamp
				t.deltaF = append(t.deltaF, x)
				t.stack = append(t.stack, x)
			}
		}
	}
	return true
}

// backward collects in deltaB the vertices that reach u with ord > lb.
func (t *dynTopo) backward(u, lb int32) {
	t.deltaB = append(t.deltaB[:0], u)
	t.markB[u] = t.stamp
	t.stack = append(t.stack[:0], u)
	for len(t.stack) > 0 {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		for _, x := range t.in[w] {
			if t.ord[x] > lb && t.markB[x] != t.stamp {
				t.markB[x] = t.stamp
				t.deltaB = append(t.deltaB, x)
				t.stack = append(t.stack, x)
			}
		}
	}
}

// reorder gives the vertices of deltaB, then those of deltaF, each set in its
// old relative order, the sorted union of their old positions.
func (t *dynTopo) reorder() {
	byOrd := func(a, b int32) int { return int(t.ord[a]) - int(t.ord[b]) }
	slices.SortFunc(t.deltaB, byOrd)
	slices.SortFunc(t.deltaF, byOrd)
	t.pool = t.pool[:0]
	for _, w := range t.deltaB {
		t.pool = append(t.pool, t.ord[w])
	}
	for _, w := range t.deltaF {
		t.pool = append(t.pool, t.ord[w])
	}
	slices.Sort(t.pool)
	i := 0
	for _, w := range t.deltaB {
		t.ord[w] = t.pool[i]
		i++
	}
	for _, w := range t.deltaF {
		t.ord[w] = t.pool[i]
		i++
	}
}

// TestLevelsMatchesOracles feeds the same edge sequences to the level
// structure of Acyclic, to Pearce & Kelly, and (on small graphs) to a naive
// greedy that tests reachability by depth-first search: the greedy result is
// determined by the order, so all must accept the same edges.
func TestLevelsMatchesOracles(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 4))
	for trial := range 60 {
		n := 5 + rng.IntN(40)
		m := rng.IntN(4 * n)
		naive := trial < 40
		if !naive {
			n, m = 3000, 6000+rng.IntN(6000)
		}
		us, vs := make([]int32, m), make([]int32, m)
		for e := range m {
			us[e], vs[e] = int32(rng.IntN(n)), int32(rng.IntN(n))
		}
		lv, pk, tw := newLevels(n, m), newDynTopo(n), newTwoWay(n, us, vs)
		// A small label universe makes relabelling (and its full-list
		// fallback) frequent.
		tight := newTwoWayBits(n, us, vs, 13)
		adj := make([][]int32, n)
		for e := range m {
			u, v := us[e], vs[e]
			a, b, c, d := lv.insert(u, v), pk.insert(u, v), tw.insert(u, v), tight.insert(u, v)
			if a != b || a != c || a != d {
				t.Fatalf("trial %d edge %d %d→%d: levels %v, Pearce–Kelly %v, two-way %v, two-way with 13-bit labels %v", trial, e, u, v, a, b, c, d)
			}
			if naive {
				want := u != v && !reaches(adj, v, u)
				if a != want {
					t.Fatalf("trial %d edge %d %d→%d: levels %v, naive %v", trial, e, u, v, a, want)
				}
				if want {
					adj[u] = append(adj[u], v)
				}
			}
		}
		checkTwoWay(t, tw)
		checkTwoWay(t, tight)
		if n == 3000 && tight.relabels <= n {
			t.Fatalf("trial %d: 13-bit labels never relabelled", trial)
		}
		// The level invariant k(x) ≤ k(y) holds on every kept arc, and same
		// lists hold exactly the same-level arcs.
		for x := range lv.out {
			for _, y := range lv.out[x] {
				if lv.k[x] > lv.k[y] {
					t.Fatalf("trial %d: arc %d→%d goes down a level", trial, x, y)
				}
			}
		}
		for y := range lv.same {
			for _, x := range lv.same[y][lv.lo[y]:] {
				if lv.k[x] != lv.k[y] {
					t.Fatalf("trial %d: same-level list of %d holds %d at another level", trial, y, x)
				}
			}
		}
	}
}

func reaches(adj [][]int32, from, to int32) bool {
	seen := map[int32]bool{from: true}
	stack := []int32{from}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		for _, y := range adj[x] {
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
	}
	return false
}

// checkTwoWay asserts the invariants of the two-way structure: the list holds
// every vertex once, labels increase strictly along it from the head
// sentinel to the tail sentinel, and every arc goes up in label.
func checkTwoWay(t *testing.T, tw *twoWay) {
	t.Helper()
	n := len(tw.node) - 2
	head, tail := int32(n), int32(n+1)
	seen := 0
	nd, ln := tw.node, tw.link
	for x := ln[head].next; x != tail; x = ln[x].next {
		if p := ln[x].prev; nd[x].label <= nd[p].label || ln[p].next != x {
			t.Fatalf("list broken at vertex %d (label %d after %d)", x, nd[x].label, nd[p].label)
		}
		seen++
		if seen > n {
			t.Fatalf("list has a loop")
		}
	}
	if seen != n || nd[ln[tail].prev].label >= nd[tail].label {
		t.Fatalf("list holds %d of %d vertices", seen, n)
	}
	for x := range n {
		for _, y := range tw.arcs[nd[x].out : nd[x].out+nd[x].nOut] {
			if nd[x].label >= nd[y].label {
				t.Fatalf("arc %d→%d goes down in label", x, y)
			}
		}
	}
}

// TestTwoWayRelabels forces the relabelling of the order-maintenance list:
// every arc of a long path inserted backwards moves a vertex into the same
// gap, so the labels there run out again and again.
func TestTwoWayRelabels(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 70, 2000} {
		var us, vs []int32
		for x := n - 2; x >= 0; x-- {
			us, vs = append(us, int32(x+1)), append(vs, int32(x))
		}
		us, vs = append(us, 0), append(vs, int32(n-1))
		for x := 0; x+2 < n; x++ {
			us, vs = append(us, int32(x+2)), append(vs, int32(x))
		}
		tw := newTwoWay(n, us, vs)
		// Arcs (x+1)→x, for x from high to low: each insertion moves x+1 …
		// just before x, packing them against the head.
		for x := n - 2; x >= 0; x-- {
			if !tw.insert(int32(x+1), int32(x)) {
				t.Fatalf("n=%d: arc %d→%d rejected in a path", n, x+1, x)
			}
		}
		if n > 1 && tw.insert(0, int32(n-1)) {
			t.Fatalf("n=%d: arc closing the path into a cycle accepted", n)
		}
		// Then the other way round, forward moves: a second path on the
		// same vertices is impossible, so use chords that stay acyclic.
		for x := 0; x+2 < n; x++ {
			if !tw.insert(int32(x+2), int32(x)) {
				t.Fatalf("n=%d: chord %d→%d rejected", n, x+2, x)
			}
		}
		checkTwoWay(t, tw)
		if n >= 70 && tw.relabels == n {
			t.Fatalf("n=%d: the packed insertions never relabelled", n)
		}
	}
}
