package mkpoe

import "sort"

// Linearised hinges (docs/solver.md, "Linearised hinges"). A diagonal
// fit's optimum at large β violates most comparisons: on the benchmark
// fixture 2592 of the 3902 that the crossover keeps have margin
// m_c = 1 + b_cᵀx > 0 at β = 1e4, and their multipliers sit at the top of
// the box, α_c = μ (Sec. 4.4's LP, docs/solver.md). Where m_c ≥ 0 the hinge
// μ·max(0, m_c) is its linear part μ(1 + b_cᵀx), so a restricted problem
// may replace it by that: the comparison leaves the Newton matrix
// (|𝒞_w|·k² multiply-adds per Newton step, the rounds' main cost), μ·b_c
// joins the cost c and μ the objective's constant (conicProblem.offset),
// and α_c = μ in the certificate. The restricted problem is exact as long
// as every linearised comparison ends the round at m_c ≥ 0; one that ends
// below is pinned, a constraint for good, and the round is redone. The
// certificate is always computed on the whole problem, so linearising
// changes speed, never validity.
//
// The linear parts do not saturate: a coordinate priced into the working
// set along which many linearised comparisons become satisfied can lower
// the restricted objective without bound. Seen on a small noisy problem
// (TestLinearisedHingesMatchExactOptimum, seed 2): the iterate's x grew
// geometrically to 1e119 until the round's 40 steps ran out. If at the
// restricted optimum every linearised comparison ends at margin ≥ 0 and
// every comparison left out of the set stays satisfied, its restricted
// objective is its objective on the whole problem, which cannot lie below
// the certified bound on the whole problem's optimum. A primal-feasible
// iterate's objective is an upper bound on the restricted optimum, so a
// round with linearised hinges stops as soon as it falls below that bound
// (conicProblem.floor; after 5 steps there): the round's solution would
// be wrong anyway. It also stops at linearRoundSteps. Such a round turns
// linearisation off for the rest of the fit (keepHinges) and is redone;
// so is the maxLinearRedos-th round redone for a pinned comparison.

const (
	// linearMargin: after a round, a kept comparison whose margin at the
	// round's solution is above linearMargin is linearised in the next
	// round. On the fixture at β = 1e4, 2353 of 3902 are above 0.1 after
	// the first round and 2346 at the optimum; the later rounds' Newton
	// steps cost about half as much.
	linearMargin = 0.1
)

var (
	// firstLinearMargin: the first round linearises the comparisons whose
	// margin at the first-order point (or a warm start's) is above it. The
	// first-order iterate overstates the violations (3390 of 3902 above
	// 0.1 at iteration 30, against 2346 at the optimum): above 0.5 (2441)
	// the first round's solution misplaced its support and the fit took
	// 4–5 rounds instead of 3; above 1 (1053) no comparison was pinned.
	// A variable so that tests can make rounds pin comparisons.
	firstLinearMargin = 1.0
	// linearRoundSteps bounds the Newton steps of a round with linearised
	// hinges (14–20 on the fixture); a variable so that tests can exhaust
	// it.
	linearRoundSteps = 40
	// crossoverRoundHook, if not nil, is called by crossover after every
	// round's interior-point run with the round's working set and the
	// run's error (tests).
	crossoverRoundHook func(set *workingSet, err error)
)

// maxLinearRedos bounds the rounds redone because a linearised comparison
// ended below margin 0: the last of them turns linearisation off, so that
// linearised hinges add at most maxLinearRedos + 1 rounds to a fit (one
// more for a round that gives up).
const maxLinearRedos = 2

// linearize moves the comparisons of set.comps whose margin m_c is above
// margin, and that are not pinned, to set.linear, unless that would leave
// no constraint row (a restricted problem whose every hinge is linear may
// be unbounded) or set.keepHinges is on.
func (set *workingSet) linearize(m []float64, margin float64) {
	if set.keepHinges {
		return
	}
	if set.pinned == nil {
		set.pinned = make([]bool, len(m))
	}
	var rows, moved []int
	for _, c := range set.comps {
		if m[c] > margin && !set.pinned[c] {
			moved = append(moved, c)
		} else {
			rows = append(rows, c)
		}
	}
	if len(moved) == 0 || len(rows) == 0 {
		return
	}
	set.comps = rows
	set.linear = append(set.linear, moved...)
	sort.Ints(set.linear)
}

// pinLinear moves back to set.comps, pinned for good, every linearised
// comparison whose margin m_c at the last round's solution is below
// margin. It reports whether any of them ended below zero, where its
// linear part understated the hinge and the round's solution is not the
// restricted problem's.
func (set *workingSet) pinLinear(m []float64, margin float64) (wrong bool) {
	keep := set.linear[:0]
	for _, c := range set.linear {
		if m[c] < margin {
			set.pinned[c] = true
			set.comps = append(set.comps, c)
			wrong = wrong || m[c] < 0
		} else {
			keep = append(keep, c)
		}
	}
	set.linear = keep
	sort.Ints(set.comps)
	return wrong
}

// keepAllHinges moves every linearised comparison back to set.comps and
// turns linearisation off for the rest of the fit.
func (set *workingSet) keepAllHinges() {
	set.comps = append(set.comps, set.linear...)
	set.linear = nil
	set.keepHinges = true
	sort.Ints(set.comps)
}
