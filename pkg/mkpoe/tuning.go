package mkpoe

import "github.com/mkpoe/mkpoe/pkg/mkpoe/internal/conic"

// tuning gathers the constants that steer the default solver: when the
// first-order method hands over to the interior-point stage, how large a
// Newton system may grow, how the working sets grow. Each value carries one
// line of reasoning; the measurements behind them are in
// docs/notes/solver-log.md. A fit takes its tuning from Settings.tuning
// (tests only; nil means defaultTuning) and every stage reads it from the
// problem (problem.tune), so no solver constant is a mutable package-level
// variable and tests that change one can run in parallel.
type tuning struct {
	// conic is the interior-point method's tuning, copied into every
	// conic problem the fit builds (restrict, pairConic).
	conic conic.Settings
}

// defaultTuning returns the tuning every fit uses unless a test overrides
// it through Settings.tuning.
func defaultTuning() *tuning {
	return &tuning{conic: conic.DefaultSettings()}
}
