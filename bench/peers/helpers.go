package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// splitTrainTest returns the first ⌊0.8·m⌋ comparisons as the training set
// and the rest as the held-out set. The planted generator draws triplets
// independently, so a prefix split is a random split.
func splitTrainTest(cs []data.Comparison) (train, test []data.Comparison) {
	cut := len(cs) * 8 / 10
	return cs[:cut], cs[cut:]
}

// foldIndices shuffles 0..m−1 with a PCG generator seeded by seed and deals
// the indices round-robin into k folds, each then sorted. Fold sizes differ
// by at most one, and every index lies in exactly one fold.
func foldIndices(m, k int, seed uint64) [][]int {
	perm := rand.New(rand.NewPCG(seed, 0x5eed_f01d)).Perm(m)
	folds := make([][]int, k)
	for pos, idx := range perm {
		folds[pos%k] = append(folds[pos%k], idx)
	}
	for _, f := range folds {
		sort.Ints(f)
	}
	return folds
}

// foldSplit returns the comparisons outside fold f (to fit on) and those
// inside it (to score on).
func foldSplit(cs []data.Comparison, folds [][]int, f int) (fit, score []data.Comparison) {
	for g, idx := range folds {
		for _, i := range idx {
			if g == f {
				score = append(score, cs[i])
			} else {
				fit = append(fit, cs[i])
			}
		}
	}
	return fit, score
}

// accuracy is the fraction of comparisons (i,j,k,l) with
// dist(i,j) < dist(k,l) strictly: a tie counts as wrong, so a model that
// learned nothing (all distances equal) scores 0, not 1. It returns NaN for
// no comparisons.
func accuracy(cs []data.Comparison, dist func(a, b int) float64) float64 {
	if len(cs) == 0 {
		return math.NaN()
	}
	right := 0
	for _, c := range cs {
		if dist(c.I, c.J) < dist(c.K, c.L) {
			right++
		}
	}
	return float64(right) / float64(len(cs))
}

// gramDist returns d(a,b) = W_aa + W_bb − 2W_ab for a Gram matrix given
// by its entries.
func gramDist(at func(i, j int) float64) func(a, b int) float64 {
	return func(a, b int) float64 { return at(a, a) + at(b, b) - 2*at(a, b) }
}

// size is one benchmark problem: n items and m planted triplets.
type size struct{ N, Triplets int }

// knownSizes are the problems selectable by n alone.
var knownSizes = map[int]int{100: 20000, 300: 10000, 1000: 30000, 2000: 60000}

// parseSizes reads a comma-separated list whose entries are either a known
// n (100, 300, 1000, 2000) or "n:triplets" for any other problem.
func parseSizes(s string) ([]size, error) {
	var out []size
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		ns, ms, custom := strings.Cut(f, ":")
		n, err := strconv.Atoi(ns)
		if err != nil || n < 3 {
			return nil, fmt.Errorf("size %q: n must be an integer ≥ 3", f)
		}
		m, known := knownSizes[n]
		if custom {
			if m, err = strconv.Atoi(ms); err != nil || m < 1 {
				return nil, fmt.Errorf("size %q: triplets must be a positive integer", f)
			}
		} else if !known {
			return nil, fmt.Errorf("size %q: not one of 100, 300, 1000, 2000; give n:triplets", f)
		}
		out = append(out, size{N: n, Triplets: m})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes in %q", s)
	}
	return out, nil
}

// parseInts reads a comma-separated list of positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseGrid reads a comma-separated CV grid of multiples of β_min: each
// finite and > 0, strictly increasing (each fold's fits run along it in
// order, warm-started from the previous one).
func parseGrid(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("-grid: %q is not a positive multiple of β_min", f)
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, fmt.Errorf("-grid: %g after %g: the grid must increase", v, out[len(out)-1])
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-grid: no multiples in %q", s)
	}
	return out, nil
}

// parseRanks reads -ranks: distinct integers ≥ 0 (0: the convex fit).
func parseRanks(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("-ranks: %q is not an integer ≥ 0", f)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("-ranks: %d given twice", v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-ranks: no ranks in %q", s)
	}
	return out, nil
}

// joinFloats prints xs comma-separated in %g.
func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// joinInts prints xs comma-separated.
func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}
