package conic

import "github.com/mkpoe/mkpoe/internal/linalg"

// Settings is the interior-point method's tuning, carried by each Problem
// (pkg/mkpoe copies its own tuning's into every problem it builds). Tests
// change a field of a problem's copy instead of a package variable, so
// they can run in parallel.
type Settings struct {
	// MaxCorrectors is the number of Gondzio's centrality correctors
	// (centralityCorrect) a Newton step may add on problems without PSD
	// blocks. Measured on the benchmark fixture's diagonal fits (β = 1e4 …
	// 1e7, OpenBLAS, 3 runs each): 0 correctors took 124–161
	// interior-point iterations and 1.6–2.2 s in that stage, 3 took 83–111
	// and 1.4–1.8 s; 2 and 4–6 were no better. On problems with PSD blocks
	// each corrector needs the blocks' step lengths (two eigenvalue
	// problems per block), and 2 correctors made a full fit at β = 1e7
	// slower (45 → 47 iterations), so they never run there.
	MaxCorrectors int

	// MixedPrecision turns factorMixed's single-precision attempt on
	// (chol.go, "Mixed precision"): by default where the single-precision
	// factorisation is fast (linalg.FastSingle). Tests turn it on to
	// exercise the method in the pure-Go build too.
	MixedPrecision bool
	// MixedMinSize is the smallest matrix factored in mixed precision. The
	// saving grows like n³ and the overhead (the rounding pass and the
	// refinement's dsymv and strsv, which are bound by memory bandwidth
	// and slow down when the harness runs two fits at once) like n²; they
	// break even near n = 2300. With the threshold at 1500 the aset400
	// paper configs' full-W cv tasks (2343 comparisons and fewer per Newton
	// system) ran 5–10% slower than before, at 4400 the fixture's fits 22%
	// faster (docs/solver.md, "Mixed precision").
	MixedMinSize int

	// LanczosMaxSteps bounds the Lanczos steps of psdStep (steplength.go).
	// On the benchmark fixture's full fit at β = 1e4 every one of 240
	// step-length problems (orders 3 to 330) had its smallest eigenvalue to
	// 3e-3 within 32 steps.
	LanczosMaxSteps int

	// LowOrderMax is the largest block order k whose comparison-space
	// Newton-matrix terms are formed as a product (lowOrderRows,
	// linalg.GramUpperAdd) instead of by look-ups (addBlocks): 12 with
	// OpenBLAS, none in the pure-Go build. The look-ups cost the same
	// whatever k, 38 ms per block at the fixture's 4400 comparisons; the
	// product costs k(k+1)/2 multiply-adds per entry, with OpenBLAS 13 ms
	// at k = 8, 24 ms at 12 and 38 ms at 16, and in pure Go 35 ms at k = 3
	// and 137 ms at 8 (BenchmarkLowOrderTerms; docs/solver.md, "Low-order
	// blocks in the comparison-space matrix"). Tests run either way in
	// either build.
	LowOrderMax int

	// PCGMinDim is the smallest K at which PCGNormalEquations takes the iterative
	// solve. Forming M costs |T|·K²/2 multiply-adds at the speed of a
	// matrix product, a conjugate-gradient iteration 2·|T|·K at the
	// speed of memory (about half in pure Go on this machine), and a
	// solve took 6–25 iterations where |T|/K ≥ 7 (up to 104 below), two
	// solves per step: the iterations cost less than forming M from
	// K ≈ 150 on, and the preconditioner (K rows and a K×K
	// factorisation) more on top.
	PCGMinDim int
	// PCGRelWeight: the preconditioner's rows are those of weight at least
	// PCGRelWeight times the largest, but at most PCGMaxRows·K of them
	// (the largest); the step is formed whole when the rows left out
	// would be fewer than half of all (forming P then saves too little).
	PCGRelWeight, PCGMaxRows float64
	// PCGTol is the relative residual ‖rhs − MΔx‖₂/‖rhs‖₂ at which the
	// conjugate gradients stop, PCGMaxIter their bound before the step
	// falls back to forming M whole.
	PCGTol     float64
	PCGMaxIter int

	// StepDamping is the fraction of the largest feasible step taken
	// (Solve's step), keeping the iterate inside the cones.
	StepDamping float64
	// WarmNewAlpha is the multiplier of a comparison that a warm start
	// (Problem.Start) adds, as a fraction of the start's mean multiplier.
	// Measured on an aset400 K1 fold's β path, backed up to gap 0.1
	// (docs/solver.md): 0.1 and 0.03 took 52–53 Newton steps over the
	// later rounds, 0.01 took 62, 0.3 64 and the mean itself 73, against
	// 74 from the cold start.
	WarmNewAlpha float64
	// CorrectorAspire is how much longer than the predictor's a
	// centrality corrector asks the steps to be, CorrectorGain the sum of
	// step lengths it must add to be kept, and products outside
	// [CorrectorLow, CorrectorHigh]·σν are pulled back (centralityCorrect;
	// Gondzio 1996).
	CorrectorAspire, CorrectorGain float64
	CorrectorLow, CorrectorHigh    float64
	// StepCheck is the fraction of the Lanczos step that psdStep checks by
	// Cholesky. Every step is damped to StepDamping (0.98) of the
	// largest, so a step that passes at 0.99 leaves the damped iterate at
	// least 1 − 0.98/0.99 ≈ 1% inside the cone in the scaled metric,
	// against 2% with the exact step length. LanczosTol is the Ritz
	// residual, relative to the largest Ritz value in magnitude, at which
	// lanczosMin stops: the eigenvalue's error is about the residual
	// squared over the gap to the next one.
	StepCheck, LanczosTol float64
	// MaxRefine bounds the refinement steps of one mixed-precision solve.
	// A step costs a single-precision solve and a double-precision
	// product (about 10 ms at n = 4400: two strsv and a dsymv), and each
	// Newton step solves twice, so that a refinement much slower than
	// this costs more than the double-precision factorisation saves
	// (0.48 s there).
	MaxRefine int
}

// DefaultSettings returns the tuning every fit uses unless a test changes
// it.
func DefaultSettings() Settings {
	s := Settings{
		MaxCorrectors:   3,                 // fewest Newton steps on the diagonal fits; 2 and 4–6 no better
		MixedPrecision:  linalg.FastSingle, // single precision only where spotrf beats dpotrf (OpenBLAS)
		MixedMinSize:    3000,              // above the break-even n ≈ 2300, below the fixture's 4400
		LanczosMaxSteps: 64,                // twice the 32 steps every measured step length needed
		LowOrderMax:     0,                 // pure Go: the look-ups beat the product from k = 3
		PCGMinDim:       256,               // the iterations' cost against forming M's (see PCGMinDim)
		PCGRelWeight:    1e-3,              // 1e-2 and 1e-5 no faster (docs/notes/solver-log.md, 2026-11-28)
		PCGMaxRows:      1,                 // 0.5–2 took the same time, 0.25 more (66 iterations a solve), 4 more
		PCGTol:          1e-10,             // directions to 1e-6 of their size (TestPCGMatchesDirect)
		PCGMaxIter:      150,               // solves took 6–25 iterations where |T|/K ≥ 7, up to 104 below
		StepDamping:     0.98,              // the usual interior-point damping: 2% inside the cones
		WarmNewAlpha:    0.1,               // fewest Newton steps along an aset400 K1 β path (see WarmNewAlpha)
		CorrectorAspire: 0.2,               // Gondzio's aspiration δ_a = 0.1–0.3 (Colombo & Gondzio 2008)
		CorrectorGain:   0.02,              // keep a corrector only for a real gain in step length
		CorrectorLow:    0.1,               // Gondzio's band [β_min, β_max]·σν = [0.1, 10]·σν
		CorrectorHigh:   10,                // (see CorrectorLow)
		StepCheck:       0.99,              // 1% inside the cone after the 0.98 damping (see StepCheck)
		LanczosTol:      1e-8,              // eigenvalue error ≈ residual² / gap: far below the step's need
		MaxRefine:       6,                 // refinement cheaper than a double-precision factorisation
	}
	if linalg.FastProducts {
		s.LowOrderMax = 12 // OpenBLAS: the product (24 ms at k = 12) beats the look-ups (38 ms) below k = 16
	}
	return s
}
