package mkpoe

// tuning gathers the constants that steer the default solver: when the
// first-order method hands over to the interior-point stage, how large a
// Newton system may grow, how the working sets grow. Each value carries one
// line of reasoning; the measurements behind them are in
// docs/notes/solver-log.md. A fit takes its tuning from Settings.tuning
// (tests only; nil means defaultTuning) and every stage reads it from the
// problem (problem.tune), so no solver constant is a mutable package-level
// variable and tests that change one can run in parallel.
type tuning struct{}

// defaultTuning returns the tuning every fit uses unless a test overrides
// it through Settings.tuning.
func defaultTuning() *tuning {
	return &tuning{}
}
