package mkpoe

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// TestHessianProduct checks the generalised Hessian product of the shifted
// smoothed objective against central differences of its gradient, and the
// Jacobi preconditioner against H applied to unit vectors, on a diagonal-Φ
// (GNMDS) block, also with enough comparisons for the pair and comparison
// loops to run in chunks (chunksOf), and on two dense-Φ blocks.
func TestHessianProduct(t *testing.T) {
	t.Parallel()
	const n, k = 30, 3
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 3, Triplets: 400, Flip: 0.1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	const nMany = 60
	many, err := data.GeneratePlanted(data.PlantedSpec{N: nMany, Dim: 3, Triplets: 22000, Flip: 0.1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if chunksOf(len(many.Triplets), k) < 2 {
		t.Fatalf("%d comparisons at width %d run in one chunk", len(many.Triplets), k)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	dense := func() *mat.Dense {
		phi := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				phi.Set(i, j, rng.NormFloat64()/math.Sqrt(n))
			}
		}
		return phi
	}
	for _, tc := range []struct {
		name        string
		n           int
		blocks      []block
		comparisons []data.Comparison
	}{
		{"identity", n, []block{{phi: identity(n), r: n, phiDiag: ones(n)}}, pl.Triplets},
		{"identity, in chunks", nMany, []block{{phi: identity(nMany), r: nMany, phiDiag: ones(nMany)}}, many.Triplets},
		{"two dense blocks", n, []block{{phi: dense(), r: n}, {phi: dense(), r: n}}, pl.Triplets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProblem(tc.n, tc.blocks, tc.comparisons, 50)
			lr := newLowRank(p)
			ranks := make([]int, len(tc.blocks))
			for b := range ranks {
				ranks[b] = k
			}
			dim := lr.layout(ranks)
			z := make([]float64, dim)
			for i := range z {
				z[i] = rng.NormFloat64() / 2
			}
			lr.shift = make([]float64, len(lr.m))
			lr.shifted = make([]float64, len(lr.m))
			for c := range lr.shift {
				lr.shift[c] = rng.Float64() / 4
			}
			const delta = 0.7
			g := make([]float64, dim)
			lr.evaluate(z, delta, g)
			quadratic := 0
			for _, s := range lr.shifted {
				if s > 0 && s < delta {
					quadratic++
				}
			}
			if quadratic < 20 || quadratic > len(lr.m)-20 {
				t.Fatalf("%d of %d comparisons in the quadratic piece: the test needs both pieces", quadratic, len(lr.m))
			}
			ns := lr.newtonScratch()
			lr.markQuadratic(ns, delta)
			v := make([]float64, dim)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			hv := make([]float64, dim)
			lr.hessianProduct(ns, delta, v, hv)
			// The pairs skipped by need contribute nothing: the product
			// with every pair's derivative computed is the same, bit for bit.
			need := ns.need
			ns.need = nil
			every := make([]float64, dim)
			lr.hessianProduct(ns, delta, v, every)
			ns.need = need
			if !slices.Equal(every, hv) {
				t.Errorf("H·v over the marked pairs differs from H·v over every pair")
			}
			lr.jacobi(ns, delta, dim)
			diag := append([]float64(nil), ns.diag...)
			// Central differences at a step small enough that no shifted
			// margin changes piece (checked), so f_δ is smooth along it.
			const h = 1e-6
			zp, zm := make([]float64, dim), make([]float64, dim)
			gp, gm := make([]float64, dim), make([]float64, dim)
			for i := range z {
				zp[i], zm[i] = z[i]+h*v[i], z[i]-h*v[i]
			}
			lr.evaluate(zp, delta, gp)
			piecesP := pieces(lr.shifted, delta)
			lr.evaluate(zm, delta, gm)
			if piecesM := pieces(lr.shifted, delta); piecesM != piecesP {
				t.Fatalf("a margin changed piece within ±h")
			}
			worst, scale := 0.0, 0.0
			for i := range hv {
				fd := (gp[i] - gm[i]) / (2 * h)
				worst = math.Max(worst, math.Abs(fd-hv[i]))
				scale = math.Max(scale, math.Abs(fd))
			}
			if worst > 1e-6*scale {
				t.Errorf("H·v differs from the differences of the gradient by %.3g (scale %.3g)", worst, scale)
			}
			if tc.blocks[0].phiDiag == nil {
				return
			}
			lr.evaluate(z, delta, g)
			e, he := make([]float64, dim), make([]float64, dim)
			for i := range e {
				clear(e)
				e[i] = 1
				lr.hessianProduct(ns, delta, e, he)
				if want := 1 / math.Max(he[i], 2); math.Abs(diag[i]-want) > 1e-10*want {
					t.Fatalf("Jacobi entry %d: %.12g, 1/max(H_ii, 2) = %.12g", i, diag[i], want)
				}
			}
		})
	}
}

// pieces returns a fingerprint of which Huber piece each shifted margin is in.
func pieces(s []float64, delta float64) int {
	f := 0
	for c, x := range s {
		switch {
		case x >= delta:
			f += 2 * (c + 1)
		case x > 0:
			f += c + 1
		}
	}
	return f
}
