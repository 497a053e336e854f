package mkpoe

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/pkg/data"
)

func TestExploreScale(t *testing.T) {
	if os.Getenv("MKPOE_EXPLORE") == "" {
		t.Skip("opt-in")
	}
	n, _ := strconv.Atoi(os.Getenv("N"))
	m, _ := strconv.Atoi(os.Getenv("M"))
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 5, Triplets: m * 5 / 4, Flip: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	train, test := pl.Triplets[:m], pl.Triplets[m:]
	mults := []float64{1.5, 10, 100, 1e3, 1e4}
	solvers := []Solver{LowRank}
	if os.Getenv("BOTH") != "" {
		solvers = append(solvers, Accelerated)
	}
	var minb float64
	for _, mult := range mults {
		for _, sv := range solvers {
			beta := 1.0
			if minb > 0 {
				beta = mult * minb
			}
			start := time.Now()
			mod, err := FitIdentity(n, train, &Settings{Beta: beta, Solver: sv, MaxIter: 20000})
			if err != nil {
				t.Fatal(err)
			}
			if minb == 0 {
				minb = mod.Stats.MinBeta
				beta = mult * minb
				start = time.Now()
				mod, _ = FitIdentity(n, train, &Settings{Beta: beta, Solver: sv, MaxIter: 20000})
			}
			w := mod.W[0]
			correct := 0
			for _, c := range test {
				d := func(a, b int) float64 { return w.At(a, a) + w.At(b, b) - 2*w.At(a, b) }
				if d(c.I, c.J) < d(c.K, c.L) {
					correct++
				}
			}
			t.Logf("%s β=%.4g (%.4g·min) %.2fs iters %d gap %.2g conv %v acc %.3f", sv, beta, mult, time.Since(start).Seconds(), mod.Stats.Iterations, mod.Stats.RelativeGap, mod.Stats.Converged, float64(correct)/float64(len(test)))
		}
	}
}

func TestExploreOne(t *testing.T) {
	if os.Getenv("MKPOE_EXPLORE") == "" {
		t.Skip("opt-in")
	}
	n, _ := strconv.Atoi(os.Getenv("N"))
	m, _ := strconv.Atoi(os.Getenv("M"))
	mult, _ := strconv.ParseFloat(os.Getenv("MULT"), 64)
	pl, _ := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 5, Triplets: m * 5 / 4, Flip: 0.1, Seed: 1})
	train := pl.Triplets[:m]
	p := newProblem(n, []block{{phi: identity(n), r: n, phiDiag: ones(n)}}, train, 1)
	minb := p.minBeta()
	start := time.Now()
	sv := Solver(os.Getenv("SOLVER"))
	last := ""
	lastT := time.Now()
	rec := func(it Iteration) {
		if os.Getenv("TRACE") == "" {
			return
		}
		if string(it.Stage) != last || it.Iter%200 == 0 {
			fmt.Fprintf(os.Stderr, "%6.2fs it %d %s f %.6g best %.6g bound %.6g δ %g\n", time.Since(lastT).Seconds(), it.Iter, it.Stage, it.Objective, it.Best, it.Bound, it.Smoothing)
			last = string(it.Stage)
		}
	}
	first, _ := strconv.Atoi(os.Getenv("FIRST"))
	tu := tuned(func(t *tuning) {
		if first > 0 {
			t.lowRank.firstPhaseIters = first
			t.lowRank.firstPhaseDelta = 1e-6
		}
	})
	mod, err := FitIdentity(n, train, &Settings{Beta: mult * minb, Solver: sv, MaxIter: 20000, Recorder: rec, tuning: tu})
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := positiveEigen(mod.W[0], 1e-4, "W")
	test := pl.Triplets[m:]
	w := mod.W[0]
	correct := 0
	for _, c := range test {
		d := func(a, b int) float64 { return w.At(a, a) + w.At(b, b) - 2*w.At(a, b) }
		if d(c.I, c.J) < d(c.K, c.L) {
			correct++
		}
	}
	t.Logf("%s acc %.3f fitsec %.2f", sv, float64(correct)/float64(len(test)), mod.Stats.Seconds)
	t.Logf("β=%.4g %.2fs iters %d gap %.2g conv %v rank(1e-4) %d", mult*minb, time.Since(start).Seconds(), mod.Stats.Iterations, mod.Stats.RelativeGap, mod.Stats.Converged, len(vals))
}
