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
	}
	if linalg.FastProducts {
		s.LowOrderMax = 12 // OpenBLAS: the product (24 ms at k = 12) beats the look-ups (38 ms) below k = 16
	}
	return s
}
