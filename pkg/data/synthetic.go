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
