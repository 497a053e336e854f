package data

import (
	"strings"
	"testing"
)

func TestGeneratePlanted(t *testing.T) {
	spec := PlantedSpec{N: 60, Dim: 3, Triplets: 4000, Flip: 0.1, Seed: 4}
	a, err := GeneratePlanted(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GeneratePlanted(spec)
	if len(a.Triplets) != spec.Triplets {
		t.Fatalf("%d triplets, want %d", len(a.Triplets), spec.Triplets)
	}
	seen := map[[3]int]bool{}
	wrong := 0
	for c, tr := range a.Triplets {
		if tr != b.Triplets[c] {
			t.Fatalf("triplet %d differs between two runs of one seed: %v, %v", c, tr, b.Triplets[c])
		}
		if !tr.IsTriplet() || tr.I == tr.J || tr.I == tr.L || tr.J == tr.L {
			t.Fatalf("triplet %d is not a triplet of distinct items: %v", c, tr)
		}
		key := [3]int{tr.I, min(tr.J, tr.L), max(tr.J, tr.L)}
		if seen[key] {
			t.Fatalf("triplet %v drawn twice", tr)
		}
		seen[key] = true
		d := func(x, y int) float64 {
			s := 0.0
			for k := 0; k < spec.Dim; k++ {
				v := a.Points.At(x, k) - a.Points.At(y, k)
				s += v * v
			}
			return s
		}
		if d(tr.I, tr.J) > d(tr.I, tr.L) {
			wrong++
		}
	}
	// Flips are Bernoulli(0.1) over 4000 draws: 400 ± 19 (sd), so 5 sd.
	if wrong < 305 || wrong > 495 {
		t.Errorf("%d of %d triplets disagree with the points, want about 10%%", wrong, spec.Triplets)
	}
	for _, bad := range []struct {
		spec PlantedSpec
		want string
	}{
		{PlantedSpec{N: 2, Dim: 1, Triplets: 1}, "N must be ≥ 3"},
		{PlantedSpec{N: 10, Dim: 0, Triplets: 1}, "Dim must be ≥ 1"},
		{PlantedSpec{N: 10, Dim: 2, Triplets: 100}, "= [1, 90] for N = 10, got 100"},
		{PlantedSpec{N: 10, Dim: 2, Triplets: 5, Flip: 0.5}, "Flip must be in [0, 0.5)"},
	} {
		if _, err := GeneratePlanted(bad.spec); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: error %v, want one containing %q", bad.spec, err, bad.want)
		}
	}
}
