package mkpoe

import (
	"reflect"
	"testing"
)

// TestGrowWorkingSet checks the diagonal working set's update on
// hand-set points and reduced costs (one diagonal block of 8 coordinates,
// mean |reduced cost| 1, so nearPriceFraction puts "near zero" below 0.1):
// the support and the negatively priced coordinates always join; after
// the first round the near-zero ones join too, but only when something
// outside the set is negatively priced or a comparison joins.
func TestGrowWorkingSet(t *testing.T) {
	p := &problem{blocks: []block{{diag: true, r: 8, off: 0, size: 8}}, left: make([]int32, 3)}
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
			grew := p.growWorkingSet(&set, x, tc.g, tc.m, 0.05, tc.first)
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
	const r = 200
	p := &problem{blocks: []block{{diag: true, r: r, off: 0, size: r}}, left: make([]int32, 1)}
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
		{"first round", true, maxFirstNewCoords},
		{"later round", false, maxNewCoords},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := workingSet{coords: [][]int{{0}}, inComp: make([]bool, 1)}
			p.growWorkingSet(&set, x, g, []float64{-1}, 0.05, tc.first)
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
