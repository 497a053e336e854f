package mkpoe

import (
	"reflect"
	"sync"
	"testing"
)

// TestGrowWorkingSet checks the diagonal working set's update on
// hand-set points and reduced costs (one diagonal block of 8 coordinates,
// mean |reduced cost| 1, so nearPriceFraction puts "near zero" below 0.1):
// the support and the negatively priced coordinates always join; after
// the first round the near-zero ones join too, but only when something
// outside the set is negatively priced or a comparison joins.
func TestGrowWorkingSet(t *testing.T) {
	t.Parallel()
	p := &problem{blocks: []block{{diag: true, r: 8, off: 0, size: 8}}, left: make([]int32, 3), tune: defaultTuning()}
	//                 0     1     2     3     4     5     6     7
	x := []float64{1, 0, 0, 0, 0, 0.5, 0, 0}
	// mean |g| = 8/8 = 1.
	negative := []float64{0, -0.5, 0.05, 0.09, 3.34, 0, 0.11, 3.91}
	nearOnly := []float64{0, 0.5, 0.05, 0.09, 3.25, 0, 0.11, 4}
	kept := []float64{-1, -1, -1} // no comparison above margin −0.05
	joins := []float64{-1, 0.2, -1}
	tests := []struct {
		name       string
		first      bool
		g, m       []float64
		wantCoords []int
		wantComps  []int
		wantGrew   bool
	}{
		{"first round: negative only", true, negative, kept, []int{0, 1, 5}, nil, true},
		{"later round: negative and near zero", false, negative, kept, []int{0, 1, 2, 3, 5}, nil, true},
		{"later round: nothing negative, nothing joins", false, nearOnly, kept, []int{0, 5}, nil, false},
		{"later round: a comparison joins", false, nearOnly, joins, []int{0, 2, 3, 5}, []int{1}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := workingSet{coords: [][]int{{0, 5}}, inComp: make([]bool, 3)}
			grew := p.growWorkingSet(&set, x, tc.g, tc.m, p.tune.laterSlack, p.tune.crossover.rangeTolerance, tc.first)
			if !reflect.DeepEqual(set.coords[0], tc.wantCoords) || !reflect.DeepEqual(set.comps, tc.wantComps) || grew != tc.wantGrew {
				t.Errorf("coords %v, comps %v, grew %v; want %v, %v, %v", set.coords[0], set.comps, grew, tc.wantCoords, tc.wantComps, tc.wantGrew)
			}
			if tc.first && len(set.priced[0]) != 0 {
				t.Errorf("first round marked %v as priced; its prices are the first-order point's", set.priced[0])
			}
			if !tc.first {
				for _, c := range tc.wantCoords {
					if c != 0 && c != 5 && !set.priced[0][c] {
						t.Errorf("coordinate %d entered by pricing but is not marked to stay", c)
					}
				}
			}
		})
	}
}

// TestGrowWorkingSetLimits: with more negatively priced coordinates than
// either limit, the first round takes the maxFirstNewCoords most negative
// ones and a later round the maxNewCoords most negative ones (one diagonal
// block of 200 coordinates, x = 0 off coordinate 0, reduced cost −1 − t/200
// at coordinate t ≥ 1, so the most negative are the highest t).
func TestGrowWorkingSetLimits(t *testing.T) {
	t.Parallel()
	const r = 200
	p := &problem{blocks: []block{{diag: true, r: r, off: 0, size: r}}, left: make([]int32, 1), tune: defaultTuning()}
	x := make([]float64, r)
	x[0] = 1
	g := make([]float64, r)
	for k := 1; k < r; k++ {
		g[k] = -1 - float64(k)/r
	}
	for _, tc := range []struct {
		name  string
		first bool
		want  int
	}{
		{"first round", true, defaultTuning().crossover.maxFirstNewCoords},
		{"later round", false, defaultTuning().crossover.maxNewCoords},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := workingSet{coords: [][]int{{0}}, inComp: make([]bool, 1)}
			p.growWorkingSet(&set, x, g, []float64{-1}, p.tune.laterSlack, p.tune.crossover.rangeTolerance, tc.first)
			got := set.coords[0]
			if len(got) != 1+tc.want {
				t.Fatalf("%d coordinates, want the support and %d priced", len(got), tc.want)
			}
			// The support, then the tc.want most negatively priced: the
			// highest coordinates.
			if got[0] != 0 || got[1] != r-tc.want || got[len(got)-1] != r-1 {
				t.Errorf("coordinates %v…%v, want 0 and %d…%d", got[:2], got[len(got)-1], r-tc.want, r-1)
			}
		})
	}
}

// TestGrowWorkingSetSupportTolerance checks that a coordinate at 5e-5 of
// its block's largest counts as support after a round solved to its own
// tolerance (rangeTolerance) and not after a loose one
// (looseSupportTolerance), where an interior point still carries weights
// that size off the optimum's support.
func TestGrowWorkingSetSupportTolerance(t *testing.T) {
	t.Parallel()
	p := &problem{blocks: []block{{diag: true, r: 4, off: 0, size: 4}}, left: make([]int32, 1), tune: defaultTuning()}
	x := []float64{1, 5e-5, 2e-6, 0.3}
	g := []float64{0, 0, 0, 0} // nothing priced
	for _, tc := range []struct {
		name       string
		supportTol float64
		want       []int
	}{
		{"solved round", defaultTuning().crossover.rangeTolerance, []int{0, 1, 3}},
		{"loose round", defaultTuning().crossover.looseSupportTolerance, []int{0, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := workingSet{coords: [][]int{{0, 1, 2, 3}}, inComp: []bool{true}, comps: []int{0}}
			p.growWorkingSet(&set, x, g, []float64{-1}, p.tune.laterSlack, tc.supportTol, false)
			if !reflect.DeepEqual(set.coords[0], tc.want) {
				t.Errorf("coords %v, want %v", set.coords[0], tc.want)
			}
		})
	}
}

// TestPricingGrows checks the test that ends a loose round: a comparison
// outside the set above margin −slack, or a negatively priced coordinate
// outside the set, grows it; a negatively priced coordinate inside the
// set (a restricted dual's residual) does not.
func TestPricingGrows(t *testing.T) {
	t.Parallel()
	p := &problem{blocks: []block{{diag: true, r: 4, off: 0, size: 4}}, left: make([]int32, 2), tune: defaultTuning()}
	for _, tc := range []struct {
		name string
		g, m []float64
		want bool
	}{
		{"nothing outside", []float64{-1, 0.2, 0, 3}, []float64{0.5, -0.06}, false},
		{"coordinate priced outside", []float64{0, 0.2, -1e-9, 3}, []float64{0.5, -0.06}, true},
		{"comparison outside joins", []float64{0, 0.2, 0, 3}, []float64{0.5, -0.04}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := workingSet{coords: [][]int{{0, 1}}, inComp: []bool{true, false}, comps: []int{0}}
			if got := p.pricingGrows(&set, tc.g, tc.m, p.tune.laterSlack); got != tc.want {
				t.Errorf("pricingGrows = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLooseRoundsMatchExactOptimum runs the diagonal high-β cases (β = 1e4
// … 1e7, realizable and noisy) and counts the crossover rounds that stop
// loosely, at roundGapFraction·Tol with pricing already growing the set:
// there must be such rounds, and every fit must still match the exact
// optimum (checkExact).
func TestLooseRoundsMatchExactOptimum(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	loose := 0
	count := tuned(func(t *tuning) {
		t.hooks.crossoverRoundEnd = func(_ int, l bool) {
			if l {
				mu.Lock()
				loose++
				mu.Unlock()
			}
		}
	})
	for _, c := range highBetaCases() {
		if c.kind != hbDiag {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			ref, err := c.exact()
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			m, err := c.fitWith(&Settings{Beta: c.beta, tuning: count})
			if err != nil {
				t.Fatalf("Fit: %v", err)
			}
			checkExact(t, c, ref, m, 0)
		})
	}
	if loose == 0 {
		t.Error("no crossover round stopped loosely")
	}
}
