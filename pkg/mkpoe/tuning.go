package mkpoe

import "github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"

// tuning gathers the constants that steer the default solver: when the
// accelerated method hands over to an interior-point stage, how large a
// Newton system may grow, how the working sets grow, when the methods
// stop trying. None of them changes what is solved or the validity of a
// certificate, only the path and its speed. Each value carries one line of
// reasoning; the measurements behind them are in docs/notes/tuning-log.md
// and docs/notes/solver-log.md.
//
// A fit takes its tuning from Settings.tuning (tests only; nil means
// defaultTuning) and every stage reads it from the problem (problem.tune),
// so no solver constant is a mutable package-level variable and tests that
// change one run in parallel with the others.
type tuning struct {
	handOver    handOverTuning
	accelerated acceleratedTuning
	crossover   crossoverTuning
	interior    interiorTuning
	lowRank     lowRankTuning
	alm         almTuning
	route       routeTuning
	// conic is the interior-point method's own tuning (correctors, mixed
	// precision, step lengths), copied into every conic problem the fit
	// builds (restrict, pairConic).
	conic conic.Settings
	// firstSlack: the first round of either interior-point stage keeps the
	// comparisons whose margin at the first-order point exceeds −firstSlack.
	firstSlack float64
	// laterSlack: after the first round, a comparison left out joins once
	// its margin exceeds −laterSlack.
	laterSlack float64
	// subgradientPatience is the iterations without a new best point after
	// which the subgradient method halves its target's distance (the
	// Polyak step's δ; Brännlund 1995).
	subgradientPatience int
	// maxNewtonSteps bounds one interior-point run; 10–22 steps is typical,
	// so a run this long has stalled.
	maxNewtonSteps int
	// hooks are test-only switches; the zero value is the real solver.
	hooks testHooks
}

// handOverTuning decides when the accelerated method gives up and hands its
// iterate to an interior-point stage (handOver.stop). Iterations are the
// accelerated method's; gaps are certified relative gaps.
type handOverTuning struct {
	firstOrderBudget int     // hand over after this many iterations whatever the gap
	slowStart        int     // from here, a gap above slowGap hands over: the certificate closes slowly at large β
	slowGap          float64 // see slowStart
	stalledStart     int     // from here, a gap above stalledGap hands over: the first-order method has stalled
	stalledGap       float64 // see stalledStart
	stallWindow      int     // a gap that has not halved over this many iterations (from slowStart) has stalled
	newtonSteps      float64 // the typical Newton steps of a stage (10–22 measured), to price it in iterations
	earlyStart       int     // full blocks: from here a gap above earlyGap (a large β) hands over at once
	earlyGap         float64 // see earlyStart
	quickGap         float64 // full blocks: from stalledStart, a gap above this hands over when the stage is cheap …
	quickStageIters  float64 // … costing at most this many first-order iterations …
	quickEarlyGap    float64 // … and the gap at earlyStart was above this (tells large β from a slow warm start)
	diagStart        int     // diagonal blocks hand over here whatever the gap: the support is narrow enough by then
}

// acceleratedTuning steers the accelerated first-order method (accelerated).
type acceleratedTuning struct {
	checkEvery int // iterations between certificates (each costs a gradient and a dual scaling)
	// maxBacktracks bounds one iteration's step search: 2^200 times the
	// Lipschitz estimate is beyond any finite problem's curvature.
	maxBacktracks int
	// diagLipschitzGrowth ends the power iterations of lipschitzEstimate on
	// diagonal problems once one raises the estimate by less than this
	// fraction (the safety factor 1.1 covers the rest).
	diagLipschitzGrowth float64
	// polishWidths are the margin half-widths of the comparisons whose
	// multipliers polishDualDiag may move: 0.1 works from the δ = 0.1
	// stage on, 0.03 once δ = 0.01.
	polishWidths []float64
	// incRefresh bounds the incremental gradient updates between full
	// evaluations, so rounding cannot accumulate.
	incRefresh int
}

// crossoverTuning steers the working-set crossover of diagonal problems
// (crossover, growWorkingSet).
type crossoverTuning struct {
	maxRounds int // price-and-resolve rounds; 3 is typical
	// firstSupportTolerance is the relative weight above which a coordinate
	// of the first-order iterate starts the working set (1e-2 made the
	// first round's Newton matrices half again larger).
	firstSupportTolerance float64
	// rangeTolerance separates an interior-point solution's support (its
	// coordinates at the optimum) from the rest (at the final duality
	// measure, 1e-6 relative and below).
	rangeTolerance float64
	// looseSupportTolerance cuts the support of a round solved loosely
	// (roundGapFraction), whose off-support coordinates sit higher.
	looseSupportTolerance float64
	// roundGapFraction: a round that only prices stops at a restricted gap
	// of roundGapFraction·Tol once pricing already grows the set.
	roundGapFraction float64
	// maxFirstNewCoords and maxNewCoords bound the coordinates pricing adds
	// per block in the first and in later rounds (wider first rounds only
	// grow the Newton matrices; later ones need many on warm paths).
	maxFirstNewCoords, maxNewCoords int
	// nearPriceFraction: after the first round, coordinates priced
	// non-negatively but below this fraction of the block's mean |price|
	// join too (they are the ones the next round would tip below zero).
	nearPriceFraction float64
	// maxInteriorFlops bounds the multiply-adds of one full-block Newton
	// system (about 5 s pure Go, 1 s with OpenBLAS); larger problems stay
	// with the accelerated method.
	maxInteriorFlops float64
}

// interiorTuning steers the comparison-space interior-point stage of
// full-block problems (interiorFull).
type interiorTuning struct {
	maxRounds int // runs of interiorFull; warm β paths drop many comparisons at first and need several
	// dropWorth is the largest ratio of the kept comparisons' Newton cost
	// to all comparisons' at which dropping the others pays (a second run
	// costs more than the saving when the blocks' scalings dominate).
	dropWorth float64
	// warmBackup is the relative gap of the iterate a round keeps to warm
	// start the next: still central, so added comparisons do not block
	// the steps (Gondzio 1998).
	warmBackup float64
}

// testHooks are switches for tests that show what a rule changes; the
// zero value is the solver as it runs.
type testHooks struct {
	// forceDirectFallback makes a direct start of a warm diagonal fit fall
	// back to the usual path even when it certifies; skipDirectStart skips
	// it.
	forceDirectFallback, skipDirectStart bool
	// forceWarmStall makes interiorFull treat every warm-started run as
	// stalled, so that it reruns the round cold.
	forceWarmStall bool
	// noTenfoldRefine turns off losesTenfold's extra Newton steps.
	noTenfoldRefine bool
	// crossoverRoundEnd, if not nil, is told of every crossover round that
	// ends without a certificate and whether it stopped loosely.
	crossoverRoundEnd func(round int, loose bool)
	// interiorRun, if not nil, is shown every interior-point run of
	// interiorFull once it has ended.
	interiorRun func(cp *conic.Problem)
}

// routeTuning holds the thresholds of the route (method.go). The
// measurements behind them are in docs/notes/solver-log.md.
type routeTuning struct {
	autoMinItems    int     // Auto prefers lowrank for kernels and features on at least this many items (below, its certificate's overhead dominates) …
	autoMaxMultiple float64 // … at β at most this multiple of β_min (above, its smoothed multipliers certify slowly)
	// almMinItems: Auto prefers alm for GNMDS on at least this many
	// items; below, the accelerated method's interior point is
	// exact in milliseconds while alm's iterations grow with β/β_min (10
	// items at 1e5–1e6·β_min: 11,000 iterations, 9 s, then > 60 s).
	almMinItems int
	// lanczosMinBetaOrder: β_min comes from the Lanczos method once a full
	// block has this order (a dense r³ decomposition took 3 s of a 20 s
	// low-rank fit at n = 1000).
	lanczosMinBetaOrder int
	// eigenCacheMinOrder: kernels of at least this order keep their
	// eigenbasis in Settings.Cache (below it the decomposition costs less
	// than a few iterations of a fit: 0.1 s at the paper's n = 330).
	eigenCacheMinOrder int
}

// almTuning steers the augmented-Lagrangian method (lowrank_alm.go); it
// shares lowRankTuning's L-BFGS, growth, stall and Lanczos settings.
type almTuning struct {
	// kappa sets the penalty σ = kappa·max(bound, β_min)/|𝒞|, bound the
	// best dual bound so far (rescalePenalty): the multipliers' mean at
	// the optimum is f*/|𝒞|, and the bound rises from β_min toward f*.
	// Fixed at kappa·β_min/|𝒞|, the best kappa was 10 on one planted set
	// and 100 on another at 100·β_min (1,060 against 3,100 steps); scaled
	// by the bound, kappa 3 took 1,040 and 1,360 there.
	kappa float64
	// prune drops factor columns whose singular value is below this
	// fraction of the largest at each multiplier update (without it the
	// rank overgrew to 183 against an optimum of about 60).
	prune float64
	// certEvery: between stalls, a certificate every this many checks.
	certEvery int
	// checkEvery and stallFraction replace lowRankTuning's: a check every
	// 10 L-BFGS steps, a stall when f_δ fell by less than 1e-2 of itself
	// since the last, so the multipliers move every 20 steps (740 and
	// 1,060 steps in all at 10 and 100·β_min, n = 300, against 1,040 and
	// 1,700 with lowrank's 20 and 1e-3).
	checkEvery    int
	stallFraction float64
	// newton: the inner minimisation by truncated Newton-CG
	// (lowrank_newton.go) instead of L-BFGS, with a check after every
	// newtonCheckEvery Newton steps; CG stops at a residual below
	// newtonForcing·‖g‖ or after newtonMaxCG Hessian products, with a
	// Jacobi preconditioner if newtonJacobi. On by default: along warm
	// β grids it was faster than L-BFGS on two of three planted sets and
	// within 10% on the third (docs/notes/solver-log.md, 2026-11-29).
	newton           bool
	newtonCheckEvery int
	newtonForcing    float64
	newtonMaxCG      int
	newtonJacobi     bool
	// newtonJacobiEvery: the Jacobi diagonal is recomputed after this many
	// Newton steps (and whenever δ or the rank changes).
	newtonJacobiEvery int
	// updateOnGrow: at every stall update the multipliers, then grow the
	// factor along the dual slack's negative directions; off, a stall
	// grows the factor while it can and updates the multipliers only when
	// no column is added (the inner problem solved over every rank
	// first). On: GNMDS on 2000 items × 200,000 triplets at 10·β_min
	// certified in 195 s against 394 s (rank 250, 121 against 123
	// iterations); along 1.25–1000·β_min on 1000 × 24,000 the cold fits
	// summed 70 s against 98 s, and on 100 × 16,000 and 300 × 8,000 they
	// tied (12 and 18 s; docs/notes/solver-log.md, 2026-11-29).
	updateOnGrow bool
	// warmFactorsOnly: a warm start keeps Init's factors but starts the
	// multipliers and the penalty cold. Off: from 3 to 10·β_min on 2000 ×
	// 200,000 it took 108 s against 217 s, but along the ten-value grid it
	// was 10–30% slower on three planted sets, whose small steps are where
	// Init's multipliers pay (solver-log, 2026-11-29).
	warmFactorsOnly bool
	// growRank: a check asks the certificate for, and so grows the
	// factor by up to, max(lowRankTuning.grow, growRank·rank) columns.
	// Off (0): on 10⁴ items × 10⁶ triplets at 10·β_min, 0.25 reached
	// rank 297 in 470 s where 8 columns reached 236 in 400 s, neither
	// near a certificate; on 300 × 8,000 0.2 was slower (1.6 s against
	// 1.2 s).
	growRank float64
	// hopelessStop: a certificate that cannot certify (its bound below
	// the objective's tolerance from span(L)'s part alone, or from the
	// complement's smallest Ritz value so far) stops its Lanczos run on
	// the complement once no direction there can join the factor
	// (enoughForGrowth). On: on 2000 × 48,000 at 10·β_min its Lanczos
	// steps fell from 4,733 to 2,004 (the late certificates, near −1 on
	// both parts, took 190–290 steps each) in 100 against 98 Newton steps.
	// It also leaves a stopped run's bound loose by its residual, which
	// the penalty (rescalePenalty) follows: with the Ritz value in its
	// place the same fit took 126 Newton steps (solver-log, 2026-11-29).
	hopelessStop bool
	// topOfBox: a warm start scales by β/β_init the multipliers of Init
	// above this fraction of Init's box, the comparisons violated at
	// Init's β (the dual scaling leaves them a little below the top).
	topOfBox float64
}

// lowRankTuning steers the low-rank method (lowrank.go).
type lowRankTuning struct {
	checkEvery   int     // L-BFGS steps between certificate checks
	memory       int     // L-BFGS curvature pairs
	startDelta   float64 // the first Huber smoothing width δ
	grow         int     // at most this many columns join a block per check
	growFraction float64 // a column joins along a Ritz vector of the slack below −growFraction·Tol (growTol)
	lanczosSteps int     // Lanczos steps per certificate (the Krylov space's order)
	lanczosTol   float64 // relative residual at which Lanczos stops
	// The first phase hands its subspace to the restricted problem after
	// firstPhaseIters L-BFGS steps or once δ ≤ firstPhaseDelta.
	firstPhaseIters int
	firstPhaseDelta float64
	subspaceRounds  int // column-generation rounds of the restricted problem
	// stallFraction: L-BFGS has stalled when f_δ fell by less than this
	// fraction over checkEvery steps; only then do columns join or δ shrink.
	stallFraction float64
	// lineSearchTries bounds the halvings of one L-BFGS step's backtracking
	// (2⁻⁴⁰ of the first step: below that the direction is useless).
	lineSearchTries int
	// armijo is the sufficient-decrease fraction of the line search (the
	// usual 1e-4: accept nearly any decrease, halve rarely).
	armijo float64
	// directNewton turns off the preconditioned conjugate gradients of
	// the restricted problems' Newton systems (conic.PCGNormalEquations):
	// every system is formed whole, as the default method does.
	directNewton bool
	// denseMinFill and denseMaxItems: the pair sums of the gradient and
	// of Newton's Hessian products run as matrix products (densePairs)
	// in the OpenBLAS build when at least denseMinFill of an item set's
	// n(n−1)/2 pairs are compared and n ≤ denseMaxItems (two n×n work
	// matrices). 0 turns it off.
	denseMinFill  float64
	denseMaxItems int
	// rangeTol: a factor's singular values below this fraction of its
	// largest do not span its range in the deflated certificate
	// (orthonormalRange; their columns are left to the complement, which
	// any orthonormal split allows).
	rangeTol float64
	// cholQRMaxCond: the deflated certificate's basis of range(L) comes
	// from CholeskyQR2 (rangeBasis) while the Gram matrix LᵀL's condition
	// is below this, the SVD beyond: CholeskyQR2 is orthogonal to rounding
	// up to a factor condition of about 1/√ε (1e12 for the Gram: 1e6 for
	// L, whose columns alm prunes at 1e-2 of the largest).
	cholQRMaxCond float64
}

// tuningOf is the tuning of a fit with settings s: Settings.tuning (tests)
// or defaultTuning.
func tuningOf(s Settings) *tuning {
	if s.tuning != nil {
		return s.tuning
	}
	return defaultTuning()
}

// defaultTuning returns the tuning every fit uses unless a test overrides
// it through Settings.tuning.
func defaultTuning() *tuning {
	return &tuning{
		handOver: handOverTuning{
			firstOrderBudget: 400,
			slowStart:        100,
			slowGap:          0.05,
			stalledStart:     30,
			stalledGap:       0.5,
			stallWindow:      50,
			newtonSteps:      15,
			earlyStart:       10,
			earlyGap:         0.98,
			quickGap:         0.1,
			quickStageIters:  300,
			quickEarlyGap:    0.5,
			diagStart:        30,
		},
		accelerated: acceleratedTuning{
			checkEvery:          10,
			maxBacktracks:       200,
			diagLipschitzGrowth: 0.05,
			polishWidths:        []float64{0.1, 0.03},
			incRefresh:          16,
		},
		crossover: crossoverTuning{
			maxRounds:             12,
			firstSupportTolerance: 3e-2,
			rangeTolerance:        1e-5,
			looseSupportTolerance: 1e-4,
			roundGapFraction:      0.1,
			maxFirstNewCoords:     32,
			maxNewCoords:          64,
			nearPriceFraction:     0.1,
			maxInteriorFlops:      5e10,
		},
		interior: interiorTuning{
			maxRounds:  10,
			dropWorth:  0.6,
			warmBackup: 0.3,
		},
		lowRank: lowRankTuning{
			checkEvery:      20,
			memory:          10,
			startDelta:      1,
			grow:            8,
			growFraction:    0.25,
			lanczosSteps:    300,
			lanczosTol:      1e-8,
			firstPhaseIters: 300,
			firstPhaseDelta: 1e-2,
			subspaceRounds:  10,
			stallFraction:   1e-3,
			lineSearchTries: 40,
			armijo:          1e-4,
			denseMinFill:    0.5,
			denseMaxItems:   1000,
			rangeTol:        1e-8, // near double precision's reach: no direction of the range is lost
			cholQRMaxCond:   1e12,
		},
		alm: almTuning{
			newton:            true,
			kappa:             3,
			prune:             1e-2,
			certEvery:         8,
			checkEvery:        10,
			stallFraction:     1e-2,
			newtonCheckEvery:  1,
			newtonForcing:     0.5,
			newtonMaxCG:       50,
			newtonJacobi:      true,
			newtonJacobiEvery: 5,
			updateOnGrow:      true,
			hopelessStop:      true,
			topOfBox:          0.9,
		},
		route: routeTuning{
			autoMinItems:        300,
			autoMaxMultiple:     2,
			almMinItems:         50,
			lanczosMinBetaOrder: 500,
			eigenCacheMinOrder:  500,
		},
		firstSlack:          0.25,
		laterSlack:          0.05,
		conic:               conic.DefaultSettings(),
		subgradientPatience: 200,
		maxNewtonSteps:      150,
	}
}
