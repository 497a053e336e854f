package mkpoe

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// TestDensePairsMatchLoops checks the matrix-product pair sums against the
// loops of pairloops.go on an item set with every pair compared and one
// with a third of them, at widths 1, 3 and 9 (in both builds: the test
// builds densePairs directly, whatever the backend).
func TestDensePairsMatchLoops(t *testing.T) {
	t.Parallel()
	const n = 23
	rng := rand.New(rand.NewPCG(11, 12))
	var all []data.Pair
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			all = append(all, data.Pair{A: a, B: b})
		}
	}
	var third []data.Pair
	for q, pr := range all {
		if q%3 == 0 {
			third = append(third, pr)
		}
	}
	random := func(m int) []float64 {
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	near := func(t *testing.T, what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if d := math.Abs(got[i] - want[i]); d > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("%s[%d] = %.15g, loops %.15g", what, i, got[i], want[i])
			}
		}
	}
	for _, pairs := range [][]data.Pair{all, third} {
		for _, k := range []int{1, 3, 9} {
			d := &densePairs{n: n, pairs: pairs, lap: make([]float64, 2*n*n), g: make([]float64, n*n)}
			y, u, w, v := random(n*k), random(n*k), random(len(pairs)), random(len(pairs))
			start := random(n * k) // both add to what is there

			want := append([]float64(nil), start...)
			addEmbeddedGradient(y, k, pairs, w, want, nil)
			got := append([]float64(nil), start...)
			d.gradient(y, k, w, got)
			near(t, "gradient", got, want)

			want = append(want[:0], start...)
			addEmbeddedGradientPair(u, y, k, pairs, w, v, want, nil)
			got = append(got[:0], start...)
			d.gradientPair(u, y, k, w, v, got)
			near(t, "gradientPair", got, want)

			ddWant, ddGot := random(len(pairs)), make([]float64, len(pairs))
			copy(ddGot, ddWant)
			addPairDirectional(y, u, k, pairs, nil, ddWant)
			d.directional(y, u, k, ddGot)
			near(t, "directional", ddGot, ddWant)
		}
	}
}

// TestNewDensePairsRule checks when the dense pair sums are chosen: never
// in the pure-Go build, and in the OpenBLAS build from denseMinFill of the
// pairs and up to denseMaxItems items.
func TestNewDensePairsRule(t *testing.T) {
	tn := defaultTuning().lowRank
	pairs := func(n, m int) []data.Pair { return make([]data.Pair, m) }
	for _, tc := range []struct {
		name string
		n, m int
		want bool
	}{
		{"every pair", 100, 4950, true},
		{"half the pairs", 100, 2475, true},
		{"under half", 100, 2474, false},
		{"too many items", tn.denseMaxItems + 1, (tn.denseMaxItems + 1) * tn.denseMaxItems / 2, false},
	} {
		got := newDensePairs(tc.n, pairs(tc.n, tc.m), tn) != nil
		want := tc.want && linalg.Backend() == "openblas"
		if got != want {
			t.Errorf("%s (%d items, %d pairs): dense %v, want %v", tc.name, tc.n, tc.m, got, want)
		}
	}
}
