package mkpoe

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

// TestBasisCache: a repeated kernel and cut return the first computation's
// basis; a changed entry, another cut or a small kernel compute again; the
// least recently used basis goes first once over the limit, and a basis
// larger than the limit is not kept.
func TestBasisCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	kernel := func(n int) *mat.SymDense { return testproblems.Linear(testproblems.Features(rng, n, 3)) }
	n := defaultTuning().route.eigenCacheMinOrder
	a, b := kernel(n), kernel(n)
	computed := 0
	compute := func(k mat.Symmetric, cols int) func() (eigenbasis, float64) {
		return func() (eigenbasis, float64) {
			computed++
			return eigenbasis{phi: mat.NewDense(k.SymmetricDim(), cols, nil), back: mat.NewDense(k.SymmetricDim(), cols, nil)}, 1
		}
	}
	perBasis := 2 * 8 * n * 3
	c := NewEigenCache(2 * perBasis)
	cut := kernelCut{relTol: 1e-10}
	ask := func(k *mat.SymDense, cut kernelCut, cols int) eigenbasis {
		eb, _ := c.basis(k, cut, n, compute(k, cols))
		return eb
	}
	first := ask(a, cut, 3)
	if again := ask(a, cut, 3); again.phi != first.phi || computed != 1 {
		t.Fatalf("repeated kernel: computed %d times, same basis %v", computed, again.phi == first.phi)
	}
	ask(a, kernelCut{relTol: 1e-10, rank: 2}, 3) // another cut: computed
	if computed != 2 {
		t.Fatalf("another cut: computed %d times, want 2", computed)
	}
	ask(b, cut, 3) // a third basis: evicts a's whole basis, the least recently used
	if computed != 3 || c.order.Len() != 2 {
		t.Fatalf("third basis: computed %d, cached %d; want 3 and 2", computed, c.order.Len())
	}
	ask(a, cut, 3)
	if computed != 4 {
		t.Fatalf("least recently used basis: computed %d times, want 4 (evicted)", computed)
	}
	changed := mat.NewSymDense(n, nil)
	changed.CopySym(b)
	changed.SetSym(0, 1, math.Nextafter(changed.At(0, 1), 2))
	ask(changed, cut, 3)
	if computed != 5 {
		t.Fatalf("one entry changed: computed %d times, want 5", computed)
	}
	ask(a, kernelCut{relTol: 1e-10, energy: 0.5}, 10) // larger than the limit alone
	if _, ok := c.entries[basisKey{digest: kernelDigest(a), cut: kernelCut{relTol: 1e-10, energy: 0.5}}]; ok || c.bytes > c.limit {
		t.Fatalf("a basis over the limit was kept (cache %d bytes, limit %d)", c.bytes, c.limit)
	}
	small := kernel(10)
	ask(small, cut, 3)
	ask(small, cut, 3)
	if computed != 8 {
		t.Fatalf("small kernels: computed %d times, want 8 (never cached)", computed)
	}
}

// TestEigenCacheSameFit: fits on a cached kernel give the same bits as
// without a cache, and the cache holds the basis after the first fit.
func TestEigenCacheSameFit(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 1))
	x := testproblems.Features(rng, defaultTuning().route.eigenCacheMinOrder, 4)
	k := testproblems.RBF(x)
	cs := testproblems.Comparisons(rng, x, 600, 0.1, testproblems.TripletsIf(true), 0)
	cache := NewEigenCache(512 << 20)
	fit := func(cache *EigenCache) *Model {
		m, err := Fit([]mat.Symmetric{k}, cs, &Settings{Beta: 50, KernelRank: 20, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, fresh := fit(cache), fit(cache), fit(nil)
	if cache.order.Len() != 1 {
		t.Errorf("cache holds %d bases after two fits on one kernel, want 1", cache.order.Len())
	}
	for _, m := range []*Model{b, fresh} {
		if m.Objective != a.Objective || m.Stats.Iterations != a.Stats.Iterations || !mat.Equal(m.Metric(0), a.Metric(0)) {
			t.Errorf("objective %v (%d iterations), want %v (%d): cached and fresh bases must give the same fit", m.Objective, m.Stats.Iterations, a.Objective, a.Stats.Iterations)
		}
	}
}
