// Package stats holds the uncertainty estimates of the reports: bootstraps
// of the difference between two methods scored on the same held-out
// comparisons, i.i.d. (PairedBootstrap) or with the comparisons clustered
// by anchor item, by the design of the outer splits (AnchorBootstrap: one
// split, StudentizedBootstrap; disjoint folds, ClusteredBootstrap; random
// test sets that share anchors, CrossedBootstrap), and Holm's adjustment.
// coverage_test.go checks each interval's coverage on simulated data of
// each design.
package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Interval is a difference of two means with a bootstrap confidence interval.
type Interval struct {
	Diff   float64 `json:"diff"`   // the observed difference
	Lo     float64 `json:"lo"`     // the interval's lower end (see Level)
	Hi     float64 `json:"hi"`     // and its upper end
	Level  float64 `json:"level"`  // e.g. 0.95
	Reps   int     `json:"reps"`   // bootstrap replicates
	N      int     `json:"n"`      // paired observations, over all strata
	Strata int     `json:"strata"` // e.g. outer splits
	// P is, for the clustered intervals, the two-sided bootstrap p-value
	// of no difference (0 when not computed: PairedBootstrap).
	P float64 `json:"p,omitempty"`
	// Clusters counts the clusters resampled (a cluster per stratum for
	// ClusteredBootstrap, distinct clusters for CrossedBootstrap) and
	// Design names the resampling (DesignOneSplit, DesignWithinSplits,
	// DesignCrossed); both 0 and empty for PairedBootstrap and in
	// summaries written before they were recorded.
	Clusters int    `json:"clusters,omitempty"`
	Design   string `json:"design,omitempty"`
}

// PairedBootstrap estimates the difference mean(x) − mean(y) of two scores
// observed on the same units (x[s][n] and y[s][n]: unit n of stratum s, e.g.
// test comparison n of outer split s, scored 1 when a method gets it right
// and 0 otherwise), and its percentile confidence interval at level: reps
// times, every stratum's units are resampled with replacement, the same
// units for x and y (the pairing), and the statistic is the mean over
// strata of the per-stratum difference of means (so each split weighs as
// in "mean accuracy over splits"). Draws come from rand.NewPCG(seed, 31).
// Strata with no unit are skipped; x and y must have the same shape.
func PairedBootstrap(x, y [][]float64, reps int, level float64, seed uint64) (Interval, error) {
	if len(x) != len(y) {
		return Interval{}, fmt.Errorf("stats: x has %d strata, y %d", len(x), len(y))
	}
	if reps < 1 || !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("stats: reps must be ≥ 1 and level in (0, 1), got %d and %g", reps, level)
	}
	var d [][]float64 // per stratum, x − y per unit
	n := 0
	for s := range x {
		if len(x[s]) != len(y[s]) {
			return Interval{}, fmt.Errorf("stats: stratum %d: x has %d units, y %d (not paired)", s, len(x[s]), len(y[s]))
		}
		if len(x[s]) == 0 {
			continue
		}
		ds := make([]float64, len(x[s]))
		for i := range ds {
			ds[i] = x[s][i] - y[s][i]
		}
		d = append(d, ds)
		n += len(ds)
	}
	if len(d) == 0 {
		return Interval{}, fmt.Errorf("stats: no paired observation")
	}
	stat := func(pick func(s, i int) float64) float64 {
		sum := 0.0
		for s, ds := range d {
			m := 0.0
			for i := range ds {
				m += pick(s, i)
			}
			sum += m / float64(len(ds))
		}
		return sum / float64(len(d))
	}
	iv := Interval{Diff: stat(func(s, i int) float64 { return d[s][i] }), Level: level, Reps: reps, N: n, Strata: len(d)}
	rng := rand.New(rand.NewPCG(seed, 31))
	boot := make([]float64, reps)
	for r := range boot {
		boot[r] = stat(func(s, _ int) float64 { return d[s][rng.IntN(len(d[s]))] })
	}
	slices.Sort(boot)
	iv.Lo = quantile(boot, (1-level)/2)
	iv.Hi = quantile(boot, 1-(1-level)/2)
	return iv, nil
}

// quantile is the q-quantile of sorted x by linear interpolation between
// order statistics (type 7, R's default).
func quantile(x []float64, q float64) float64 {
	h := q * float64(len(x)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	if h == lo || x[i] == x[i+1] { // also keeps ±Inf ends from giving NaN
		return x[i]
	}
	return x[i] + (h-lo)*(x[i+1]-x[i])
}

// MeanStd returns the mean and the sample standard deviation of x (0 for
// one value; NaN, NaN for none): "mean ± sd over splits" in every table.
func MeanStd(x []float64) (mean, std float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) == 1 {
		return mean, 0
	}
	v := 0.0
	for _, a := range x {
		v += (a - mean) * (a - mean)
	}
	return mean, math.Sqrt(v / float64(len(x)-1))
}
