package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPairedBootstrapHandCases(t *testing.T) {
	ones := func(n int, v float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = v
		}
		return x
	}
	for _, tc := range []struct {
		name         string
		x, y         [][]float64
		diff, lo, hi float64
		n, strata    int
	}{
		{"equal scores", [][]float64{{1, 0, 1}, {0, 1}}, [][]float64{{1, 0, 1}, {0, 1}}, 0, 0, 0, 5, 2},
		{"always better", [][]float64{ones(10, 1)}, [][]float64{ones(10, 0)}, 1, 1, 1, 10, 1},
		// d = (1, 0): a resample's mean is 0, ½ or 1 with probability ¼,
		// ½, ¼, so the 2.5% and 97.5% quantiles are 0 and 1.
		{"two units", [][]float64{{1, 1}}, [][]float64{{0, 1}}, 0.5, 0, 1, 2, 1},
		// Strata weigh equally: (1 − 0) in one and (0 − 0) in the other
		// average to ½ whatever their sizes; an empty stratum is skipped.
		{"strata weigh equally", [][]float64{ones(3, 1), ones(7, 0), nil}, [][]float64{ones(3, 0), ones(7, 0), nil}, 0.5, 0.5, 0.5, 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iv, err := PairedBootstrap(tc.x, tc.y, 4000, 0.95, 1)
			if err != nil {
				t.Fatal(err)
			}
			if iv.Diff != tc.diff || iv.Lo != tc.lo || iv.Hi != tc.hi || iv.N != tc.n || iv.Strata != tc.strata {
				t.Errorf("got %+v, want diff %v in [%v, %v] over %d units in %d strata", iv, tc.diff, tc.lo, tc.hi, tc.n, tc.strata)
			}
		})
	}
}

// TestPairedBootstrapNormal: for 2000 independent paired Bernoulli scores
// the interval matches the normal approximation diff ± 1.96·sd(d)/√n to
// within 10% of its width, and the same seed gives the same interval.
func TestPairedBootstrapNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 2000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		if rng.Float64() < 0.8 {
			x[i] = 1
		}
		if rng.Float64() < 0.7 {
			y[i] = 1
		}
	}
	iv, err := PairedBootstrap([][]float64{x}, [][]float64{y}, 4000, 0.95, 2)
	if err != nil {
		t.Fatal(err)
	}
	mean, ss := 0.0, 0.0
	for i := range x {
		mean += (x[i] - y[i]) / n
	}
	for i := range x {
		ss += (x[i] - y[i] - mean) * (x[i] - y[i] - mean)
	}
	half := 1.96 * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	if math.Abs(iv.Diff-mean) > 1e-12 || math.Abs(iv.Lo-(mean-half)) > 0.2*half || math.Abs(iv.Hi-(mean+half)) > 0.2*half {
		t.Errorf("bootstrap %+v, normal approximation %v ± %v", iv, mean, half)
	}
	again, _ := PairedBootstrap([][]float64{x}, [][]float64{y}, 4000, 0.95, 2)
	if again != iv {
		t.Errorf("the same seed gave %+v, then %+v", iv, again)
	}
}

func TestPairedBootstrapErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		x, y  [][]float64
		reps  int
		level float64
		want  string
	}{
		{"strata", [][]float64{{1}}, nil, 10, 0.95, "x has 1 strata, y 0"},
		{"not paired", [][]float64{{1, 0}}, [][]float64{{1}}, 10, 0.95, "not paired"},
		{"empty", [][]float64{{}}, [][]float64{{}}, 10, 0.95, "no paired observation"},
		{"level", [][]float64{{1}}, [][]float64{{1}}, 10, 1, "level in (0, 1)"},
		{"reps", [][]float64{{1}}, [][]float64{{1}}, 0, 0.95, "reps must be ≥ 1"},
	} {
		if _, err := PairedBootstrap(tc.x, tc.y, tc.reps, tc.level, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
