package stats

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"
)

// long runs the coverage simulations at their full size (go test
// ./pkg/stats -run Coverage -stats.long; a few minutes); without it they
// run a short form that CI runs.
var long = flag.Bool("stats.long", false, "run the coverage simulations at full size")

// design is a layout of held-out comparisons whose anchor clusters the
// claims resample: how many anchors a simulation draws, in how many
// splits, how many per split, and whether the splits' test sets partition
// the anchors (disjoint folds) or are drawn afresh for every split (so an
// anchor recurs in several).
type design struct {
	name       string
	population int // anchors drawn per simulation
	splits     int
	perSplit   int     // test anchors per split
	disjoint   bool    // splits partition the population
	perAnchor  [2]int  // comparisons per anchor, uniform in [lo, hi]
	splitSD    float64 // sd of a split's shift of the difference (the split's models)
	redraw     float64 // chance that a comparison's outcome is drawn again in another split
}

// The designs of the committed configs: aset400's one 330/82 split
// (single_kernels, kernel_groups, graph_processing), its 10 random 330/82
// splits (aset400_splits, aset400_claims_splits: 412 artists, each tested
// 2 times on average), and ALOI's 5 disjoint folds of 200 items.
var designs = []design{
	{name: "one split (aset400 one-split configs)", population: 82, splits: 1, perSplit: 82, perAnchor: [2]int{6, 26}},
	{name: "overlapping random test sets (aset400 10 splits)", population: 412, splits: 10, perSplit: 82, perAnchor: [2]int{6, 26}, splitSD: 0.01, redraw: 0.2},
	{name: "disjoint folds (aloi10 5 folds)", population: 200, splits: 5, perSplit: 40, disjoint: true, perAnchor: [2]int{6, 26}, splitSD: 0.01},
}

// simulate draws one data set of design d whose true difference
// E[x − y] is truth: anchor a has a base success rate and its own
// difference (mean truth over anchors), kept whenever it is tested; each
// of its comparisons has a latent draw scored against both methods (the
// pairing), kept across splits but for a share redraw; each split shifts
// the difference by a normal draw of sd splitSD (mean 0).
func simulate(d design, truth float64, rng *rand.Rand) (x, y [][]float64, cluster [][]int) {
	type anchor struct {
		base, gap float64
		draws     []float64
	}
	as := make([]anchor, d.population)
	for a := range as {
		as[a].base = 0.6 + 0.25*(rng.Float64()-0.5)
		as[a].gap = truth + 0.3*(rng.Float64()-0.5)
		n := d.perAnchor[0] + rng.IntN(d.perAnchor[1]-d.perAnchor[0]+1)
		as[a].draws = make([]float64, n)
		for u := range as[a].draws {
			as[a].draws[u] = rng.Float64()
		}
	}
	perm := rng.Perm(d.population)
	for s := 0; s < d.splits; s++ {
		shift := d.splitSD * rng.NormFloat64()
		var test []int
		if d.disjoint {
			test = perm[s*d.perSplit : (s+1)*d.perSplit]
		} else {
			test = rng.Perm(d.population)[:d.perSplit]
		}
		var xs, ys []float64
		var cs []int
		for _, a := range test {
			gap := as[a].gap + shift
			px, py := as[a].base+gap/2, as[a].base-gap/2
			for _, r := range as[a].draws {
				if rng.Float64() < d.redraw {
					r = rng.Float64()
				}
				xs = append(xs, b2f(r < px))
				ys = append(ys, b2f(r < py))
				cs = append(cs, a)
			}
		}
		x, y, cluster = append(x, xs), append(y, ys), append(cluster, cs)
	}
	return x, y, cluster
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// coverage is the share of sims simulations (seeds seed, seed+1, …) whose
// interval iv covers the truth, and its Monte Carlo standard error.
func coverage(d design, sims, reps int, seed uint64, iv func(x, y [][]float64, cl [][]int, reps int, seed uint64) (Interval, error)) (rate, se float64, err error) {
	const truth = 0.03
	covered := 0
	for sim := 0; sim < sims; sim++ {
		rng := rand.New(rand.NewPCG(seed+uint64(sim), 5))
		x, y, cl := simulate(d, truth, rng)
		v, err := iv(x, y, cl, reps, seed+uint64(sim))
		if err != nil {
			return 0, 0, err
		}
		if v.Lo <= truth && truth <= v.Hi {
			covered++
		}
	}
	rate = float64(covered) / float64(sims)
	return rate, math.Sqrt(rate * (1 - rate) / float64(sims)), nil
}

// coverageSize is the simulations (pooled over seed blocks) and
// replicates of the coverage tests: the short form CI runs, or the long.
func coverageSize() (sims, reps int) {
	if *long {
		return 4000, 1000
	}
	return 1000, 400
}

// TestAnchorBootstrapCoverage: for each design the configs use, the
// interval the claims use (AnchorBootstrap) covers the true difference of
// simulated clustered outcomes at ≥ 0.93 (nominal 0.95), over ≥ 1000
// simulations with their Monte Carlo error printed.
func TestAnchorBootstrapCoverage(t *testing.T) {
	sims, reps := coverageSize()
	for _, d := range designs {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			rate, se, err := coverage(d, sims, reps, 1000, func(x, y [][]float64, cl [][]int, reps int, seed uint64) (Interval, error) {
				return AnchorBootstrap(x, y, cl, reps, 0.95, seed)
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: coverage %.3f ± %.3f (MC s.e.; %d simulations, %d replicates; nominal 0.95)", d.name, rate, se, sims, reps)
			if rate < 0.93 {
				t.Errorf("coverage %.3f ± %.3f below 0.93", rate, se)
			}
		})
	}
}

// TestWithinSplitBootstrapUndercoversOverlap is the control of the
// overlapping design: the within-split interval (ClusteredBootstrap with
// splits resampled), which takes an anchor tested in several splits for
// independent clusters, covers clearly less than 0.93 there, so the
// simulation has the dependence CrossedBootstrap is for.
func TestWithinSplitBootstrapUndercoversOverlap(t *testing.T) {
	sims, reps := coverageSize()
	d := designs[1]
	rate, se, err := coverage(d, sims, reps, 1000, func(x, y [][]float64, cl [][]int, reps int, seed uint64) (Interval, error) {
		return ClusteredBootstrap(x, y, cl, reps, 0.95, true, seed)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s, within-split interval: coverage %.3f ± %.3f (%d simulations)", d.name, rate, se, sims)
	if rate > 0.93-3*se {
		t.Errorf("within-split coverage %.3f ± %.3f not clearly below 0.93: the simulation has no cross-split dependence to speak of", rate, se)
	}
}

// TestStudentizedBootstrapFewClusters is why one split's interval is the
// studentised one: with 20 anchors the percentile interval undercovers
// (about 0.92) and the bootstrap-t covers at ≥ 0.93; with the configs' 82
// both do (TestAnchorBootstrapCoverage).
func TestStudentizedBootstrapFewClusters(t *testing.T) {
	sims, reps := coverageSize()
	d := design{name: "one split, 20 anchors", population: 20, splits: 1, perSplit: 20, perAnchor: [2]int{6, 26}}
	pr, pse, err := coverage(d, sims, reps, 1000, func(x, y [][]float64, cl [][]int, reps int, seed uint64) (Interval, error) {
		return ClusteredBootstrap(x, y, cl, reps, 0.95, false, seed)
	})
	if err != nil {
		t.Fatal(err)
	}
	sr, sse, err := coverage(d, sims, reps, 1000, func(x, y [][]float64, cl [][]int, reps int, seed uint64) (Interval, error) {
		return StudentizedBootstrap(x[0], y[0], cl[0], reps, 0.95, seed)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: percentile %.3f ± %.3f, studentised %.3f ± %.3f (%d simulations, %d replicates)", d.name, pr, pse, sr, sse, sims, reps)
	if sr < 0.93 || sr <= pr {
		t.Errorf("studentised coverage %.3f ± %.3f, percentile %.3f ± %.3f: want the studentised ≥ 0.93 and above the percentile", sr, sse, pr, pse)
	}
}

// TestStudentizedBootstrapHandCases: a constant difference gives the
// degenerate interval with p = 0, identical methods p = 1, and the
// interval holds the observed difference.
func TestStudentizedBootstrapHandCases(t *testing.T) {
	c, err := StudentizedBootstrap([]float64{1, 1, 1}, []float64{0, 0, 0}, []int{1, 2, 2}, 200, 0.95, 1)
	if err != nil || c.Diff != 1 || c.Lo != 1 || c.Hi != 1 || c.P != 0 || c.Clusters != 2 {
		t.Errorf("a constant difference: %+v, %v; want 1 [1, 1] with p = 0 over 2 clusters", c, err)
	}
	x := []float64{1, 1, 0, 1, 1, 0, 1, 1}
	y := []float64{0, 1, 0, 0, 1, 0, 1, 0}
	cl := []int{1, 1, 2, 2, 3, 3, 4, 4}
	same, _ := StudentizedBootstrap(x, x, cl, 200, 0.95, 1)
	if same.Diff != 0 || same.Lo != 0 || same.Hi != 0 || same.P != 1 {
		t.Errorf("identical methods: %+v, want 0 [0, 0] with p = 1", same)
	}
	iv, _ := StudentizedBootstrap(x, y, cl, 2000, 0.95, 1)
	if iv.Diff != 0.375 || !(iv.Lo < 0.375 && iv.Hi > 0.375) || iv.Design != DesignOneSplit {
		t.Errorf("interval %+v, want one around 0.375", iv)
	}
	if _, err := StudentizedBootstrap(x, y[:3], cl, 10, 0.95, 1); err == nil {
		t.Error("unpaired: no error")
	}
}

// TestCrossedBootstrapHandCases: the design and cluster count, a constant
// difference, and that an anchor's units in every split move together
// (two splits that test the same anchors are not twice the evidence).
func TestCrossedBootstrapHandCases(t *testing.T) {
	x := [][]float64{{1, 1, 0, 1}, {1, 0, 1}}
	y := [][]float64{{0, 1, 0, 0}, {0, 0, 0}}
	cl := [][]int{{7, 7, 8, 9}, {7, 8, 9}}
	if !ClustersRecur(cl) || ClustersRecur([][]int{{1, 2}, {3, 3}}) {
		t.Fatal("ClustersRecur")
	}
	iv, err := CrossedBootstrap(x, y, cl, 500, 0.95, 1)
	// Split 0: 2/4; split 1: 2/3; mean 7/12.
	if err != nil || math.Abs(iv.Diff-7.0/12) > 1e-15 || iv.Clusters != 3 || iv.Strata != 2 || iv.N != 7 || iv.Design != DesignCrossed {
		t.Errorf("interval %+v, %v; want diff 7/12 over 3 anchors, 2 splits, 7 units", iv, err)
	}
	c, _ := CrossedBootstrap([][]float64{{1, 1}, {1}}, [][]float64{{0, 0}, {0}}, [][]int{{1, 2}, {2}}, 200, 0.95, 1)
	if c.Diff != 1 || c.Lo != 1 || c.Hi != 1 || c.P != 0 {
		t.Errorf("a constant difference: %+v, want 1 [1, 1] with p = 0", c)
	}
	// One split's data, then the same split twice: the crossed interval
	// stays as wide (the second copy adds no anchor), the within-split
	// one narrows as if the anchors were twice as many.
	rng := rand.New(rand.NewPCG(3, 4))
	var xs, ys []float64
	var cs []int
	for a := 0; a < 40; a++ {
		for u := 0; u < 10; u++ {
			xs, ys, cs = append(xs, b2f(rng.Float64() < 0.7)), append(ys, b2f(rng.Float64() < 0.6)), append(cs, a)
		}
	}
	one, _ := ClusteredBootstrap([][]float64{xs}, [][]float64{ys}, [][]int{cs}, 2000, 0.95, false, 1)
	twice, _ := CrossedBootstrap([][]float64{xs, xs}, [][]float64{ys, ys}, [][]int{cs, cs}, 2000, 0.95, 1)
	within, _ := ClusteredBootstrap([][]float64{xs, xs}, [][]float64{ys, ys}, [][]int{cs, cs}, 2000, 0.95, true, 1)
	w1, w2, w3 := one.Hi-one.Lo, twice.Hi-twice.Lo, within.Hi-within.Lo
	t.Logf("widths: one split %.4f, the same split twice crossed %.4f, within-split %.4f", w1, w2, w3)
	if math.Abs(w2/w1-1) > 0.1 || w3/w1 > 0.8 {
		t.Errorf("widths %.4f (one split), %.4f (twice, crossed), %.4f (twice, within): want the crossed within 10%% of one split's and the within-split ≈ 1/√2 of it", w1, w2, w3)
	}
}
