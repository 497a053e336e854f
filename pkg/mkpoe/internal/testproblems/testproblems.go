// Package testproblems holds the seeded test problems every solver test
// of pkg/mkpoe and its internal packages shares, as gonum's
// optimize/functions does for its methods: random features, the kernels
// built from them, comparisons drawn from a hidden embedding, and the
// small problem set on which each method is held to the exact reference
// optimum (pkg/mkpoe/internal/reference). The same seed gives the same
// problem, draw for draw.
package testproblems

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// Features returns an n×d matrix of standard normal entries.
func Features(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// Linear returns the linear kernel X Xᵀ/d of the rows of x (n×d).
func Linear(x *mat.Dense) *mat.SymDense {
	n, d := x.Dims()
	k := mat.NewSymDense(n, nil)
	k.SymOuterK(1/float64(d), x)
	return k
}

// RBF returns the Gaussian kernel exp(−‖x_i − x_j‖²/(2σ²)), σ² = d, of the
// rows of x (n×d).
func RBF(x *mat.Dense) *mat.SymDense {
	n, d := x.Dims()
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s := 0.0
			for t := 0; t < d; t++ {
				v := x.At(i, t) - x.At(j, t)
				s += v * v
			}
			k.SetSym(i, j, math.Exp(-s/(2*float64(d))))
		}
	}
	return k
}

// Identity returns the n×n identity kernel (GNMDS, Sec. 3.3).
func Identity(n int) *mat.SymDense {
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		k.SetSym(i, i, 1)
	}
	return k
}

// Shape says which comparisons Comparisons draws.
type Shape int

const (
	// Quadruples draws (i,j,k,l) with four independent items.
	Quadruples Shape = iota
	// Triplets draws (i,j,i,k).
	Triplets
	// Mixed draws a triplet or a quadruple with probability ½ each.
	Mixed
)

// Comparisons draws count comparisons "d(i,j) < d(k,l)" consistent with
// the rows of the hidden embedding h, flips a fraction noise of them, and
// appends contra directly contradicting ones (the reverse of the first
// contra).
func Comparisons(rng *rand.Rand, h *mat.Dense, count int, noise float64, shape Shape, contra int) []data.Comparison {
	n, d := h.Dims()
	dist := func(a, b int) float64 {
		s := 0.0
		for t := 0; t < d; t++ {
			v := h.At(a, t) - h.At(b, t)
			s += v * v
		}
		return s
	}
	var cs []data.Comparison
	for len(cs) < count {
		i, j, k, l := rng.IntN(n), rng.IntN(n), rng.IntN(n), rng.IntN(n)
		switch shape {
		case Triplets:
			k = i
		case Mixed:
			if rng.IntN(2) == 0 {
				k = i
			}
		}
		if i == j || k == l || data.NewPair(i, j) == data.NewPair(k, l) {
			continue
		}
		c := data.Comparison{I: i, J: j, K: k, L: l}
		if dist(i, j) > dist(k, l) {
			c = c.Reverse()
		}
		if rng.Float64() < noise {
			c = c.Reverse()
		}
		cs = append(cs, c)
	}
	for q := 0; q < contra; q++ {
		cs = append(cs, cs[q].Reverse())
	}
	return cs
}

// Problem is a seeded MKPOE problem: kernels, comparisons and a β.
type Problem struct {
	Name string
	Ks   []mat.Symmetric
	Cs   []data.Comparison
	Beta float64
}

// Small returns six seeded problems with n ≤ 20, 1–3 kernels (linear:
// rank-deficient; RBF: full rank; identity) and at most 100 comparisons,
// 10% flipped, at β from 1 to 1000: the set every method is held to the
// exact optimum on.
func Small() []Problem {
	var out []Problem
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 8 + rng.IntN(12)
		m := 1 + int(seed%3)
		if m == 3 && n > 12 {
			n = 12
		}
		hidden := Features(rng, n, 3)
		var ks []mat.Symmetric
		for p := 0; p < m; p++ {
			switch (int(seed) + p) % 3 {
			case 0:
				ks = append(ks, Linear(Features(rng, n, 4)))
			case 1:
				x := mat.NewDense(n, 3, nil)
				x.Add(hidden, Features(rng, n, 3))
				ks = append(ks, RBF(x))
			default:
				ks = append(ks, Identity(n))
			}
		}
		shape := Quadruples
		if seed%2 == 0 {
			shape = Triplets
		}
		cs := Comparisons(rng, hidden, 20+rng.IntN(81), 0.1, shape, 0)
		beta := []float64{30, 1, 10, 100, 1000, 3}[seed-1]
		out = append(out, Problem{fmt.Sprintf("seed%d_n%d_m%d_c%d_beta%g", seed, n, m, len(cs), beta), ks, cs, beta})
	}
	return out
}

// TripletsIf is Triplets when triplets holds, else Quadruples.
func TripletsIf(triplets bool) Shape {
	if triplets {
		return Triplets
	}
	return Quadruples
}
