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
	strata, _, n, err := pairedCells(x, y, cluster, reps, level)
	if err != nil {
		return Interval{}, err
	}
	stratumMean := func(cs []cell, pick func(k int) cell) float64 {
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
		observed += stratumMean(cs, func(k int) cell { return cs[k] })
	}
	iv := Interval{Diff: observed / float64(len(strata)), Level: level, Reps: reps, N: n, Strata: len(strata), Design: DesignOneSplitPercentile}
	if len(strata) > 1 {
		iv.Design = DesignWithinSplits
		if !resampleStrata {
			iv.Design = DesignFixedSplits
		}
	}
	iv.Clusters = 0
	for _, cs := range strata {
		iv.Clusters += len(cs)
	}
	rng := rand.New(rand.NewPCG(seed, 37))
	boot := make([]float64, reps)
	for r := range boot {
		sum := 0.0
		for t := range strata {
			cs := strata[t]
			if resampleStrata {
				cs = strata[rng.IntN(len(strata))]
			}
			sum += stratumMean(cs, func(int) cell { return cs[rng.IntN(len(cs))] })
		}
		boot[r] = sum / float64(len(strata))
	}
	percentile(&iv, boot)
	return iv, nil
}

// cell is one cluster's units in one stratum: the cluster's index over
// all strata (g, in order of first appearance), the sum of x − y over the
// units and their number.
type cell struct {
	g int
	d float64
	n int
}

// pairedCells checks the clustered samples of ClusteredBootstrap and
// CrossedBootstrap and their reps and level, and groups each stratum's
// units by cluster, in order of first appearance (empty strata left out).
// It returns the strata's cells, the number of distinct clusters over all
// strata and the number of units.
func pairedCells(x, y [][]float64, cluster [][]int, reps int, level float64) (strata [][]cell, clusters, n int, err error) {
	if len(x) != len(y) || len(x) != len(cluster) {
		return nil, 0, 0, fmt.Errorf("stats: x, y and cluster have %d, %d and %d strata", len(x), len(y), len(cluster))
	}
	if reps < 1 || !(level > 0 && level < 1) {
		return nil, 0, 0, fmt.Errorf("stats: reps must be ≥ 1 and level in (0, 1), got %d and %g", reps, level)
	}
	global := map[int]int{}
	for s := range x {
		if len(x[s]) != len(y[s]) || len(x[s]) != len(cluster[s]) {
			return nil, 0, 0, fmt.Errorf("stats: stratum %d: x, y and cluster have %d, %d and %d units (not paired)", s, len(x[s]), len(y[s]), len(cluster[s]))
		}
		if len(x[s]) == 0 {
			continue
		}
		local := map[int]int{}
		var cs []cell
		for i := range x[s] {
			g, ok := global[cluster[s][i]]
			if !ok {
				g = len(global)
				global[cluster[s][i]] = g
			}
			k, ok := local[g]
			if !ok {
				k = len(cs)
				local[g] = k
				cs = append(cs, cell{g: g})
			}
			cs[k].d += x[s][i] - y[s][i]
			cs[k].n++
		}
		strata = append(strata, cs)
		n += len(x[s])
	}
	if len(strata) == 0 {
		return nil, 0, 0, fmt.Errorf("stats: no paired observation")
	}
	return strata, len(global), n, nil
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

// Designs of a clustered interval (Interval.Design): which units a
// replicate resamples.
const (
	// DesignOneSplit: one stratum; its clusters are resampled and the
	// interval is studentised (StudentizedBootstrap).
	DesignOneSplit = "one split"
	// DesignOneSplitPercentile: one stratum, the percentile interval
	// (ClusteredBootstrap of one stratum).
	DesignOneSplitPercentile = "one split, percentile"
	// DesignWithinSplits: the strata, then the clusters within each
	// stratum drawn (ClusteredBootstrap with resampleStrata). Right when
	// no cluster appears in two strata, as disjoint test folds.
	DesignWithinSplits = "splits, then anchors within splits"
	// DesignFixedSplits: the clusters within each stratum, the strata
	// kept (ClusteredBootstrap without resampleStrata).
	DesignFixedSplits = "anchors within splits, splits fixed"
	// DesignCrossed: distinct clusters once over all strata, and the
	// strata, independently (CrossedBootstrap). Right when strata share
	// clusters, as random test sets drawn again for every split.
	DesignCrossed = "anchors × splits"
)

// ClustersRecur says whether some cluster has units in two or more
// strata: the strata's test sets overlap, and ClusteredBootstrap, which
// takes a cluster in each stratum for an independent one, understates the
// spread (use CrossedBootstrap).
func ClustersRecur(cluster [][]int) bool {
	seen := map[int]int{}
	for s, cs := range cluster {
		for _, c := range cs {
			if t, ok := seen[c]; ok && t != s {
				return true
			}
			seen[c] = s
		}
	}
	return false
}

// CrossedBootstrap is ClusteredBootstrap for clusters that recur across
// strata: the same anchor item tested in several outer splits, whose
// outcomes in every split move together (its comparisons are largely the
// same ones, scored by models trained on overlapping data). The sample is
// a two-way layout, clusters × strata, and each replicate resamples both
// factors independently (the "pigeonhole" bootstrap of crossed random
// effects, Owen 2007): the distinct clusters with replacement, as many as
// there are, each drawn cluster bringing its units in every stratum, and
// the strata with replacement. The statistic is as ClusteredBootstrap's:
// per stratum the difference of means over the drawn clusters' units
// (clusters weigh by their size), averaged over the drawn strata (a
// stratum none of whose clusters was drawn is left out of that replicate).
// The interval is the percentile one and Interval.P the two-sided
// bootstrap p-value, as ClusteredBootstrap's. Draws come from
// rand.NewPCG(seed, 41). The pigeonhole bootstrap is mildly conservative
// (its variance counts the interaction twice); the coverage tests of
// clustered_test.go measure it on the designs the configs use.
//
// References:
//
//	Owen, A. B. (2007). The pigeonhole bootstrap. Annals of Applied
//	Statistics 1(2), 386–411.
func CrossedBootstrap(x, y [][]float64, cluster [][]int, reps int, level float64, seed uint64) (Interval, error) {
	strata, clusters, n, err := pairedCells(x, y, cluster, reps, level)
	if err != nil {
		return Interval{}, err
	}
	// stat is the mean over strata, stratum t counted v(t) times, of the
	// stratum's difference of means, cluster g counted w(g) times.
	stat := func(v func(t int) float64, w func(g int) float64) (float64, bool) {
		sum, weight := 0.0, 0.0
		for t, cs := range strata {
			vt := v(t)
			if vt == 0 {
				continue
			}
			d, m := 0.0, 0.0
			for _, c := range cs {
				wg := w(c.g)
				d += wg * c.d
				m += wg * float64(c.n)
			}
			if m == 0 {
				continue
			}
			sum += vt * d / m
			weight += vt
		}
		return sum / weight, weight > 0
	}
	one := func(int) float64 { return 1 }
	observed, _ := stat(one, one)
	iv := Interval{Diff: observed, Level: level, Reps: reps, N: n, Strata: len(strata), Clusters: clusters, Design: DesignCrossed}
	rng := rand.New(rand.NewPCG(seed, 41))
	wc := make([]float64, clusters)
	ws := make([]float64, len(strata))
	boot := make([]float64, 0, reps)
	for len(boot) < reps {
		clear(wc)
		clear(ws)
		for range wc {
			wc[rng.IntN(len(wc))]++
		}
		for range ws {
			ws[rng.IntN(len(ws))]++
		}
		b, ok := stat(func(t int) float64 { return ws[t] }, func(g int) float64 { return wc[g] })
		if ok { // else no drawn stratum kept a drawn cluster: draw again
			boot = append(boot, b)
		}
	}
	percentile(&iv, boot)
	return iv, nil
}

// percentile sets iv's percentile interval and two-sided p-value from the
// replicates boot (sorted in place).
func percentile(iv *Interval, boot []float64) {
	slices.Sort(boot)
	iv.Lo = quantile(boot, (1-iv.Level)/2)
	iv.Hi = quantile(boot, 1-(1-iv.Level)/2)
	below, above := 0, 0
	for _, b := range boot {
		if b <= 0 {
			below++
		}
		if b >= 0 {
			above++
		}
	}
	iv.P = math.Min(1, 2*float64(min(below, above))/float64(len(boot)))
}

// AnchorBootstrap is the interval of a claim over strata (outer splits)
// whose units cluster by anchor, by the design of the strata:
//
//   - one stratum: StudentizedBootstrap of its clusters;
//   - several whose clusters are disjoint (test folds that partition the
//     items): ClusteredBootstrap resampling the strata, then the clusters
//     within them;
//   - several that share clusters (random test sets drawn per split):
//     CrossedBootstrap.
//
// Interval.Design names the one used. The choice is the coverage tests'
// (coverage_test.go): each covers the truth of simulated data of its
// design at ≥ 0.93 at nominal 0.95; the percentile interval of one stratum
// covers as well with the configs' 82 anchors but less with 20 or fewer,
// and the within-split interval covers 0.90 when splits share anchors.
func AnchorBootstrap(x, y [][]float64, cluster [][]int, reps int, level float64, seed uint64) (Interval, error) {
	switch {
	case len(cluster) == 1:
		if len(x) != 1 || len(y) != 1 {
			return Interval{}, fmt.Errorf("stats: x, y and cluster have %d, %d and %d strata", len(x), len(y), len(cluster))
		}
		return StudentizedBootstrap(x[0], y[0], cluster[0], reps, level, seed)
	case ClustersRecur(cluster):
		return CrossedBootstrap(x, y, cluster, reps, level, seed)
	}
	return ClusteredBootstrap(x, y, cluster, reps, level, len(x) > 1, seed)
}

// StudentizedBootstrap is ClusteredBootstrap's interval for one stratum,
// studentised (the bootstrap-t): each replicate resamples the clusters
// with replacement and computes t* = (θ* − θ̂)/se*, where θ is the
// difference of means over the units (a ratio of cluster sums, clusters
// weighing by their size) and se its cluster-robust (linearised) standard
// error
//
//	se(θ) = sqrt(G/(G−1) · Σ_g (d_g − θ·n_g)²) / Σ_g n_g
//
// over the G clusters with sums d_g of x − y and n_g units; the interval is
// [θ̂ − t*_(1−α/2)·se, θ̂ − t*_(α/2)·se]. With few clusters the percentile
// interval is too narrow (its spread is the plug-in one and it ignores the
// skew of se); the bootstrap-t corrects both to second order (Hall 1992,
// Sec. 3.5). Interval.P is the two-sided p-value of "no difference" read
// off the same t*: 2·min(share of t* ≥ θ̂/se, share ≤ θ̂/se), capped at 1.
// A replicate with se* = 0 gives t* = ±Inf by the sign of θ* − θ̂ (0 when
// equal); se = 0 gives the degenerate interval [θ̂, θ̂]. Draws come from
// rand.NewPCG(seed, 43).
//
// References:
//
//	Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer.
//	Cameron, A. C., Gelbach, J. B. and Miller, D. L. (2008). Bootstrap-based
//	improvements for inference with clustered errors. Review of Economics
//	and Statistics 90(3), 414–427.
func StudentizedBootstrap(x, y []float64, cluster []int, reps int, level float64, seed uint64) (Interval, error) {
	if len(x) != len(y) || len(x) != len(cluster) {
		return Interval{}, fmt.Errorf("stats: x, y and cluster have %d, %d and %d units (not paired)", len(x), len(y), len(cluster))
	}
	if len(x) == 0 {
		return Interval{}, fmt.Errorf("stats: no paired observation")
	}
	if reps < 1 || !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("stats: reps must be ≥ 1 and level in (0, 1), got %d and %g", reps, level)
	}
	index := map[int]int{}
	var d, n []float64
	for i := range x {
		k, ok := index[cluster[i]]
		if !ok {
			k = len(d)
			index[cluster[i]] = k
			d, n = append(d, 0), append(n, 0)
		}
		d[k] += x[i] - y[i]
		n[k]++
	}
	g := len(d)
	// thetaSE is θ and se over the clusters drawn, cluster k counted w(k)
	// times.
	thetaSE := func(w func(k int) float64) (theta, se float64) {
		sd, sn := 0.0, 0.0
		for k := range d {
			sd += w(k) * d[k]
			sn += w(k) * n[k]
		}
		theta = sd / sn
		if g < 2 {
			return theta, 0
		}
		v := 0.0
		for k := range d {
			r := d[k] - theta*n[k]
			v += w(k) * r * r
		}
		return theta, math.Sqrt(float64(g)/float64(g-1)*v) / sn
	}
	theta, se := thetaSE(func(int) float64 { return 1 })
	iv := Interval{Diff: theta, Level: level, Reps: reps, N: len(x), Strata: 1, Clusters: g, Design: DesignOneSplit}
	if se == 0 || math.IsNaN(se) {
		iv.Lo, iv.Hi, iv.P = theta, theta, 1
		if theta != 0 {
			iv.P = 0
		}
		return iv, nil
	}
	rng := rand.New(rand.NewPCG(seed, 43))
	w := make([]float64, g)
	ts := make([]float64, reps)
	for r := range ts {
		clear(w)
		for range w {
			w[rng.IntN(g)]++
		}
		th, s := thetaSE(func(k int) float64 { return w[k] })
		switch {
		case s > 0:
			ts[r] = (th - theta) / s
		case th > theta:
			ts[r] = math.Inf(1)
		case th < theta:
			ts[r] = math.Inf(-1)
		}
	}
	t0 := theta / se
	below, above := 0, 0
	for _, t := range ts {
		if t <= t0 {
			below++
		}
		if t >= t0 {
			above++
		}
	}
	iv.P = math.Min(1, 2*float64(min(below, above))/float64(reps))
	slices.Sort(ts)
	iv.Lo = theta - quantile(ts, 1-(1-level)/2)*se
	iv.Hi = theta - quantile(ts, (1-level)/2)*se
	return iv, nil
}
