package constraint

import "math"

// levels is the sparse incremental cycle detection structure of Bender,
// Fineman, Gilbert & Tarjan (2016, Sec. 2). Every vertex has a level k, and
// k(x) ≤ k(y) for each arc x→y, so levels never decrease along a path. For
// each vertex y, same[y][lo[y]:] lists the tails x of arcs x→y with
// k(x) = k(y); entries before lo[y] are stale and kept only so that a
// rejected insertion can be undone.
type levels struct {
	out   [][]int32 // all arcs, by tail
	same  [][]int32 // same-level arcs, by head, valid from lo
	lo    []int32
	k     []int32
	delta int // Δ, the backward search budget in arcs

	markB []uint32 // markB[x] == stamp: x was visited by the backward search
	stamp uint32
	stack []int32
	undo  []change
}

// change records the state of a vertex before an insertion touched it.
type change struct{ y, k, lo, n int32 }

func newLevels(n, m int) *levels {
	d := math.Min(math.Sqrt(float64(m)), math.Pow(float64(n), 2.0/3))
	return &levels{
		out:   make([][]int32, n),
		same:  make([][]int32, n),
		lo:    make([]int32, n),
		k:     make([]int32, n),
		delta: max(1, int(d)),
		markB: make([]uint32, n),
	}
}

// insert adds the arc v→w and reports true, unless it would close a cycle;
// then the structure is left exactly as it was and insert reports false.
func (t *levels) insert(v, w int32) bool {
	if v == w {
		return false
	}
	if t.k[v] < t.k[w] { // Step 1: no path w⇝v can exist
		t.add(v, w)
		return true
	}
	// Step 2: backward search from v over same-level arcs, at most Δ arcs.
	t.stamp++
	if t.stamp == 0 {
		clear(t.markB)
		t.stamp = 1
	}
	t.markB[v] = t.stamp
	t.stack = append(t.stack[:0], v)
	arcs, complete := 0, true
search:
	for len(t.stack) > 0 {
		y := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		for _, x := range t.same[y][t.lo[y]:] {
			if arcs == t.delta {
				complete = false
				break search
			}
			arcs++
			if x == w {
				return false // w ⇝ v within level k(v)
			}
			if t.markB[x] != t.stamp {
				t.markB[x] = t.stamp
				t.stack = append(t.stack, x)
			}
		}
	}
	t.undo = t.undo[:0]
	switch {
	case !complete:
		t.raise(w, t.k[v]+1)
	case t.k[w] == t.k[v]:
		// All of level k(v) that reaches v was searched without meeting w.
		t.add(v, w)
		return true
	default:
		t.raise(w, t.k[v])
	}
	// Step 3: forward search from w, restoring k(x) ≤ k(y) on every arc. A
	// vertex reached that is v or was visited backwards closes a cycle; then
	// every change is undone.
	t.stack = append(t.stack[:0], w)
	for len(t.stack) > 0 {
		x := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		for _, y := range t.out[x] {
			if y == v || t.markB[y] == t.stamp {
				t.rollback()
				return false
			}
			switch {
			case t.k[x] > t.k[y]:
				t.raise(y, t.k[x])
				t.same[y] = append(t.same[y], x)
				t.stack = append(t.stack, y)
			case t.k[x] == t.k[y]:
				t.save(y)
				t.same[y] = append(t.same[y], x)
			}
		}
	}
	// Commit: drop the stale entries of the raised vertices.
	for _, c := range t.undo {
		if y := c.y; t.lo[y] > 0 {
			t.same[y] = append(t.same[y][:0], t.same[y][t.lo[y]:]...)
			t.lo[y] = 0
		}
	}
	t.add(v, w) // Step 4
	return true
}

func (t *levels) save(y int32) {
	t.undo = append(t.undo, change{y: y, k: t.k[y], lo: t.lo[y], n: int32(len(t.same[y]))})
}

// raise sets the level of y to l > k(y); y then has no same-level arcs in.
func (t *levels) raise(y, l int32) {
	t.save(y)
	t.k[y] = l
	t.lo[y] = int32(len(t.same[y]))
}

// rollback undoes the changes of the current insertion, newest first.
func (t *levels) rollback() {
	for i := len(t.undo) - 1; i >= 0; i-- {
		c := t.undo[i]
		t.k[c.y], t.lo[c.y], t.same[c.y] = c.k, c.lo, t.same[c.y][:c.n]
	}
	t.undo = t.undo[:0]
}

func (t *levels) add(v, w int32) {
	t.out[v] = append(t.out[v], w)
	if t.k[v] == t.k[w] {
		t.same[w] = append(t.same[w], v)
	}
}
