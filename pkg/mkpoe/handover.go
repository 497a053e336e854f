package mkpoe

// handOver decides when the accelerated method gives up and hands its
// iterate to an interior-point stage (the diagonal crossover or, for full
// blocks, interiorFull; docs/solver.md, "When it runs"). Its stop method is
// the accelerated method's stop test, called at each certificate with the
// iteration and the certified relative gap. The thresholds are
// handOverTuning's:
//
//   - diagonal blocks hand over at diagStart whatever the gap: the
//     crossover's first working set, the iterate's support, is narrow
//     enough by then and wider earlier;
//   - every problem hands over after firstOrderBudget iterations, from
//     slowStart on while the gap is above slowGap (at large β the
//     first-order certificate closes slowly), and from stalledStart on
//     while it is above stalledGap;
//   - full blocks also hand over from earlyStart on while the gap is above
//     earlyGap (a large β), from stalledStart on while it is above quickGap
//     when the stage is cheap (at most quickStageIters iterations) and the
//     gap at earlyStart was above quickEarlyGap, and on a stall (a gap not
//     halved over stallWindow iterations from slowStart on) when the stage
//     costs at most twice the iterations left in the budget, which a
//     stalled run would spend before handing over anyway.
type handOver struct {
	t handOverTuning
	// interiorIters is the interior-point stage's estimated cost in
	// iterations of the accelerated method (0: never cheap enough to hand
	// over on a stall; see newHandOver).
	interiorIters float64
	lastGap       float64 // the gap at the last multiple of stallWindow
	gapAtEarly    float64 // the gap at earlyStart (0 until then)
	// diag: the blocks are diagonal (an LP, Sec. 4.4); otherwise they are
	// all full.
	diag bool
}

// newHandOver returns the hand-over rule of the accelerated method on p,
// whose interior-point stage the caller found affordable
// (interiorAffordable). For full blocks it prices the stage in accelerated
// iterations: newtonSteps Newton steps of the comparison-space method
// against one first-order iteration.
func newHandOver(p *problem) *handOver {
	h := &handOver{t: p.tune.handOver}
	if p.hasDiagBlock() {
		h.diag = true
		return h
	}
	h.interiorIters = h.t.newtonSteps * p.newtonCost(len(p.left)) / p.acceleratedCost()
	return h
}

// stop is the hand-over test at the certificate of iteration it. Diagonal
// blocks hand over at diagStart, before any of the rules below can fire
// (they start at stalledStart = diagStart or later); the rules for full
// blocks follow.
func (h *handOver) stop(it int, gap float64) bool {
	t := &h.t
	if h.diag {
		return it >= t.diagStart
	}
	if it == t.earlyStart {
		h.gapAtEarly = gap
	}
	if it >= t.earlyStart && gap > t.earlyGap {
		return true
	}
	if it >= t.stalledStart && gap > t.quickGap && h.gapAtEarly > t.quickEarlyGap && h.interiorIters > 0 && h.interiorIters <= t.quickStageIters {
		return true
	}
	if it >= t.firstOrderBudget || (it >= t.slowStart && gap > t.slowGap) || (it >= t.stalledStart && gap > t.stalledGap) {
		return true
	}
	if it%t.stallWindow != 0 {
		return false
	}
	prev := h.lastGap
	h.lastGap = gap
	stalled := it >= t.slowStart && prev > 0 && gap > prev/2
	return stalled && h.interiorIters > 0 && h.interiorIters <= 2*float64(t.firstOrderBudget-it)
}

// annotate returns rec with the accelerated stage's reports telling where
// the hand-over lies ahead (Iteration.HandOver, Iteration.InteriorCost),
// for progress displays; nil if rec is nil. maxIter bounds the stage.
func (h *handOver) annotate(rec Recorder, maxIter int) Recorder {
	if rec == nil {
		return nil
	}
	last := h.t.firstOrderBudget
	if h.diag {
		last = h.t.diagStart
	}
	last = min(last, maxIter)
	return func(it Iteration) {
		if it.Stage == StageAccelerated {
			it.HandOver, it.InteriorCost = last, h.interiorIters
		}
		rec(it)
	}
}
