package constraint_test

import (
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// gnm returns m comparisons forming a random directed graph on about m/2
// pair-vertices (mean out-degree 2, well above the giant strongly connected
// component threshold of 1, so most vertices lie on cycles): each comparison
// joins two uniformly drawn distinct pairs of the first n items, where
// n(n−1)/2 ≈ m/2. If dag, every edge points from the lower to the
// higher pair under a random ranking of the pairs, so the graph is acyclic.
func gnm(m int, dag bool, seed uint64) []data.Comparison {
	rng := rand.New(rand.NewPCG(seed, seed))
	n := 2
	for n*(n-1)/2 < m/2 {
		n++
	}
	rank := make(map[data.Pair]uint64)
	rankOf := func(p data.Pair) uint64 {
		r, ok := rank[p]
		if !ok {
			r = rng.Uint64()
			rank[p] = r
		}
		return r
	}
	pair := func() data.Pair {
		for {
			i, j := rng.IntN(n), rng.IntN(n)
			if i != j {
				return data.NewPair(i, j)
			}
		}
	}
	cs := make([]data.Comparison, 0, m)
	for len(cs) < m {
		p, q := pair(), pair()
		if p == q {
			continue
		}
		if dag && rankOf(p) > rankOf(q) {
			p, q = q, p
		}
		cs = append(cs, data.Comparison{I: p.A, J: p.B, K: q.A, L: q.B})
	}
	return cs
}

func benchmarkAcyclic(b *testing.B, m int) {
	cs := gnm(m, false, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		kept, _, err := constraint.Acyclic(cs, rand.New(rand.NewPCG(1, uint64(i))))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(kept)), "kept")
	}
}

func BenchmarkAcyclicGnp_1e4(b *testing.B) { benchmarkAcyclic(b, 1e4) }
func BenchmarkAcyclicGnp_1e5(b *testing.B) { benchmarkAcyclic(b, 1e5) }
func BenchmarkAcyclicGnp_1e6(b *testing.B) { benchmarkAcyclic(b, 1e6) }

func benchmarkReduce(b *testing.B, m int) {
	cs := gnm(m, true, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		kept, _, err := constraint.Reduce(cs)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(kept)), "kept")
	}
}

func BenchmarkReduceDAG_1e4(b *testing.B) { benchmarkReduce(b, 1e4) }
func BenchmarkReduceDAG_1e5(b *testing.B) { benchmarkReduce(b, 1e5) }
func BenchmarkReduceDAG_1e6(b *testing.B) { benchmarkReduce(b, 1e6) }
