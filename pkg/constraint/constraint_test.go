package constraint_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// Items of the paper's Fig. 1 (McFee & Lanckriet 2011, Sec. 2.1).
const (
	fi = iota
	fj
	fk
	fl
)

// fig1 is the comparison set C of Fig. 1:
// {(j,k,j,l), (j,k,i,k), (j,l,i,k), (i,l,j,l), (i,l,i,j), (i,j,j,l)}.
var fig1 = []data.Comparison{
	{I: fj, J: fk, K: fj, L: fl},
	{I: fj, J: fk, K: fi, L: fk},
	{I: fj, J: fl, K: fi, L: fk},
	{I: fi, J: fl, K: fj, L: fl},
	{I: fi, J: fl, K: fi, L: fj},
	{I: fi, J: fj, K: fj, L: fl},
}

func TestPairIDRoundTrip(t *testing.T) {
	t.Parallel()
	// The documented numbering {0,0}, {0,1}, {1,1}, {0,2}, …
	for id, p := range []data.Pair{data.NewPair(0, 0), data.NewPair(0, 1), data.NewPair(1, 1), data.NewPair(0, 2), data.NewPair(1, 2), data.NewPair(2, 2), data.NewPair(0, 3)} {
		if got := constraint.PairID(p); got != int64(id) {
			t.Errorf("PairID(%v) = %d, want %d", p, got, id)
		}
	}
	rng := rand.New(rand.NewPCG(*seedFlag, 2))
	for range 10000 {
		p := data.NewPair(rng.IntN(constraint.MaxItem+1), rng.IntN(constraint.MaxItem+1))
		if got := constraint.PairOf(constraint.PairID(p)); got != p {
			t.Fatalf("PairOf(PairID(%v)) = %v", p, got)
		}
	}
	big := data.Pair{A: constraint.MaxItem, B: constraint.MaxItem}
	if got := constraint.PairOf(constraint.PairID(big)); got != big {
		t.Errorf("PairOf(PairID(%v)) = %v", big, got)
	}
}

func TestStepsTable(t *testing.T) {
	t.Parallel()
	c := func(i, j, k, l int) data.Comparison { return data.Comparison{I: i, J: j, K: k, L: l} }
	type step func([]data.Comparison) ([]data.Comparison, []data.Comparison, error)
	for _, test := range []struct {
		name          string
		step          step
		in            []data.Comparison
		kept, removed []data.Comparison
	}{
		{"dedup empty", constraint.Dedup, nil, []data.Comparison{}, []data.Comparison{}},
		{"dedup swapped items are repeats", constraint.Dedup,
			[]data.Comparison{c(0, 1, 2, 3), c(1, 0, 3, 2), c(0, 1, 3, 2), c(2, 3, 0, 1)},
			[]data.Comparison{c(0, 1, 2, 3), c(2, 3, 0, 1)},
			[]data.Comparison{c(1, 0, 3, 2), c(0, 1, 3, 2)}},
		{"dedup triplet written as quadruple", constraint.Dedup,
			[]data.Comparison{data.Triplet(0, 1, 2), c(1, 0, 2, 0)},
			[]data.Comparison{data.Triplet(0, 1, 2)},
			[]data.Comparison{c(1, 0, 2, 0)}},
		{"length2 removes both and repeats", constraint.Length2,
			[]data.Comparison{c(0, 1, 2, 3), c(4, 5, 0, 1), c(3, 2, 1, 0), c(0, 1, 2, 3)},
			[]data.Comparison{c(4, 5, 0, 1)},
			[]data.Comparison{c(0, 1, 2, 3), c(3, 2, 1, 0), c(0, 1, 2, 3)}},
		{"length2 keeps repeats without reverse", constraint.Length2,
			[]data.Comparison{c(0, 1, 2, 3), c(0, 1, 2, 3)},
			[]data.Comparison{c(0, 1, 2, 3), c(0, 1, 2, 3)},
			[]data.Comparison{}},
		{"vote majority keeps one copy", constraint.Vote,
			[]data.Comparison{c(2, 3, 0, 1), c(0, 1, 2, 3), c(1, 0, 2, 3), c(4, 5, 0, 1)},
			[]data.Comparison{c(0, 1, 2, 3), c(4, 5, 0, 1)},
			[]data.Comparison{c(2, 3, 0, 1), c(1, 0, 2, 3)}},
		{"vote tie removes all", constraint.Vote,
			[]data.Comparison{c(0, 1, 2, 3), c(2, 3, 0, 1), c(4, 5, 0, 1), c(4, 5, 0, 1)},
			[]data.Comparison{c(4, 5, 0, 1)},
			[]data.Comparison{c(0, 1, 2, 3), c(2, 3, 0, 1), c(4, 5, 0, 1)}},
		{"degenerate far pair", constraint.Degenerate,
			// aset400 rows "222 151 222" and "222 222 10" (1-based), 0-based here.
			[]data.Comparison{data.Triplet(221, 150, 221), data.Triplet(221, 221, 9), c(0, 1, 2, 3)},
			[]data.Comparison{data.Triplet(221, 221, 9), c(0, 1, 2, 3)},
			[]data.Comparison{data.Triplet(221, 150, 221)}},
		{"reduce fig1", constraint.Reduce, fig1,
			[]data.Comparison{fig1[0], fig1[2], fig1[4], fig1[5]},
			// Sec. 2.1: (j,k,i,k) follows from (j,k,j,l) and (j,l,i,k); likewise
			// (i,l,j,l) follows from (i,l,i,j) and (i,j,j,l).
			[]data.Comparison{fig1[1], fig1[3]}},
		{"reduce repeats", constraint.Reduce,
			[]data.Comparison{c(0, 1, 2, 3), c(1, 0, 3, 2)},
			[]data.Comparison{c(0, 1, 2, 3)},
			[]data.Comparison{c(1, 0, 3, 2)}},
		{"acyclic on a DAG keeps all", func(cs []data.Comparison) ([]data.Comparison, []data.Comparison, error) {
			return constraint.Acyclic(cs, rand.New(rand.NewPCG(1, 1)))
		}, fig1, fig1, []data.Comparison{}},
	} {
		t.Run(test.name, func(t *testing.T) {
			in := slices.Clone(test.in)
			kept, removed, err := test.step(in)
			if err != nil {
				t.Fatal(err)
			}
			if !equalComparisons(kept, test.kept) || !equalComparisons(removed, test.removed) {
				t.Errorf("kept %v removed %v, want kept %v removed %v", kept, removed, test.kept, test.removed)
			}
			if !equalComparisons(in, test.in) {
				t.Errorf("input modified")
			}
		})
	}
}

func TestStepsBadInput(t *testing.T) {
	t.Parallel()
	steps := map[string]func([]data.Comparison) ([]data.Comparison, []data.Comparison, error){
		"dedup": constraint.Dedup, "length2": constraint.Length2, "vote": constraint.Vote,
		"degenerate": constraint.Degenerate, "reduce": constraint.Reduce,
		"acyclic": func(cs []data.Comparison) ([]data.Comparison, []data.Comparison, error) {
			return constraint.Acyclic(cs, nil)
		},
	}
	for name, step := range steps {
		for _, bad := range []data.Comparison{{I: -1, J: 0, K: 1, L: 2}, {I: 0, J: 1, K: 1, L: 0}} {
			if _, _, err := step([]data.Comparison{bad}); err == nil {
				t.Errorf("%s(%v): no error", name, bad)
			}
		}
	}
	if _, err := constraint.Stats([]data.Comparison{{I: 0, J: 1, K: 0, L: 1}}); err == nil {
		t.Error("Stats: no error for a self-loop")
	}
	if _, err := constraint.ParseSteps("dedup,shuffle"); err == nil {
		t.Error("ParseSteps: no error for an unknown step")
	}
	if _, err := constraint.ParseSteps("dedup,,reduce"); err == nil {
		t.Error("ParseSteps: no error for an empty step")
	}
}

func TestStatsFig1(t *testing.T) {
	t.Parallel()
	s, err := constraint.Stats(fig1)
	if err != nil {
		t.Fatal(err)
	}
	// 5 pair-vertices {j,k},{j,l},{i,k},{i,l},{i,j}; longest path
	// {i,l}→{i,j}→{j,l}→{i,k} has 3 edges.
	want := constraint.GraphStats{Vertices: 5, Edges: 6, DistinctEdges: 6, SCCs: 5, LargestSCC: 1, Cyclic: false, Diameter: 3}
	if s != want {
		t.Errorf("Stats(fig1) = %+v, want %+v", s, want)
	}
	cyc := append(slices.Clone(fig1), fig1[2].Reverse())
	s, err = constraint.Stats(cyc)
	if err != nil {
		t.Fatal(err)
	}
	// {j,l}⇄{i,k} plus {j,k}→{j,l}→{i,k}: the only non-trivial SCC is {j,l},{i,k}.
	want = constraint.GraphStats{Vertices: 5, Edges: 7, DistinctEdges: 7, SCCs: 4, LargestSCC: 2, Cyclic: true, Diameter: -1}
	if s != want {
		t.Errorf("Stats(fig1 + reverse) = %+v, want %+v", s, want)
	}
}

func TestReduceCycleError(t *testing.T) {
	t.Parallel()
	// A 3-cycle {0,1}→{0,2}→{0,3}→{0,1} plus a tail.
	cs := []data.Comparison{data.Triplet(0, 1, 2), data.Triplet(0, 2, 3), {I: 4, J: 5, K: 0, L: 1}, data.Triplet(0, 3, 1)}
	_, _, err := constraint.Reduce(cs)
	var ce *constraint.CycleError
	if !errors.As(err, &ce) {
		t.Fatalf("Reduce on a cycle: got %v, want a *CycleError", err)
	}
	if ce.Len != 3 || len(ce.Cycle) != 3 {
		t.Fatalf("cycle %v of length %d, want 3", ce.Cycle, ce.Len)
	}
	checkCycle(t, ce.Cycle)
	if _, err := constraint.Embed(cs, 6); !errors.As(err, &ce) {
		t.Errorf("Embed on a cycle: got %v, want a *CycleError", err)
	}
	_, _, err = constraint.Run(cs, []string{constraint.StepReduce}, 1)
	if !errors.As(err, &ce) {
		t.Errorf("Run reduce on a cycle: got %v, want a wrapped *CycleError", err)
	}
}

// checkCycle fails unless cyc is a closed walk in the constraint graph.
func checkCycle(t *testing.T, cyc []data.Comparison) {
	t.Helper()
	for i, c := range cyc {
		next := cyc[(i+1)%len(cyc)]
		if c.Right() != next.Left() {
			t.Fatalf("cycle %v breaks between %v and %v", cyc, c, next)
		}
	}
}

// TestRandomGraphs checks the steps against brute force on many small random
// comparison sets.
func TestRandomGraphs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seedFlag, 1))
	differ := 0
	for trial := range 200 {
		n := 3 + rng.IntN(6) // ≤ 8 items, ≤ 36 pair-vertices
		cs := randomComparisons(rng, n, 1+rng.IntN(40))
		in := slices.Clone(cs)
		seed := rng.Uint64()
		kept, removed, err := constraint.Acyclic(cs, rand.New(rand.NewPCG(seed, seed)))
		if err != nil {
			t.Fatal(err)
		}
		if !equalComparisons(cs, in) {
			t.Fatalf("trial %d (seed %d): Acyclic modified its input", trial, *seedFlag)
		}
		checkSplit(t, "acyclic", cs, kept, removed)
		if _, err := topo.Sort(gonumGraph(kept)); err != nil {
			t.Fatalf("trial %d (seed %d): acyclic output has a cycle: %v", trial, *seedFlag, err)
		}
		vs := vertexIDs(cs)
		reach := newClosure(kept, vs)
		for _, c := range removed {
			k := constraint.KeyOf(c)
			if !reach[k.To][k.From] {
				t.Fatalf("trial %d (seed %d): removed %v closes no cycle; output not maximal", trial, *seedFlag, c)
			}
		}
		// Idempotent, deterministic, seed-dependent.
		again, none, _ := constraint.Acyclic(kept, rand.New(rand.NewPCG(7, 7)))
		if !equalComparisons(again, kept) || len(none) != 0 {
			t.Fatalf("trial %d (seed %d): Acyclic not idempotent", trial, *seedFlag)
		}
		same, _, _ := constraint.Acyclic(cs, rand.New(rand.NewPCG(seed, seed)))
		if !equalComparisons(same, kept) {
			t.Fatalf("trial %d (seed %d): same seed, different result", trial, *seedFlag)
		}
		if other, _, _ := constraint.Acyclic(cs, rand.New(rand.NewPCG(seed+1, seed+1))); !equalComparisons(other, kept) {
			differ++
		}

		// Reduce keeps reachability exactly and is minimal.
		red, redRemoved, err := constraint.Reduce(kept)
		if err != nil {
			t.Fatalf("trial %d (seed %d): Reduce: %v", trial, *seedFlag, err)
		}
		checkSplit(t, "reduce", kept, red, redRemoved)
		if rr := newClosure(red, vs); !sameClosure(rr, reach, vs) {
			t.Fatalf("trial %d (seed %d): Reduce changed reachability", trial, *seedFlag)
		}
		for e, c := range red {
			rest := slices.Delete(slices.Clone(red), e, e+1)
			k := constraint.KeyOf(c)
			if newClosure(rest, vs)[k.From][k.To] {
				t.Fatalf("trial %d (seed %d): kept %v is implied by the others; not minimal", trial, *seedFlag, c)
			}
		}
		if again, none, _ := constraint.Reduce(red); !equalComparisons(again, red) || len(none) != 0 {
			t.Fatalf("trial %d (seed %d): Reduce not idempotent", trial, *seedFlag)
		}

		// Dedup, Length2 and Vote.
		checkDedupLength2Vote(t, cs)

		// Stats against gonum and brute force.
		checkStats(t, cs, vs)
		checkStats(t, red, vs)

		// Appendix A certificate on the acyclic set.
		ok, _, _ := constraint.Degenerate(kept)
		checkEmbedding(t, ok, n)
	}
	// With ≤ 40 random comparisons many sets are acyclic, so only some differ.
	if differ < 20 {
		t.Errorf("only %d of 200 sets gave a different acyclic subset for another seed", differ)
	}
	t.Logf("%d of 200 sets differ between two seeds", differ)
}

func sameClosure(a, b closure, vs []int64) bool {
	for _, x := range vs {
		for _, y := range vs {
			if a[x][y] != b[x][y] {
				return false
			}
		}
	}
	return true
}

func checkDedupLength2Vote(t *testing.T, cs []data.Comparison) {
	t.Helper()
	count := map[constraint.EdgeKey]int{}
	for _, c := range cs {
		count[constraint.KeyOf(c)]++
	}
	kept, removed, _ := constraint.Dedup(cs)
	checkSplit(t, "dedup", cs, kept, removed)
	seen := map[constraint.EdgeKey]bool{}
	for _, c := range kept {
		if seen[constraint.KeyOf(c)] {
			t.Fatalf("dedup kept a repeat of %v", c)
		}
		seen[constraint.KeyOf(c)] = true
	}
	if len(kept) != len(count) {
		t.Fatalf("dedup kept %d, want %d distinct", len(kept), len(count))
	}
	if again, none, _ := constraint.Dedup(kept); !equalComparisons(again, kept) || len(none) != 0 {
		t.Fatal("Dedup not idempotent")
	}

	kept, removed, _ = constraint.Length2(cs)
	checkSplit(t, "length2", cs, kept, removed)
	for _, c := range kept {
		if count[constraint.KeyOf(c.Reverse())] > 0 {
			t.Fatalf("length2 kept %v whose reverse occurs", c)
		}
	}
	for _, c := range removed {
		if count[constraint.KeyOf(c.Reverse())] == 0 {
			t.Fatalf("length2 removed %v whose reverse does not occur", c)
		}
	}
	if again, none, _ := constraint.Length2(kept); !equalComparisons(again, kept) || len(none) != 0 {
		t.Fatal("Length2 not idempotent")
	}

	kept, removed, _ = constraint.Vote(cs)
	checkSplit(t, "vote", cs, kept, removed)
	seen = map[constraint.EdgeKey]bool{}
	for _, c := range kept {
		k := constraint.KeyOf(c)
		if seen[k] || count[k] <= count[constraint.KeyOf(c.Reverse())] {
			t.Fatalf("vote kept %v: %d for, %d against, repeat %v", c, count[k], count[constraint.KeyOf(c.Reverse())], seen[k])
		}
		seen[k] = true
	}
	for k, m := range count {
		r := constraint.EdgeKey{From: k.To, To: k.From}
		if m > count[r] && !seen[k] {
			t.Fatalf("vote dropped the majority direction %v", k)
		}
	}
	if again, none, _ := constraint.Vote(kept); !equalComparisons(again, kept) || len(none) != 0 {
		t.Fatal("Vote not idempotent")
	}
}

func checkStats(t *testing.T, cs []data.Comparison, vs []int64) {
	t.Helper()
	s, err := constraint.Stats(cs)
	if err != nil {
		t.Fatal(err)
	}
	g := gonumGraph(cs)
	sccs := topo.TarjanSCC(g)
	largest := 0
	for _, c := range sccs {
		largest = max(largest, len(c))
	}
	_, sortErr := topo.Sort(g)
	if s.Vertices != g.Nodes().Len() || s.SCCs != len(sccs) || s.LargestSCC != largest || s.Cyclic != (sortErr != nil) {
		t.Fatalf("Stats %+v disagree with gonum: %d vertices, %d SCCs, largest %d, Sort error %v", s, g.Nodes().Len(), len(sccs), largest, sortErr)
	}
	if s.Cyclic {
		if s.Diameter != -1 {
			t.Fatalf("cyclic graph has diameter %d, want -1", s.Diameter)
		}
		return
	}
	// Brute force longest path: relax |V| times.
	depth := map[int64]int{}
	best := 0
	for range vs {
		for _, c := range cs {
			k := constraint.KeyOf(c)
			if depth[k.From]+1 > depth[k.To] {
				depth[k.To] = depth[k.From] + 1
				best = max(best, depth[k.To])
			}
		}
	}
	if s.Diameter != best {
		t.Fatalf("Diameter %d, want %d", s.Diameter, best)
	}
}

// checkEmbedding embeds the acyclic set cs by Appendix A and checks that each
// comparison holds strictly, with squared-distance margin ≥ 1.
func checkEmbedding(t *testing.T, cs []data.Comparison, n int) {
	t.Helper()
	x, err := constraint.Embed(cs, n)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if r, _ := x.Dims(); r != n {
		t.Fatalf("Embed returned %d rows, want %d", r, n)
	}
	if worst := minMargin(x, cs); worst < 1-1e-8 {
		t.Fatalf("Embed: squared-distance margin %g < 1", worst)
	}
}

func sqDist(x *mat.Dense, a, b int) float64 {
	_, d := x.Dims()
	s := 0.0
	for c := 0; c < d; c++ {
		v := x.At(a, c) - x.At(b, c)
		s += v * v
	}
	return s
}

// minMargin returns min over cs of d²(k,l) − d²(i,j); +Inf for empty cs.
func minMargin(x *mat.Dense, cs []data.Comparison) float64 {
	worst := 1e300
	for _, c := range cs {
		worst = min(worst, sqDist(x, c.K, c.L)-sqDist(x, c.I, c.J))
	}
	return worst
}

func TestEmbedFig1(t *testing.T) {
	t.Parallel()
	delta, err := constraint.TotalOrder(fig1, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Algorithm 5 levels: {i,l} 1, {j,k} 1, {i,j} 2, {j,l} 3, {i,k} 4; the
	// unconstrained pair {k,l} is an isolated vertex, 1.
	want := mat.NewSymDense(4, []float64{
		0, 2, 4, 1,
		2, 0, 1, 3,
		4, 1, 0, 1,
		1, 3, 1, 0,
	})
	if !mat.Equal(delta, want) {
		t.Errorf("TotalOrder(fig1) =\n%v\nwant\n%v", mat.Formatted(delta), mat.Formatted(want))
	}
	checkEmbedding(t, fig1, 4)
	x, _ := constraint.Embed(fig1, 4)
	if _, d := x.Dims(); d > 3 {
		t.Errorf("embedding has %d > n−1 = 3 columns", d)
	}
}

func TestEmbedErrors(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name string
		cs   []data.Comparison
		n    int
	}{
		{"no items", nil, 0},
		{"index out of range", fig1, 3},
		{"far pair degenerate", []data.Comparison{data.Triplet(0, 1, 0)}, 2},
		{"degenerate vertex inside a path", []data.Comparison{{I: 0, J: 1, K: 2, L: 2}, {I: 2, J: 2, K: 0, L: 2}}, 3},
	} {
		if _, err := constraint.Embed(test.cs, test.n); err == nil {
			t.Errorf("%s: no error", test.name)
		}
	}
	// Near pair degenerate is fine: d(0,1)² ≥ 1 > d(0,0)² = 0.
	checkEmbedding(t, []data.Comparison{data.Triplet(0, 0, 1)}, 2)
	x, err := constraint.Embed(nil, 1)
	if err != nil || x.At(0, 0) != 0 {
		t.Errorf("Embed(nil, 1) = %v, %v", x, err)
	}
}

func TestRunPipeline(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seedFlag, 3))
	cs := randomComparisons(rng, 12, 300)
	steps, err := constraint.ParseSteps(" dedup, length2 ,acyclic,reduce")
	if err != nil {
		t.Fatal(err)
	}
	out, reports, err := constraint.Run(cs, steps, 5)
	if err != nil {
		t.Fatal(err)
	}
	in := len(cs)
	for i, r := range reports {
		if r.Step != steps[i] || r.In != in || r.In-r.Removed != r.Out || len(r.RemovedComparisons) != r.Removed {
			t.Fatalf("report %d %+v inconsistent (input %d)", i, r, in)
		}
		in = r.Out
	}
	if len(out) != in {
		t.Fatalf("%d comparisons out, last report says %d", len(out), in)
	}
	again, _, _ := constraint.Run(cs, steps, 5)
	if !equalComparisons(again, out) {
		t.Fatal("Run with the same seed differs")
	}
	// The steps compose in any order; the paper pipeline output is a fixed
	// point of every step.
	for _, perm := range [][]string{{"reduce", "acyclic", "length2", "dedup", "vote"}, {"vote"}} {
		o, _, err := constraint.Run(out, perm, 9)
		if err != nil || !equalComparisons(o, out) {
			t.Fatalf("Run(%v) on processed output changed it (err %v)", perm, err)
		}
	}
	s, _ := constraint.Stats(out)
	if s.Cyclic || s.DistinctEdges != s.Edges {
		t.Fatalf("processed set: %+v", s)
	}
	checkEmbedding(t, mustDegenerate(out), 12)
}

func mustDegenerate(cs []data.Comparison) []data.Comparison {
	kept, _, err := constraint.Degenerate(cs)
	if err != nil {
		panic(err)
	}
	return kept
}

// TestAcyclicIsAlgorithm1 replays Algorithm 1 literally (edges in the same
// seeded random order, each kept unless a depth-first search finds a path
// from its head back to its tail) and asks Acyclic, with its component
// filter and two-way search, to keep exactly the same comparisons: maximal
// subsets are many, but the one of Algorithm 1 is fixed by the order.
func TestAcyclicIsAlgorithm1(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		items, comps int
		trials       int
	}{
		{"tiny", 4, 10, 100},
		{"small", 8, 60, 100},
		{"medium, one big component", 12, 400, 30},
		{"sparse, many components", 40, 300, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(*seedFlag, 11))
			for trial := range tc.trials {
				cs := randomComparisons(rng, tc.items, tc.comps)
				seed := rng.Uint64()
				kept, _, err := constraint.Acyclic(cs, rand.New(rand.NewPCG(seed, seed)))
				if err != nil {
					t.Fatal(err)
				}
				// The permutation Acyclic draws: a shuffle of 0..m−1.
				perm := make([]int, len(cs))
				for e := range perm {
					perm[e] = e
				}
				rand.New(rand.NewPCG(seed, seed)).Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
				adj := map[int64][]int64{}
				keep := make([]bool, len(cs))
				for _, e := range perm {
					k := constraint.KeyOf(cs[e])
					if !pathExists(adj, k.To, k.From) {
						keep[e] = true
						adj[k.From] = append(adj[k.From], k.To)
					}
				}
				var want []data.Comparison
				for e, c := range cs {
					if keep[e] {
						want = append(want, c)
					}
				}
				if !equalComparisons(kept, want) {
					t.Fatalf("trial %d (seed %d): Acyclic kept %d comparisons, Algorithm 1 %d", trial, *seedFlag, len(kept), len(want))
				}
			}
		})
	}
}

// pathExists reports whether to is reachable from from (depth-first search).
func pathExists(adj map[int64][]int64, from, to int64) bool {
	seen := map[int64]bool{from: true}
	stack := []int64{from}
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
