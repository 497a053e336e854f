package data

import (
	"slices"
	"strings"
	"testing"
)

// TestSyntheticTriplets: the triplets are distinct, anchored (i,j,i,k), and
// without flips every one agrees with the taxonomy; with flip 0.2 about a
// fifth disagree; the same seed gives the same triplets.
func TestSyntheticTriplets(t *testing.T) {
	syn, err := GenerateSynthetic(SyntheticSpec{Branching: []int{2, 2}, PerClass: 5, Views: []SyntheticView{{Name: "x"}}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	depth := func(a, b int) int {
		d, err := syn.Taxonomy.LCADepth(syn.Labels[a], syn.Labels[b])
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		flip           float64
		minBad, maxBad int
	}{{0, 0, 0}, {0.2, 60, 140}} {
		cs, err := syn.Triplets(500, tc.flip, 7)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[Comparison]bool{}
		bad := 0
		for _, c := range cs {
			if c.I != c.K || c.I == c.J || c.I == c.L || c.J == c.L || seen[c] {
				t.Fatalf("triplet %v: not a distinct anchored triplet", c)
			}
			seen[c] = true
			if depth(c.I, c.J) < depth(c.I, c.L) {
				bad++
			}
		}
		if len(cs) != 500 || bad < tc.minBad || bad > tc.maxBad {
			t.Errorf("flip %g: %d triplets, %d against the taxonomy, want 500 and %d..%d", tc.flip, len(cs), bad, tc.minBad, tc.maxBad)
		}
		again, _ := syn.Triplets(500, tc.flip, 7)
		if !slices.Equal(cs, again) {
			t.Errorf("flip %g: the same seed gave other triplets", tc.flip)
		}
	}
	for _, tc := range []struct {
		m    int
		flip float64
		want string
	}{{0, 0, "m must be ≥ 1"}, {100000, 0, "m must be at most half"}, {10, 0.5, "flip must be in [0, 0.5)"}} {
		if _, err := syn.Triplets(tc.m, tc.flip, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("m %d flip %g: error %v, want %q", tc.m, tc.flip, err, tc.want)
		}
	}
}
