package data

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// PlantedSpec describes the planted-embedding triplet sets of the scale
// benchmarks (the set-up of the ordinal-embedding literature, e.g. Terada
// & von Luxburg 2014, and of cblearn's benchmarks): n items drawn from a
// standard normal distribution in Dim dimensions, m distinct random
// triplets (i, j, k) answered by the true distances, each answer reversed
// with probability Flip (survey noise).
type PlantedSpec struct {
	N, Dim, Triplets int
	Flip             float64
	Seed             uint64
}

// Planted is a generated planted set: the true points (rows) and the
// triplets, (i,j,i,k) meaning "i is more similar to j than to k".
type Planted struct {
	Points   *mat.Dense
	Triplets []Comparison
}

// GeneratePlanted draws the planted set of spec. It needs at least 3 items
// and at most a quarter of the n·(n−1)·(n−2)/2 distinct triplets (so that
// rejection of duplicates stays fast).
func GeneratePlanted(spec PlantedSpec) (*Planted, error) {
	n, d, m := spec.N, spec.Dim, spec.Triplets
	switch {
	case n < 3:
		return nil, fmt.Errorf("data: planted: N must be ≥ 3, got %d", n)
	case d < 1:
		return nil, fmt.Errorf("data: planted: Dim must be ≥ 1, got %d", d)
	case m < 1 || float64(m) > float64(n)*float64(n-1)*float64(n-2)/8:
		return nil, fmt.Errorf("data: planted: Triplets must be in [1, n(n−1)(n−2)/8] = [1, %.0f] for N = %d, got %d", float64(n)*float64(n-1)*float64(n-2)/8, n, m)
	case !(spec.Flip >= 0 && spec.Flip < 0.5):
		return nil, fmt.Errorf("data: planted: Flip must be in [0, 0.5), got %v", spec.Flip)
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x9e3779b97f4a7c15))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for t := 0; t < d; t++ {
			x.Set(i, t, rng.NormFloat64())
		}
	}
	dist := func(a, b int) float64 {
		s := 0.0
		for t := 0; t < d; t++ {
			v := x.At(a, t) - x.At(b, t)
			s += v * v
		}
		return s
	}
	seen := make(map[[3]int]bool, m)
	out := make([]Comparison, 0, m)
	for len(out) < m {
		i, j, k := rng.IntN(n), rng.IntN(n), rng.IntN(n)
		if i == j || i == k || j == k {
			continue
		}
		if j > k {
			j, k = k, j
		}
		if seen[[3]int{i, j, k}] {
			continue
		}
		seen[[3]int{i, j, k}] = true
		near, far := j, k
		if dist(i, k) < dist(i, j) {
			near, far = k, j
		}
		if rng.Float64() < spec.Flip {
			near, far = far, near
		}
		out = append(out, Triplet(i, near, far))
	}
	return &Planted{Points: x, Triplets: out}, nil
}
