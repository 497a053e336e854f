package mkpoe

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHuberSumMatchesHuber checks that the branch-free sums of
// lossAndWeights give the same bits as huber, element by element and summed
// in order: at the cases' boundaries (±0, δ and its neighbours, ±Inf, NaN,
// only non-positive margins, subnormal ones) and on margins spread over the
// three cases, for δ over twelve decades.
func TestHuberSumMatchesHuber(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, delta := range []float64{0, 1e-9, 1e-3, 0.1, 1, 1e3} {
		edges := []float64{0, math.Copysign(0, -1), delta, math.Nextafter(delta, 0), math.Nextafter(delta, 2),
			delta / 2, -delta, 1, -1, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, math.MaxFloat64}
		random := make([]float64, 5000)
		for i := range random {
			switch rng.IntN(3) {
			case 0:
				random[i] = -rng.Float64()
			case 1:
				random[i] = rng.Float64() * delta
			default:
				random[i] = delta + rng.Float64()
			}
		}
		for _, tc := range []struct {
			name    string
			margins []float64
		}{
			{"edges", edges},
			{"random", random},
			{"nan", []float64{0.5, math.NaN(), 2}},
			{"nonpositive", []float64{0, math.Copysign(0, -1), -1, -delta, -math.SmallestNonzeroFloat64, math.Inf(-1)}},
			{"tiny", []float64{math.SmallestNonzeroFloat64, -1, math.Nextafter(delta, 0) / 3}},
		} {
			const scale = 0.37
			want, wantAlpha := 0.0, make([]float64, len(tc.margins))
			for c, m := range tc.margins {
				v, d := huber(m, delta)
				want += v
				wantAlpha[c] = scale * d
			}
			got, gotAlpha := 0.0, make([]float64, len(tc.margins))
			if delta > 0 {
				got = huberSum(tc.margins, delta, gotAlpha, scale)
				if noAlpha := huberSum(tc.margins, delta, nil, scale); !sameBits(noAlpha, got) {
					t.Errorf("δ = %g, %s: sum without α %v, with α %v", delta, tc.name, noAlpha, got)
				}
			} else {
				got = hingeSum(tc.margins)
				copy(gotAlpha, wantAlpha) // hingeSum writes no multipliers
			}
			if !sameBits(got, want) {
				t.Errorf("δ = %g, %s: sum %v, huber's %v", delta, tc.name, got, want)
			}
			for c := range wantAlpha {
				if !sameBits(gotAlpha[c], wantAlpha[c]) {
					t.Errorf("δ = %g, %s, m = %v: α %v, huber's %v", delta, tc.name, tc.margins[c], gotAlpha[c], wantAlpha[c])
				}
			}
		}
	}
}

// sameBits reports whether a and b are the same float64, any NaN equal to
// any other.
func sameBits(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}
