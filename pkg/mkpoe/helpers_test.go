package mkpoe

// tuned returns the default tuning changed by edit, for Settings.tuning:
// tests change a solver constant for their own fits only, so they can run
// in parallel.
func tuned(edit func(*tuning)) *tuning {
	t := defaultTuning()
	edit(t)
	return t
}
