package conic

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

// randomPairProblem returns a comparison-space problem on n items with one
// PSD block of order k for each entry of orders (random item coordinates)
// and count random comparisons, each of two distinct pairs, and its
// operator.
func randomPairProblem(rng *rand.Rand, n int, orders []int, count int) (*Problem, *PairOperator) {
	cp := &Problem{Mu: 1, NT: count, Settings: DefaultSettings()}
	var phi []*mat.Dense
	off := 0
	for _, k := range orders {
		cp.Blocks = append(cp.Blocks, Block{PSD: true, K: k, Off: off, Size: SvecLen(k)})
		phi = append(phi, testproblems.Features(rng, n, k))
		off += SvecLen(k)
	}
	cp.Dim = off
	cp.C = make([]float64, off)
	var pairs []data.Pair
	index := map[data.Pair]int32{}
	lookup := func(q data.Pair) int32 {
		if k, ok := index[q]; ok {
			return k
		}
		k := int32(len(pairs))
		index[q] = k
		pairs = append(pairs, q)
		return k
	}
	var left, right []int32
	for len(left) < count {
		i, j, k, l := rng.IntN(n), rng.IntN(n), rng.IntN(n), rng.IntN(n)
		if i == j || k == l || data.NewPair(i, j) == data.NewPair(k, l) {
			continue
		}
		left = append(left, lookup(data.NewPair(i, j)))
		right = append(right, lookup(data.NewPair(k, l)))
	}
	po := NewPairOperator(phi, pairs, left, right)
	cp.System = po
	return cp, po
}

// TestLowOrderRowsMatchAddBlocks checks that the comparison-space Newton
// matrix's terms of small blocks, formed as the Gram matrix of the vectors
// of lowOrderRows, equal addBlocks' sums of squared pair Gram values, on
// blocks on either side of Settings.LowOrderMax's OpenBLAS value (12) and
// with factors G of full and of lower rank.
func TestLowOrderRowsMatchAddBlocks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		orders []int // per block
		gCols  int   // columns of each factor G (0: the block's order)
	}{
		{name: "one block of order 3", orders: []int{3}},
		{name: "orders 1, 8 and 20", orders: []int{1, 8, 20}},
		{name: "orders 12 and 13", orders: []int{12, 13}},
		{name: "factors of rank 2", orders: []int{5, 9}, gCols: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(len(tc.orders)), uint64(tc.orders[0])))
			const n = 25
			cp, po := randomPairProblem(rng, n, tc.orders, 120)
			nts := make([]ntBlock, len(cp.Blocks))
			var low []int
			var rows, high [][]float64
			for q, bl := range cp.Blocks {
				cols := bl.K
				if tc.gCols > 0 {
					cols = tc.gCols
				}
				nts[q].g = testproblems.Features(rng, bl.K, cols)
				rows = append(rows, po.pairRows(nil, po.phi[q], nts[q].g))
				if bl.K <= 12 {
					low = append(low, q)
				} else {
					high = append(high, rows[q])
				}
			}
			nT := cp.NT
			want := make([]float64, nT*nT)
			po.addBlocks(want, nT, rows)
			got := make([]float64, nT*nT)
			if len(high) > 0 {
				po.addBlocks(got, nT, high)
			}
			y, m := po.lowOrderRows(nil, cp, nts, low)
			linalg.GramUpperAdd(m, nT, y, got)
			for c := 0; c < nT; c++ {
				for c2 := c; c2 < nT; c2++ {
					w, g := want[c*nT+c2], got[c*nT+c2]
					if math.Abs(g-w) > 1e-10*math.Max(1, math.Abs(w)) {
						t.Fatalf("entry (%d, %d): %g, want %g", c, c2, g, w)
					}
				}
			}
		})
	}
}

// BenchmarkLowOrderTerms forms one block's terms of the comparison-space
// Newton matrix at the fixture's scale (330 items, 4400 comparisons) by
// look-ups (pairRows and addBlocks) and as a product (lowOrderRows and
// linalg.GramUpperAdd), for blocks of order k: the measurement behind
// Settings.LowOrderMax.
func BenchmarkLowOrderTerms(b *testing.B) {
	const n, count = 330, 4400
	md := make([]float64, count*count)
	for _, k := range []int{3, 8, 12, 16, 20, 24} {
		rng := rand.New(rand.NewPCG(uint64(k), count))
		cp, po := randomPairProblem(rng, n, []int{k}, count)
		nts := []ntBlock{{g: testproblems.Features(rng, k, k)}}
		b.Run(fmt.Sprintf("k%d/lookups", k), func(b *testing.B) {
			var rows []float64
			for b.Loop() {
				rows = po.pairRows(rows, po.phi[0], nts[0].g)
				po.addBlocks(md, cp.NT, [][]float64{rows})
			}
		})
		b.Run(fmt.Sprintf("k%d/product", k), func(b *testing.B) {
			var y []float64
			for b.Loop() {
				var m int
				y, m = po.lowOrderRows(y, cp, nts, []int{0})
				linalg.GramUpperAdd(m, cp.NT, y, md)
			}
		})
	}
}

// explicitB returns the |T|×K matrix B of a comparison-space problem:
// row c holds, per block, svec(uuᵀ − wwᵀ) for u and w the coordinate
// differences of comparison c's two pairs.
func explicitB(cp *Problem, po *PairOperator) *mat.Dense {
	b := mat.NewDense(cp.NT, cp.Dim, nil)
	for c := 0; c < cp.NT; c++ {
		lp, rp := po.pairs[po.left[c]], po.pairs[po.right[c]]
		for q, bl := range cp.Blocks {
			phi := po.phi[q]
			u, w := make([]float64, bl.K), make([]float64, bl.K)
			for i := range u {
				u[i] = phi.At(lp.A, i) - phi.At(lp.B, i)
				w[i] = phi.At(rp.A, i) - phi.At(rp.B, i)
			}
			m := make([]float64, bl.K*bl.K)
			for i := range u {
				for j := range u {
					m[i*bl.K+j] = u[i]*u[j] - w[i]*w[j]
				}
			}
			SvecOf(bl.K, m, b.RawRowView(c)[bl.Off:bl.Off+bl.Size])
		}
	}
	return b
}

// TestNewtonSystemsAgree solves one problem with both Newton systems, in
// comparison space (PairOperator) and as normal equations with B formed
// explicitly (NormalEquations), at small and large μ: both must reach the
// tolerance with the same primal and dual values, and those must agree
// with each other (a zero duality gap).
func TestNewtonSystemsAgree(t *testing.T) {
	t.Parallel()
	for _, mu := range []float64{0.05, 1, 100} {
		t.Run(fmt.Sprintf("mu%g", mu), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, uint64(mu*100)))
			cp, po := randomPairProblem(rng, 12, []int{3, 2}, 40)
			cp.Mu = mu
			for _, bl := range cp.Blocks { // c = svec(I): the trace
				p := 0
				for i := 0; i < bl.K; i++ {
					cp.C[bl.Off+p] = 1
					p += bl.K - i
				}
			}
			normal := *cp
			normal.System = &NormalEquations{B: explicitB(cp, po)}
			var results []Result
			for _, sys := range []*Problem{cp, &normal} {
				res, err := Solve(context.Background(), sys, 1e-9, 200)
				if err != nil {
					t.Fatalf("%T: %v after %d iterations (primal %g, dual %g)", sys.System, err, res.Iterations, res.Primal, res.Dual)
				}
				if d := math.Abs(res.Primal-res.Dual) / math.Max(1, math.Abs(res.Primal)); d > 1e-8 {
					t.Errorf("%T: primal %.12g, dual %.12g: gap %.2g", sys.System, res.Primal, res.Dual, d)
				}
				t.Logf("%T: %d iterations, primal %.12g, dual %.12g", sys.System, res.Iterations, res.Primal, res.Dual)
				results = append(results, res)
			}
			if d := math.Abs(results[0].Dual-results[1].Dual) / math.Max(1, math.Abs(results[1].Dual)); d > 1e-7 {
				t.Errorf("dual %.12g in comparison space, %.12g from the normal equations", results[0].Dual, results[1].Dual)
			}
		})
	}
}
