package mkpoe

import "testing"

// TestHandOver checks the accelerated method's hand-over rule on hand
// sequences of certified gaps (one call per certificate, every 10
// iterations, as solve.go makes them).
func TestHandOver(t *testing.T) {
	t.Parallel()
	type call struct {
		it   int
		gap  float64
		want bool
	}
	cases := []struct {
		name          string
		interiorIters float64
		diag          bool
		calls         []call
	}{
		{"budget spent", 0, false, []call{{390, 2e-3, false}, {400, 2e-3, true}}},
		{"slow from iteration 100", 0, false, []call{{90, 0.2, false}, {100, 0.2, true}}},
		{"stalled from iteration 30", 0, false, []call{{20, 0.9, false}, {30, 0.9, true}, {30, 0.4, false}}},
		// The gap halves from 100 to 150 (not stalled), then barely moves
		// from 150 to 200: with the interior-point stage costing 300
		// iterations and 200 left in the budget (2 × 200 ≥ 300), hand over.
		{"stall, cheap interior stage", 300, false, []call{
			{100, 0.04, false}, {110, 0.03, false}, {150, 0.013, false}, {160, 0.01, false}, {200, 0.008, true},
		}},
		// The same gaps, but the interior-point stage costs more than twice
		// the iterations left: keep going.
		{"stall, costly interior stage", 401, false, []call{
			{100, 0.04, false}, {150, 0.013, false}, {200, 0.008, false}, {250, 0.0079, false},
		}},
		// A stall is judged over whole windows of 50 iterations: the gap
		// hardly moves within 100–140, but has halved by 150.
		{"whole windows", 100, false, []call{
			{100, 0.04, false}, {110, 0.039, false}, {140, 0.038, false}, {150, 0.019, false}, {200, 0.015, true},
		}},
		{"halving is progress", 100, false, []call{
			{100, 0.04, false}, {150, 0.02, false}, {200, 0.0099, false}, {250, 0.0049, false},
		}},
		// The window 50–100 counts once iteration 100 is reached.
		{"first window ends at slowStart", 100, false, []call{{50, 0.04, false}, {100, 0.039, true}}},
		{"no stall hand-over where the interior stage is costly", 0, false, []call{{100, 0.04, false}, {150, 0.04, false}, {200, 0.04, false}}},
		// Full blocks: from iteration 10 while the bound is below 2% of
		// the objective.
		{"early, full blocks, large β", 300, false, []call{{10, 0.99, true}}},
		{"early, full blocks, moderate β", 300, false, []call{{10, 0.925, false}, {20, 0.97, false}, {20, 0.981, true}}},
		{"never early for diagonal blocks", 0, true, []call{{10, 0.999, false}, {20, 0.999, false}, {30, 0.999, true}}},
		// Diagonal blocks: at iteration 30 whatever the gap (the
		// working-set crossover finishes moderate β sooner than 200 more
		// first-order iterations).
		{"diagonal blocks at iteration 30", 0, true, []call{{20, 0.1, false}, {30, 1.1e-3, true}}},
		{"full blocks keep going at iteration 30", 0, false, []call{{30, 1.1e-3, false}, {90, 1.1e-3, false}}},
		// Full blocks whose interior-point stage costs at most 300
		// first-order iterations and whose gap at iteration 10 was above
		// 0.5: from iteration 30 while the gap is above 0.1 (an aset400 K4
		// fold at β = 100: 0.2 at iteration 30, stage estimated at 190).
		{"quick, cheap interior stage", 190, false, []call{{10, 0.7, false}, {20, 0.48, false}, {30, 0.2, true}}},
		{"quick: below the gap", 190, false, []call{{10, 0.7, false}, {30, 0.09, false}, {40, 0.05, false}, {60, 0.11, true}}},
		{"quick: the stage at the limit", 300, false, []call{{10, 0.7, false}, {30, 0.2, true}}},
		{"quick: a costly interior stage", 301, false, []call{{10, 0.7, false}, {30, 0.2, false}, {40, 0.49, false}}},
		{"quick: never for diagonal blocks", 190, true, []call{{10, 0.7, false}, {20, 0.5, false}}},
		// A warm-started aset400 K1 fit at β = 10 (stage estimated at 261)
		// sat at gap 0.175 from iteration 10 to 40 and certified at 60.
		{"quick: a small gap at iteration 10", 261, false, []call{{10, 0.175, false}, {30, 0.175, false}, {40, 0.175, false}}},
		{"quick: the gap at iteration 10 at the limit", 190, false, []call{{10, 0.5, false}, {30, 0.2, false}}},
		// Only the gap at iteration 10 counts, not a later one above 0.5.
		{"quick: the gap at iteration 10, not 20", 190, false, []call{{10, 0.3, false}, {20, 0.6, false}, {30, 0.2, false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &handOver{t: defaultTuning().handOver, interiorIters: tc.interiorIters, diag: tc.diag}
			for _, c := range tc.calls {
				if got := h.stop(c.it, c.gap); got != c.want {
					t.Errorf("iteration %d, gap %g: stop = %v, want %v", c.it, c.gap, got, c.want)
				}
			}
		})
	}
}
