package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// ClusteredBootstrap is PairedBootstrap for units that come in clusters:
// held-out comparisons sharing an anchor item (the i of (i,j,i,k)) are
// correlated, and resampling them one by one understates the spread.
// cluster[s][n] names the cluster of unit n of stratum s (any integers;
// clusters are per stratum). Each replicate resamples, within every
// stratum, whole clusters with replacement (as many as the stratum has),
// the same clusters for x and y, and computes per stratum the difference
// of means over the units drawn (a ratio estimator: clusters weigh by their
// size, as in the accuracy itself); the statistic is the mean over strata.
// With resampleStrata, the strata (e.g. outer splits) are resampled with
// replacement too before the clusters within them (a two-stage bootstrap,
// for claims over several splits). The interval is the percentile one;
// Interval.P is the two-sided bootstrap p-value of "no difference",
// 2·min(share of replicates ≤ 0, share ≥ 0), capped at 1. Draws come from
// rand.NewPCG(seed, 37).
func ClusteredBootstrap(x, y [][]float64, cluster [][]int, reps int, level float64, resampleStrata bool, seed uint64) (Interval, error) {
	if len(x) != len(y) || len(x) != len(cluster) {
		return Interval{}, fmt.Errorf("stats: x, y and cluster have %d, %d and %d strata", len(x), len(y), len(cluster))
	}
	if reps < 1 || !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("stats: reps must be ≥ 1 and level in (0, 1), got %d and %g", reps, level)
	}
	// Per stratum and cluster: the sum of x − y over its units and their
	// number.
	type clusterSum struct {
		d float64
		n int
	}
	var strata [][]clusterSum
	n := 0
	for s := range x {
		if len(x[s]) != len(y[s]) || len(x[s]) != len(cluster[s]) {
			return Interval{}, fmt.Errorf("stats: stratum %d: x, y and cluster have %d, %d and %d units (not paired)", s, len(x[s]), len(y[s]), len(cluster[s]))
		}
		if len(x[s]) == 0 {
			continue
		}
		index := map[int]int{}
		var cs []clusterSum
		for i := range x[s] {
			k, ok := index[cluster[s][i]]
			if !ok {
				k = len(cs)
				index[cluster[s][i]] = k
				cs = append(cs, clusterSum{})
			}
			cs[k].d += x[s][i] - y[s][i]
			cs[k].n++
		}
		strata = append(strata, cs)
		n += len(x[s])
	}
	if len(strata) == 0 {
		return Interval{}, fmt.Errorf("stats: no paired observation")
	}
	stratumMean := func(cs []clusterSum, pick func(k int) clusterSum) float64 {
		d, m := 0.0, 0
		for k := range cs {
			c := pick(k)
			d += c.d
			m += c.n
		}
		return d / float64(m)
	}
	observed := 0.0
	for _, cs := range strata {
		observed += stratumMean(cs, func(k int) clusterSum { return cs[k] })
	}
	iv := Interval{Diff: observed / float64(len(strata)), Level: level, Reps: reps, N: n, Strata: len(strata)}
	rng := rand.New(rand.NewPCG(seed, 37))
	boot := make([]float64, reps)
	for r := range boot {
		sum := 0.0
		for t := range strata {
			cs := strata[t]
			if resampleStrata {
				cs = strata[rng.IntN(len(strata))]
			}
			sum += stratumMean(cs, func(int) clusterSum { return cs[rng.IntN(len(cs))] })
		}
		boot[r] = sum / float64(len(strata))
	}
	slices.Sort(boot)
	iv.Lo = quantile(boot, (1-level)/2)
	iv.Hi = quantile(boot, 1-(1-level)/2)
	below, above := 0, 0
	for _, b := range boot {
		if b <= 0 {
			below++
		}
		if b >= 0 {
			above++
		}
	}
	iv.P = math.Min(1, 2*float64(min(below, above))/float64(reps))
	return iv, nil
}

// Holm returns Holm's step-down adjustment of the p-values p (Holm 1979):
// with p sorted ascending, p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)),
// returned in the order of p. Rejecting where p̃ < α controls the
// family-wise error rate at α over the m claims of a config, whatever
// their dependence. NaN p-values (claims without an interval) are left
// out of m and stay NaN.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	running := 0.0
	for j, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-j)*p[i]))
		out[i] = running
	}
	return out
}
