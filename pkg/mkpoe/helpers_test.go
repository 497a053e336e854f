package mkpoe

import (
	"math"
	"math/rand/v2"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// randomFeatures returns an n×d matrix of standard normal entries.
func randomFeatures(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// linearKernel returns X Xᵀ/d.
func linearKernel(x *mat.Dense) *mat.SymDense {
	n, d := x.Dims()
	k := mat.NewSymDense(n, nil)
	k.SymOuterK(1/float64(d), x)
	return k
}

// rbfKernel returns exp(−‖x_i − x_j‖²/(2σ²)) with σ² = d.
func rbfKernel(x *mat.Dense) *mat.SymDense {
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

// randomComparisons draws comparisons from a hidden embedding h (rows),
// flipping a fraction noise of them; triplets when triplets is true.
func randomComparisons(rng *rand.Rand, h *mat.Dense, count int, noise float64, triplets bool) []data.Comparison {
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
		if triplets {
			k = i
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
	return cs
}

// tuned returns the default tuning changed by edit, for Settings.tuning:
// tests change a solver constant for their own fits only, so they can run
// in parallel.
func tuned(edit func(*tuning)) *tuning {
	t := defaultTuning()
	edit(t)
	return t
}
