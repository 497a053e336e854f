package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// SyntheticView describes one view (modality) of a synthetic data set.
type SyntheticView struct {
	Name string
	// Dim is the feature dimension (default 4; noise views: 3).
	Dim int
	// Noise is the standard deviation of the isotropic Gaussian noise added
	// to each item's class mean; larger means a worse view.
	Noise float64
	// Random makes the view pure noise: points on the unit sphere in R^Dim,
	// independent of the classes (the paper's noise kernels, Sec. 5.1).
	Random bool
}

// SyntheticSpec describes a seeded synthetic multi-modal data set: items in
// a latent taxonomy (a complete tree with the given branching per level),
// and views of differing quality that follow the taxonomy, plus noise views.
type SyntheticSpec struct {
	Branching []int // children per level, e.g. [3, 2]: 3 groups of 2 classes (default [3, 2])
	PerClass  int   // items per leaf class (default 10)
	Views     []SyntheticView
	Seed      uint64
}

// Synthetic is a generated data set: item i has class Labels[i] (1-based
// leaves of Taxonomy) and features Views[v] row i.
type Synthetic struct {
	Labels    []int
	Taxonomy  *Taxonomy
	ViewNames []string
	Views     []*mat.Dense
}

// GenerateSynthetic draws a data set from spec with rand.NewPCG(seed, 17).
// Class means are sums over the tree levels of random Gaussian offsets whose
// scale halves at each level, so classes under a common ancestor lie closer
// together; an informative view adds noise of its own scale to the mean.
func GenerateSynthetic(spec SyntheticSpec) (*Synthetic, error) {
	if len(spec.Branching) == 0 {
		spec.Branching = []int{3, 2}
	}
	if spec.PerClass == 0 {
		spec.PerClass = 10
	}
	if spec.PerClass < 1 {
		return nil, fmt.Errorf("data: synthetic per_class must be >= 1, got %d", spec.PerClass)
	}
	if len(spec.Views) == 0 {
		return nil, fmt.Errorf("data: synthetic data set needs at least one view")
	}
	for l, b := range spec.Branching {
		if b < 1 {
			return nil, fmt.Errorf("data: synthetic branching[%d] must be >= 1, got %d", l, b)
		}
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 17))
	// Build the tree and each leaf's path (child index per level).
	var paths [][]int
	var build func(level int, path []int) *Taxonomy
	build = func(level int, path []int) *Taxonomy {
		if level == len(spec.Branching) {
			paths = append(paths, append([]int(nil), path...))
			return Leaf(len(paths))
		}
		node := &Taxonomy{}
		for c := 0; c < spec.Branching[level]; c++ {
			node.Children = append(node.Children, build(level+1, append(path, c)))
		}
		return node
	}
	tax := build(0, nil)
	classes := len(paths)
	out := &Synthetic{Taxonomy: tax}
	for c := 0; c < classes; c++ {
		for k := 0; k < spec.PerClass; k++ {
			out.Labels = append(out.Labels, c+1)
		}
	}
	n := len(out.Labels)
	for v, view := range spec.Views {
		if view.Name == "" {
			return nil, fmt.Errorf("data: synthetic views[%d] needs a name", v)
		}
		if view.Noise < 0 {
			return nil, fmt.Errorf("data: synthetic views[%d].noise must be >= 0, got %v", v, view.Noise)
		}
		d := view.Dim
		if d == 0 {
			d = 4
			if view.Random {
				d = 3
			}
		}
		x := mat.NewDense(n, d, nil)
		if view.Random {
			randomRows(x, rng)
		} else {
			// Offsets per tree node, keyed by the path prefix.
			offsets := map[string][]float64{}
			mean := func(path []int) []float64 {
				m := make([]float64, d)
				scale := 2.0
				for l := 1; l <= len(path); l++ {
					key := fmt.Sprint(path[:l])
					off, ok := offsets[key]
					if !ok {
						off = make([]float64, d)
						for t := range off {
							off[t] = rng.NormFloat64() * scale
						}
						offsets[key] = off
					}
					for t := range m {
						m[t] += off[t]
					}
					scale /= 2
				}
				return m
			}
			means := make([][]float64, classes)
			for c := range means {
				means[c] = mean(paths[c])
			}
			for i, lab := range out.Labels {
				for t := 0; t < d; t++ {
					x.Set(i, t, means[lab-1][t]+view.Noise*rng.NormFloat64())
				}
			}
		}
		out.ViewNames = append(out.ViewNames, view.Name)
		out.Views = append(out.Views, x)
	}
	return out, nil
}

// randomRows fills x with rows drawn uniformly from the unit sphere
// (Gaussian rows, normalised), row by row from rng: an uninformative view.
func randomRows(x *mat.Dense, rng *rand.Rand) {
	n, d := x.Dims()
	for i := 0; i < n; i++ {
		norm := 0.0
		for t := 0; t < d; t++ {
			g := rng.NormFloat64()
			x.Set(i, t, g)
			norm += g * g
		}
		for t := 0; t < d; t++ {
			x.Set(i, t, x.At(i, t)/math.Sqrt(norm))
		}
	}
}

// Triplets draws m distinct triplets (i,j,i,k) that the taxonomy orders,
// "i is more similar to j than to k", where j's class shares a deeper
// ancestor with i's than k's does (the relative comparisons of Sec. 5.1,
// sampled instead of enumerated), and reverses each with probability flip:
// the noisy answers of a human survey such as aset400's (Sec. 5.2). Draws
// come from rand.NewPCG(seed, 23); pairs of the same depth are skipped.
// It is an error if m is more than half of the triplets the taxonomy
// orders among the items, or flip is outside [0, 0.5).
func (s *Synthetic) Triplets(m int, flip float64, seed uint64) ([]Comparison, error) {
	n := len(s.Labels)
	if m < 1 {
		return nil, fmt.Errorf("data: synthetic triplets: m must be ≥ 1, got %d", m)
	}
	if !(flip >= 0 && flip < 0.5) {
		return nil, fmt.Errorf("data: synthetic triplets: flip must be in [0, 0.5), got %v", flip)
	}
	classes := s.Taxonomy.Labels()
	lcaDepth := map[[2]int]int{} // by pair of class labels
	for _, a := range classes {
		for _, b := range classes {
			d, err := s.Taxonomy.LCADepth(a, b)
			if err != nil {
				return nil, err
			}
			lcaDepth[[2]int{a, b}] = d
		}
	}
	depth := func(a, b int) int { return lcaDepth[[2]int{s.Labels[a], s.Labels[b]}] }
	ordered := 0 // triplets the taxonomy orders, counting (i,j,i,k) and (i,k,i,j) once
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := j + 1; k < n; k++ {
				if i != j && i != k && depth(i, j) != depth(i, k) {
					ordered++
				}
			}
		}
	}
	if 2*m > ordered { // at most half: the rejection sampling below stays fast
		return nil, fmt.Errorf("data: synthetic triplets: m must be at most half of the %d triplets the taxonomy orders among %d items (%d), got %d", ordered, n, ordered/2, m)
	}
	rng := rand.New(rand.NewPCG(seed, 23))
	seen := map[[3]int]bool{}
	out := make([]Comparison, 0, m)
	for len(out) < m {
		i, j, k := rng.IntN(n), rng.IntN(n), rng.IntN(n)
		if i == j || i == k || j == k {
			continue
		}
		dj, dk := depth(i, j), depth(i, k)
		if dj == dk {
			continue
		}
		if dj < dk {
			j, k = k, j // j is the closer one
		}
		if seen[[3]int{i, j, k}] {
			continue
		}
		seen[[3]int{i, j, k}] = true
		if rng.Float64() < flip {
			j, k = k, j
		}
		out = append(out, Comparison{I: i, J: j, K: i, L: k})
	}
	return out, nil
}
