package progress

import "math"

// A running fit's own progress (its reports as the display's ticks saw
// them, Task.seen) foretells its end better than its row's finished fits
// where those say little of it: a refit on full blocks can take 1.5 or 35
// times its folds' fits at its β (docs/progress.md, "How the ETA is
// computed", step 5). fitLeft reads it.
const (
	// TypicalNewtonSteps is the Newton steps an interior-point run is
	// taken to need in all while its own gap has not yet shown its rate
	// (the solver's own pricing of the stage, 10–22 measured).
	TypicalNewtonSteps = 12
	// InteriorScale is the interior-point stage's time over the solver's
	// estimate of it in accelerated iterations (Iteration.InteriorCost)
	// times the fit's time per accelerated iteration: measured on the
	// recorded runs (docs/notes/progress-log.md, 2026-11-29).
	InteriorScale = 1.2
	// FitLeftLo and FitLeftHi widen fitLeft's middle into the running
	// fit's range.
	FitLeftLo, FitLeftHi = 0.75, 1.25
	// minTrend is the intervals between reports that a rate (time per
	// accelerated iteration, the gap's fall) is read from at least.
	minTrend = 2
	// minNewtonLeft is the typical steps left of a Newton run that has
	// taken the typical steps or more.
	minNewtonLeft = 2
)

// fitLeft estimates the time left of a running fit on full blocks from
// its own reports seen (oldest first; times as Task.sinceMark), to the
// target gap tol, and false where they do not tell it: a fit not on full
// blocks (no Iteration.InteriorCost seen), or too few reports.
//
//   - In the interior-point stage: the steps left of the current Newton
//     run, its distance from its stop (Iteration.Newton) extrapolated at
//     its fall per step over the run's last reports (at most the steps a
//     run typically takes, TypicalNewtonSteps, less those it has taken),
//     times its time per step.
//   - In the accelerated stage: the iterations to the certificate, its
//     gap extrapolated as a power of the iteration from its recent
//     fall, if that comes
//     before the hand-over (Iteration.HandOver); else the iterations to
//     the hand-over and the interior-point stage's cost
//     (Iteration.InteriorCost × InteriorScale), times the recent time per
//     iteration.
func fitLeft(seen []fitSample, tol float64) (float64, bool) {
	if len(seen) == 0 {
		return 0, false
	}
	full := false
	for _, s := range seen {
		full = full || s.it.InteriorCost > 0
	}
	last := seen[len(seen)-1]
	if !full {
		return 0, false
	}
	switch last.it.Stage {
	case "interior-point":
		return newtonLeft(seen)
	case "accelerated":
		return acceleratedLeft(seen, tol)
	}
	return 0, false
}

// newtonLeft is fitLeft in the interior-point stage.
func newtonLeft(seen []fitSample) (float64, bool) {
	n := len(seen)
	last := seen[n-1]
	// The current Newton run: the reports of the stage whose distance
	// from the stop has not risen (a new run starts far again).
	k := n - 1
	for k > 0 && seen[k-1].it.Stage == "interior-point" && seen[k-1].it.Newton >= seen[k].it.Newton {
		k--
	}
	from := k
	steps := float64(last.it.Iter - seen[k].it.Iter)
	if k == n-1 && k > 0 {
		// One report of the run: its time since the report before. After
		// the accelerated stage that is its first Newton step (the run's
		// first report) and the few accelerated iterations before it.
		from = k - 1
		steps = 1
		if seen[from].it.Stage == "interior-point" {
			steps = float64(last.it.Iter - seen[from].it.Iter)
		}
	}
	if steps <= 0 || last.at <= seen[from].at {
		return 0, false
	}
	perStep := (last.at - seen[from].at) / steps
	done := float64(last.it.Iter - seen[k].it.Iter + 1)
	prior := math.Max(TypicalNewtonSteps-done, minNewtonLeft)
	// The distance's fastest fall per step over the run's last three
	// steps seen: it falls faster as the run nears its end (on
	// aset400_short's refit 0.46, 0.63, 0.85, 0.51, 0.89, 1.0 per step).
	rate := 0.0
	for i := max(k, n-4) + 1; i < n; i++ {
		if d := seen[i].it.Iter - seen[i-1].it.Iter; d > 0 && seen[i].it.Newton > 0 {
			rate = math.Max(rate, math.Log(seen[i-1].it.Newton/seen[i].it.Newton)/float64(d))
		}
	}
	m := n - 1 - k // steps of the run seen
	left := prior
	if rate > 0 {
		// The extrapolation, at most 1.5 times the typical steps left
		// (or half the typical run: the quickstart's k1 full refit took
		// 16 steps, its first 6 at 0.11–0.16 per step), weighed against
		// them as m/(m+1) after m steps seen.
		ext := math.Min(math.Max(math.Log(last.it.Newton)/rate, 1), 1.5*math.Max(prior, TypicalNewtonSteps/2))
		w := float64(m) / float64(m+1)
		left = w*ext + (1-w)*prior
	}
	return left * perStep, true
}

// acceleratedLeft is fitLeft in the accelerated stage.
func acceleratedLeft(seen []fitSample, tol float64) (float64, bool) {
	n := len(seen)
	last := seen[n-1]
	// The recent half of the stage's reports.
	k := n - 1
	for k > 0 && seen[k-1].it.Stage == "accelerated" && seen[k-1].at >= last.at/2 {
		k--
	}
	if n-k < minTrend+1 || last.it.Iter <= seen[k].it.Iter {
		return 0, false
	}
	perIter := (last.at - seen[k].at) / float64(last.it.Iter-seen[k].it.Iter)
	hand := math.Inf(1)
	if last.it.HandOver > 0 {
		hand = float64(max(last.it.HandOver-last.it.Iter, 0)) + InteriorScale*last.it.InteriorCost
	}
	if last.it.Bound > 0 && last.it.Gap <= tol {
		return 0, true
	}
	cert := math.Inf(1)
	if first := seen[k]; first.it.Bound > 0 && last.it.Bound > 0 && first.it.Gap > last.it.Gap {
		// The gap as a power of the iteration, gap ∝ it^−p (the
		// accelerated method's certificate closes as a power of its
		// iterations, slowing as it goes; a geometric fall put an
		// aset400_short refit certified at 321 iterations when it
		// handed over at 400).
		p := math.Log(first.it.Gap/last.it.Gap) / math.Log(float64(last.it.Iter)/float64(first.it.Iter))
		cert = float64(last.it.Iter) * (math.Pow(last.it.Gap/tol, 1/p) - 1)
		// The certificate closes in steps (a bound every few iterations)
		// and stalls: it is taken to come before the hand-over only if
		// it would at half that power.
		slow := float64(last.it.Iter) * (math.Pow(last.it.Gap/tol, 2/p) - 1)
		if last.it.HandOver > 0 && float64(last.it.Iter)+slow >= float64(last.it.HandOver) {
			cert = math.Inf(1) // it hands over first
		}
	}
	left := math.Min(hand, cert)
	if math.IsInf(left, 1) {
		return 0, false
	}
	return left * perIter, true
}
