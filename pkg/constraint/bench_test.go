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
func gnm(m int, dag bool, seed uint64) []data.Comparison { return gnmDeg(m, 2, dag, seed) }

// gnmDeg is gnm with mean out-degree deg: about m/deg pair-vertices.
func gnmDeg(m int, deg float64, dag bool, seed uint64) []data.Comparison {
	rng := rand.New(rand.NewPCG(seed, seed))
	n := 2
	for float64(n*(n-1)/2) < float64(m)/deg {
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

func benchmarkAcyclic(b *testing.B, m int, deg float64) {
	cs := gnmDeg(m, deg, false, 1)
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

func BenchmarkAcyclicGnp_1e4(b *testing.B) { benchmarkAcyclic(b, 1e4, 2) }
func BenchmarkAcyclicGnp_1e5(b *testing.B) { benchmarkAcyclic(b, 1e5, 2) }
func BenchmarkAcyclicGnp_1e6(b *testing.B) { benchmarkAcyclic(b, 1e6, 2) }

// Mean out-degree 1 (about 10⁶ pair-vertices, e.g. triplets over 1400
// items): the sparse regime of real comparison sets such as aset400 (9107
// comparisons on 4091 pairs).
func BenchmarkAcyclicGnpSparse_1e6(b *testing.B) { benchmarkAcyclic(b, 1e6, 1) }

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
