package mkpoe

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"
)

// modelBytes is the JSON of m without its timing (Stats.Seconds).
func modelBytes(t *testing.T, m *Model) []byte {
	t.Helper()
	c := *m
	c.Stats.Seconds = 0
	var b bytes.Buffer
	if err := c.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// recorderCase is a fit of smallProblems()[problem] with settings s.
type recorderCase struct {
	name    string
	problem int
	s       Settings
	stages  []Stage // stages the Recorder must see
	// handOver is the Iteration.HandOver of its accelerated reports, and
	// interior whether they carry an InteriorCost (-1: not checked).
	handOver int
	interior bool
}

func recorderCases() []recorderCase {
	noInterior := tuned(func(t *tuning) { t.crossover.maxInteriorFlops = 0 })
	// A diagonal fit hands over at diagStart whatever its gap.
	noDiagHandOver := tuned(func(t *tuning) { t.handOver.diagStart = 1 << 30 })
	return []recorderCase{
		{name: "accelerated full", problem: 1, s: Settings{Beta: 5, Solver: Accelerated}, stages: []Stage{StageAccelerated}, handOver: -1},
		{name: "accelerated diag", problem: 1, s: Settings{Beta: 5, Mode: Diag, tuning: noDiagHandOver}, stages: []Stage{StageAccelerated}, handOver: -1},
		{name: "crossover full (interiorFull)", problem: 0, s: Settings{Beta: 1e4, Solver: Accelerated}, stages: []Stage{StageAccelerated, StageInteriorPoint}, handOver: 400, interior: true},
		{name: "crossover diag (working set)", problem: 0, s: Settings{Beta: 1e4, Mode: Diag}, stages: []Stage{StageAccelerated, StageInteriorPoint}, handOver: 30},
		{name: "no interior stage: accelerated continues", problem: 0, s: Settings{Beta: 1e4, MaxIter: 1000, Solver: Accelerated, tuning: noInterior}, stages: []Stage{StageAccelerated}},
		{name: "alm", problem: 1, s: Settings{Beta: 5, Solver: ALM}, stages: []Stage{StageALM}},
		{name: "lowrank", problem: 1, s: Settings{Beta: 5, Solver: LowRank}, stages: []Stage{StageLowRank}},
		{name: "subgradient", problem: 2, s: Settings{Beta: 10, Solver: Subgradient, MaxIter: 2000}, stages: []Stage{StageSubgradient}},
	}
}

// TestRecorderDoesNotChangeFit fits each case with and without a Recorder
// and requires bit-identical models (JSON without the timing), and checks
// what the Recorder saw: iteration numbers that never decrease and end at
// Stats.Iterations, the expected stages, and a last report whose best
// objective is the model's (and, for the default solver, whose certified
// gap is the model's).
func TestRecorderDoesNotChangeFit(t *testing.T) {
	t.Parallel()
	probs := smallProblems()
	for _, c := range recorderCases() {
		t.Run(c.name, func(t *testing.T) {
			pr := probs[c.problem]
			plain := c.s
			want, err := Fit(pr.ks, pr.cs, &plain)
			if err != nil {
				t.Fatal(err)
			}
			var seen []Iteration
			recorded := c.s
			recorded.Recorder = func(it Iteration) { seen = append(seen, it) }
			got, err := Fit(pr.ks, pr.cs, &recorded)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(modelBytes(t, got), modelBytes(t, want)) {
				t.Fatalf("the model with a Recorder differs from the one without")
			}
			if len(seen) == 0 {
				t.Fatal("the Recorder was never called")
			}
			stages := map[Stage]bool{}
			for i, it := range seen {
				stages[it.Stage] = true
				if i > 0 && it.Iter < seen[i-1].Iter {
					t.Errorf("report %d: iteration %d after %d", i, it.Iter, seen[i-1].Iter)
				}
				if it.Iter < 1 || it.Best > it.Objective || it.Bound > it.Best*(1+1e-12) || !(it.Gap() >= -1e-12 && it.Gap() <= 1) {
					t.Errorf("report %d: implausible %+v (gap %g)", i, it, it.Gap())
				}
				// What lies ahead of the fit: the hand-over in the
				// accelerated stage, the Newton run's distance from its
				// stop in the interior-point stage, nothing elsewhere.
				switch {
				case it.Stage == StageAccelerated && c.handOver >= 0 && (it.HandOver != c.handOver || (it.InteriorCost > 0) != c.interior):
					t.Errorf("report %d: hand-over at %d, interior cost %g; want %d, cost given %v", i, it.HandOver, it.InteriorCost, c.handOver, c.interior)
				case it.Stage != StageAccelerated && (it.HandOver != 0 || it.InteriorCost != 0):
					t.Errorf("report %d: %s stage with hand-over %d, interior cost %g", i, it.Stage, it.HandOver, it.InteriorCost)
				case it.Stage != StageInteriorPoint && it.Newton != 0:
					t.Errorf("report %d: %s stage with Newton %g", i, it.Stage, it.Newton)
				case it.Stage == StageInteriorPoint && i < len(seen)-1 && !(it.Newton > 0):
					t.Errorf("report %d: a Newton step with Newton %g", i, it.Newton)
				}
			}
			for _, s := range c.stages {
				if !stages[s] {
					t.Errorf("stage %q never reported (saw %v)", s, stages)
				}
			}
			if len(stages) != len(c.stages) {
				t.Errorf("stages %v, want %v", stages, c.stages)
			}
			last := seen[len(seen)-1]
			if last.Iter != got.Stats.Iterations || last.Best != got.Objective {
				t.Errorf("last report: iteration %d, best %.10g; the model: %d iterations, objective %.10g",
					last.Iter, last.Best, got.Stats.Iterations, got.Objective)
			}
			switch {
			case c.s.Solver == Subgradient: // certified after the last iteration
			case c.s.tuning != nil:
				// The continued accelerated run certifies on its own; the
				// reports keep the first run's bound if it was better.
				if last.Bound < got.Stats.DualBound {
					t.Errorf("last report's bound %.10g, below the model's %.10g", last.Bound, got.Stats.DualBound)
				}
			case last.Gap() != got.Stats.RelativeGap:
				t.Errorf("last report's gap %g, the model's %g", last.Gap(), got.Stats.RelativeGap)
			}
			for i := 1; i < len(seen); i++ {
				if seen[i].Bound < seen[i-1].Bound {
					t.Errorf("report %d: bound %.10g fell from %.10g (the best bound so far cannot fall)", i, seen[i].Bound, seen[i-1].Bound)
					break
				}
			}
			t.Logf("%d reports, %d iterations, stages %v, gap %.3g", len(seen), got.Stats.Iterations, stages, got.Stats.RelativeGap)
		})
	}
}

// TestRecorderCancelStopsAtOnce cancels the fit from inside its Recorder
// at the first report of each stage and requires the fit to stop before
// reporting again (within one iteration or Newton step), with an error
// wrapping context.Canceled and no model. Counting reports, not seconds,
// keeps the test independent of the machine's speed.
func TestRecorderCancelStopsAtOnce(t *testing.T) {
	t.Parallel()
	probs := smallProblems()
	for _, c := range recorderCases() {
		for _, stage := range c.stages {
			t.Run(c.name+"/"+string(stage), func(t *testing.T) {
				pr := probs[c.problem]
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				after := -1 // reports after the cancellation
				s := c.s
				s.Recorder = func(it Iteration) {
					if after >= 0 {
						after++
					} else if it.Stage == stage {
						cancel()
						after = 0
					}
				}
				m, err := FitContext(ctx, pr.ks, pr.cs, &s)
				if after < 0 {
					t.Fatalf("stage %q never reported", stage)
				}
				if !errors.Is(err, context.Canceled) || m != nil {
					t.Fatalf("FitContext returned (%v, %v), want no model and context.Canceled", m != nil, err)
				}
				if after > 0 {
					t.Errorf("%d reports after the cancellation, want none", after)
				}
			})
		}
	}
}

// TestIterationGap checks Iteration.Gap on hand-computed values.
func TestIterationGap(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		best, bound, want float64
	}{
		{10, 9, 0.1},
		{10, 0, 1}, // no certificate yet
		{0, 0, 0},  // W = 0 with nothing violated
		{4, 4, 0},
		{4, 4.5, -0.125}, // a bound above the best (round-off) as in Stats.RelativeGap
	} {
		if got := (Iteration{Best: test.best, Bound: test.bound}).Gap(); math.Abs(got-test.want) > 1e-15 {
			t.Errorf("Gap(best %g, bound %g) = %g, want %g", test.best, test.bound, got, test.want)
		}
	}
}
