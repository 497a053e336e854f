package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestClusteredBootstrapHandCases: with one unit per cluster it is the
// i.i.d. bootstrap's observed difference; a constant difference gives a
// degenerate interval at it; identical methods give p = 1.
func TestClusteredBootstrapHandCases(t *testing.T) {
	x := [][]float64{{1, 1, 0, 1}, {1, 0}}
	y := [][]float64{{0, 1, 0, 0}, {0, 0}}
	cl := [][]int{{7, 7, 8, 9}, {1, 2}}
	iv, err := ClusteredBootstrap(x, y, cl, 500, 0.95, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Stratum 0: (1+0+0+1)/4 = 0.5; stratum 1: (1+0)/2 = 0.5.
	if iv.Diff != 0.5 || iv.N != 6 || iv.Strata != 2 || !(iv.Lo <= 0.5 && iv.Hi >= 0.5) {
		t.Errorf("interval %+v, want diff 0.5 over 6 units in 2 strata", iv)
	}
	same, _ := ClusteredBootstrap(x, x, cl, 200, 0.95, true, 1)
	if same.Diff != 0 || same.Lo != 0 || same.Hi != 0 || same.P != 1 {
		t.Errorf("identical methods: %+v, want 0 [0, 0] with p = 1", same)
	}
	always := [][]float64{{1, 1, 1}}
	never := [][]float64{{0, 0, 0}}
	c, _ := ClusteredBootstrap(always, never, [][]int{{1, 2, 2}}, 200, 0.95, false, 1)
	if c.Diff != 1 || c.Lo != 1 || c.Hi != 1 || c.P != 0 {
		t.Errorf("a constant difference: %+v, want 1 [1, 1] with p = 0", c)
	}
	for _, bad := range []struct {
		x, y [][]float64
		c    [][]int
	}{
		{x, y, cl[:1]},
		{x, y, [][]int{{1, 2, 3}, {1, 2}}},
		{[][]float64{{}}, [][]float64{{}}, [][]int{{}}},
	} {
		if _, err := ClusteredBootstrap(bad.x, bad.y, bad.c, 10, 0.95, false, 1); err == nil {
			t.Errorf("%v / %v: no error", bad.x, bad.c)
		}
	}
}

// TestClusteredBootstrapCoverage simulates clustered paired outcomes whose
// true difference is known (anchors with their own difficulty for each
// method, as comparisons sharing an anchor artist) and checks that the
// clustered interval covers it at close to its nominal 95% (within ±3%),
// while the i.i.d. interval, which ignores the clusters, covers it
// clearly less often.
func TestClusteredBootstrapCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("coverage simulation: a few seconds")
	}
	const (
		sims, reps = 400, 400
		anchors    = 60 // per split, as 73 aset400 test anchors
		perAnchor  = 16
		truth      = 0.05 // E[x − y]
	)
	rng := rand.New(rand.NewPCG(11, 12))
	covered, coveredIID := 0, 0
	for sim := 0; sim < sims; sim++ {
		x, y := [][]float64{{}}, [][]float64{{}}
		cl := [][]int{{}}
		for a := 0; a < anchors; a++ {
			// Each anchor shifts both methods' success probabilities and
			// their difference: units of an anchor are correlated.
			base := 0.6 + 0.25*(rng.Float64()-0.5)
			gap := truth + 0.3*(rng.Float64()-0.5) // mean truth over anchors
			for u := 0; u < perAnchor; u++ {
				px, py := base+gap/2, base-gap/2
				xv, yv := 0.0, 0.0
				r := rng.Float64()
				if r < px {
					xv = 1
				}
				if r < py { // same draw: the pairing correlates x and y
					yv = 1
				}
				x[0] = append(x[0], xv)
				y[0] = append(y[0], yv)
				cl[0] = append(cl[0], a)
			}
		}
		iv, err := ClusteredBootstrap(x, y, cl, reps, 0.95, false, uint64(sim))
		if err != nil {
			t.Fatal(err)
		}
		if iv.Lo <= truth && truth <= iv.Hi {
			covered++
		}
		iid, _ := PairedBootstrap(x, y, reps, 0.95, uint64(sim))
		if iid.Lo <= truth && truth <= iid.Hi {
			coveredIID++
		}
	}
	rate, rateIID := float64(covered)/sims, float64(coveredIID)/sims
	t.Logf("coverage of the true difference: clustered %.3f, i.i.d. %.3f (nominal 0.95, %d simulations)", rate, rateIID, sims)
	if math.Abs(rate-0.95) > 0.03 {
		t.Errorf("clustered coverage %.3f, want 0.95 ± 0.03", rate)
	}
	if rateIID > rate-0.05 {
		t.Errorf("i.i.d. coverage %.3f not clearly below the clustered %.3f: the simulation has no clustering to speak of", rateIID, rate)
	}
}

// TestHolm checks the step-down adjustment on a hand-computed case (Holm
// 1979): p = (0.01, 0.04, 0.03, NaN, 0.005) over m = 4 claims.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, math.NaN(), 0.005})
	// Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 → max 0.06.
	want := []float64{0.03, 0.06, 0.06, math.NaN(), 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15) {
			t.Errorf("Holm[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if h := Holm([]float64{0.9, 0.8}); h[0] != 1 || h[1] != 1 {
		t.Errorf("Holm caps at 1: %v", h)
	}
}
