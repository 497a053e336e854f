package experiments

import (
	"math"
	"time"

	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// trainSize returns the rough training items and comparisons of a split
// (before its inner folds): the items outside the test fraction and their
// comparisons (a taxonomy's: max_train_comparisons, else items²), at most
// max_train_comparisons. The ETA's prior only needs
// them roughly (docs/progress.md).
func trainSize(c *Config, ds *dataset) (items, comps int) {
	keep := 1 - c.Protocol.TestFraction
	items = int(math.Round(float64(ds.n) * keep))
	comps = int(math.Round(float64(len(ds.comps)) * keep * keep))
	m := c.Protocol.MaxTrainComparisons
	switch {
	case len(ds.comps) == 0 && m > 0: // a taxonomy's comparisons: drawn, at most m
		comps = m
	case len(ds.comps) == 0:
		comps = items * items
	case m > 0 && comps > m:
		comps = m
	}
	return max(items, 1), max(comps, 1)
}

// taskUnits returns the units of work of task t for the run's ETA
// (progress.Unit): one per fit (a cv task's β sweep, a refit's one fit at
// a β chosen later), one for a native task.
func taskUnits(c *Config, t results.Task, items, comps int) []progress.Unit {
	row := c.Rows[t.Row]
	name := rowPrefix(row, t.Inputs)
	if t.Kind == KindNative {
		return []progress.Unit{{Row: "native-" + name, Mode: "native", Size: 1, Prior: progress.PriorSeconds("native", 1, items, comps, 0)}}
	}
	blocks := 1
	if row.Method == "k4" {
		blocks = len(c.rowKernels(row))
	}
	if t.Kind == KindRefit {
		// A refit fits cold and pays its setup alone (progress.RefitFactor).
		return []progress.Unit{{Row: name, Mode: row.Mode, Beta: -1, Size: 1, Prior: progress.RefitFactor * progress.PriorSeconds(row.Mode, blocks, items, comps, -1)}}
	}
	f := float64(max(c.Protocol.InnerFolds, 1))
	size := (f - 1) / f
	if size <= 0 {
		size = 1
	}
	units := make([]progress.Unit, TaskFits(c, t))
	for b := range units {
		// The prior is on the split's whole training set: Size scales it.
		units[b] = progress.Unit{Row: name, Mode: row.Mode, Beta: b, Size: size, Prior: progress.PriorSeconds(row.Mode, blocks, items, comps, b)}
	}
	return units
}

// PriorEstimate is "mkpoe plan"'s rough estimate of a config's run time
// from the documented per-fit prior (progress.PriorSeconds) and its plan's
// fits, before anything is measured: the total on one worker. It loads the
// data set for its items and comparisons.
func PriorEstimate(c *Config) (total time.Duration, fits int, err error) {
	ds, err := c.loadAndCheckData()
	if err != nil {
		return 0, 0, err
	}
	items, comps := trainSize(c, ds)
	sec := 0.0
	for _, t := range Plan(c) {
		fits += TaskFits(c, t)
		for _, u := range taskUnits(c, t, items, comps) {
			size := u.Size
			if size <= 0 {
				size = 1
			}
			sec += u.Prior * math.Pow(size, progress.SizeExponent(u.Mode))
		}
	}
	return time.Duration(sec * float64(time.Second)), fits, nil
}
