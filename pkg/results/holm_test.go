package results

import (
	"math"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/stats"
)

// TestHolmFamilies: claims citing the same table are one family across
// runs (a claim listed by two configs gets the same m in both), claims
// citing none another, and the verdict follows the family's adjusted p.
func TestHolmFamilies(t *testing.T) {
	iv := func(lo, p float64) *stats.Interval { return &stats.Interval{Lo: lo, Hi: lo + 0.1, P: p, Reps: 2000} }
	runs := []FamilyRun{
		{Name: "one", Claims: []Claim{
			{Claim: "a", Paper: "Table 3", Clustered: iv(0.01, 0.01)},
			{Claim: "b", Paper: "Table 4", Clustered: iv(0.01, 0.02)},
			{Claim: "c", Paper: "", Clustered: iv(-0.01, 0.3)},
		}},
		{Name: "ten", Claims: []Claim{
			{Claim: "a", Paper: "Table 3", Clustered: iv(0.02, 0.02)},
			{Claim: "d", Paper: "Table 3", Clustered: iv(0.001, 0.03)},
			{Claim: "e", Paper: "Table 3"}, // no interval: not counted
		}},
	}
	adj, fams := HolmFamilies(runs)
	// Table 3: p = (0.01, 0.02, 0.03), m = 3: 0.03, 0.04, 0.04.
	// Table 4: 0.02 alone. None: 0.3 alone.
	want := [][]float64{{0.03, 0.02, 0.3}, {0.04, 0.04, math.NaN()}}
	holds := [][]bool{{true, true, false}, {true, true, false}}
	for r := range want {
		for i, w := range want[r] {
			c := adj[r][i]
			if math.IsNaN(w) {
				if c.HolmP != nil || c.Holds {
					t.Errorf("%s/%s: %v, %v; want no p and no verdict", runs[r].Name, c.Claim, c.HolmP, c.Holds)
				}
				continue
			}
			if c.HolmP == nil || math.Abs(*c.HolmP-w) > 1e-15 || c.Holds != holds[r][i] {
				t.Errorf("%s/%s: p %v holds %v; want %v, %v", runs[r].Name, c.Claim, c.HolmP, c.Holds, w, holds[r][i])
			}
		}
	}
	if adj[0][0].HolmM != 3 || adj[0][1].HolmM != 1 {
		t.Errorf("family sizes %d, %d; want 3, 1", adj[0][0].HolmM, adj[0][1].HolmM)
	}
	if len(fams) != 3 || fams[0].Name != "Table 3" || fams[0].M != 3 || len(fams[0].Runs) != 2 || fams[2].Name != "" {
		t.Errorf("families %+v", fams)
	}
	if runs[0].Claims[0].HolmP != nil {
		t.Error("HolmFamilies changed its input")
	}
}
