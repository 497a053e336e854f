package progress

import (
	"math"
	"testing"
)

// TestFitLeft checks fitLeft's estimate of a running fit's time left from
// its reports, on made-up reports whose answers are worked by hand.
func TestFitLeft(t *testing.T) {
	acc := func(at float64, iter int, gap float64) fitSample {
		it := Iteration{Iter: iter, Stage: "accelerated", Best: 1, HandOver: 400, InteriorCost: 100}
		if gap > 0 {
			it.Bound, it.Gap = 1-gap, gap
		}
		return fitSample{at, it}
	}
	newton := func(at float64, iter int, far float64) fitSample {
		return fitSample{at, Iteration{Iter: iter, Stage: "interior-point", Best: 1, Newton: far}}
	}
	diag := acc(1, 9, 0)
	diag.it.InteriorCost = 0
	for _, test := range []struct {
		name string
		seen []fitSample
		want float64 // -1: fitLeft does not tell
	}{
		{"nothing seen", nil, -1},
		{"not on full blocks (no interior cost)", []fitSample{diag, newton(2, 11, 1000)}, -1},
		// The run's first report: its first step took 1 s since the
		// accelerated stage's last report; 14 of TypicalNewtonSteps
		// left.
		// The run's first report: its first step took 1 s since the
		// accelerated stage's last report; 11 of TypicalNewtonSteps
		// left.
		{"one Newton step seen", []fitSample{acc(1, 9, 0), newton(2, 11, 1000)}, 11 * 1},
		// 0.5 s per step; the distance falls 10 times in 2 steps (1.151
		// per step), so 10 is 2 steps from 1; after 2 steps seen that
		// weighs 2/3 against the 7 typical steps left.
		{"Newton run's fall", []fitSample{acc(1, 9, 0), newton(2, 11, 1000), newton(3, 13, 100), newton(4, 15, 10)}, 0.5 * (2.0/3*2 + 1.0/3*7)},
		// A new Newton run starts far again: its step took 1 s, 11 left.
		{"a second Newton run", []fitSample{acc(1, 9, 0), newton(2, 11, 1000), newton(3, 13, 100), newton(4, 15, 10), newton(5, 16, 500)}, 11 * 1},
		// The extrapolation is bounded by 1.5 times the typical steps
		// left, here 1.5 × 10 (10.1 to 10 per step: 231 steps to 1).
		{"a slow fall is bounded", []fitSample{acc(1, 9, 0), newton(2, 11, 10.1), newton(3, 12, 10)}, 1 * (0.5*15 + 0.5*10)},
		{"too few accelerated reports", []fitSample{acc(1, 10, 0.1), acc(2, 20, 0.05)}, -1},
		// 0.1 s per iteration over the last half; the gap falls as
		// it^-4 from 0.05 at 20 to 0.003125 at 40, so 1e-3 comes at
		// 40 × 3.125^(1/4) iterations (at it^-2, 40 × √3.125: before
		// the hand-over at 400 either way).
		{"certified first", []fitSample{acc(1, 10, 0.1), acc(2, 20, 0.05), acc(3, 30, 0.01), acc(4, 40, 0.003125)}, 0.1 * 40 * (math.Pow(3.125, 0.25) - 1)},
		// As it^-2 from 0.0125 the certificate would come at 40 × √12.5
		// = 141, but at it^-1 only after the hand-over (460): 360
		// iterations to the hand-over and 1.2 × 100 for the
		// interior-point stage, at 0.1 s.
		{"hands over first", []fitSample{acc(1, 10, 0.1), acc(2, 20, 0.05), acc(3, 30, 0.025), acc(4, 40, 0.0125)}, 0.1 * (360 + InteriorScale*100)},
		{"certificate stalls", []fitSample{acc(1, 10, 0.1), acc(2, 20, 0.0105), acc(3, 30, 0.0104), acc(4, 40, 0.0103)}, 0.1 * (360 + InteriorScale*100)},
		{"certified already", []fitSample{acc(1, 10, 0.1), acc(2, 20, 0.01), acc(3, 30, 0.002), acc(4, 40, 0.001)}, 0},
	} {
		got, ok := fitLeft(test.seen, 1e-3)
		switch {
		case test.want < 0 && ok:
			t.Errorf("%s: %g s left, want no estimate", test.name, got)
		case test.want >= 0 && (!ok || math.Abs(got-test.want) > 1e-9):
			t.Errorf("%s: %g s left (%v), want %g", test.name, got, ok, test.want)
		}
	}
}

// TestThinKeepsFirstAndLast checks that a running fit's reports stay
// below maxSeen however long it runs (thin), keeping its first report,
// its last eight, and times in order.
func TestThinKeepsFirstAndLast(t *testing.T) {
	var seen []fitSample
	const n = 5000
	for i := 1; i <= n; i++ {
		seen = thin(append(seen, fitSample{float64(i), Iteration{Iter: i}}))
	}
	if len(seen) >= maxSeen || len(seen) < maxSeen/2 {
		t.Errorf("%d reports kept of %d, want from %d to below %d", len(seen), n, maxSeen/2, maxSeen)
	}
	if seen[0].it.Iter != 1 {
		t.Errorf("first report kept: iteration %d, want 1", seen[0].it.Iter)
	}
	for i := 1; i <= 8; i++ {
		if got := seen[len(seen)-i].it.Iter; got != n+1-i {
			t.Errorf("report %d from the end: iteration %d, want %d", i, got, n+1-i)
		}
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].at <= seen[i-1].at {
			t.Fatalf("reports out of order at %d: %g after %g", i, seen[i].at, seen[i-1].at)
		}
	}
}
