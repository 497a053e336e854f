package mkpoe

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// EigenCache keeps the eigenbases of large kernels (docs/solver.md,
// "Formulation") across fits. A basis costs an n³ eigendecomposition, and a
// sweep over β (nested cross-validation: MinBeta, then one fit per β on the
// same training kernels) asks for the same one again and again: at
// n = 2000 that is seconds per kernel and fit, more than many fits
// themselves. Pass one cache in Settings.Cache to every fit of such a
// sweep; a nil cache keeps nothing.
//
// Bases are keyed by a SHA-256 digest of the kernel's entries and the cut,
// so a repeated request returns the bases computed the first time: the
// same bits as computing them again (the decomposition is deterministic),
// whatever the order of the fits. Kernels below a minimum order
// (routeTuning.eigenCacheMinOrder) are not kept: there the decomposition
// costs less than a few iterations. The bases are shared read-only (every
// solver copies before rescaling: precondition). Least recently used bases
// go first once the cache holds more than its limit (a basis larger than
// the limit on its own is not kept). It is safe for concurrent fits; two
// fits asking for the same new kernel at once may both compute it, and the
// second result replaces the first (the same bits).
type EigenCache struct {
	mu      sync.Mutex
	limit   int
	bytes   int
	order   *list.List // front: most recently used; values *basisEntry
	entries map[basisKey]*list.Element
}

// NewEigenCache returns an empty cache holding at most limitBytes of
// bases (each basis: two n×r matrices of float64).
func NewEigenCache(limitBytes int) *EigenCache {
	return &EigenCache{limit: limitBytes, order: list.New(), entries: map[basisKey]*list.Element{}}
}

type basisKey struct {
	digest [sha256.Size]byte
	cut    kernelCut
}

type basisEntry struct {
	key    basisKey
	basis  eigenbasis
	energy float64
	bytes  int
}

// kernelDigest is SHA-256 of the kernel's order and upper triangle.
func kernelDigest(k mat.Symmetric) [sha256.Size]byte {
	n := k.SymmetricDim()
	h := sha256.New()
	buf := make([]byte, 8*(n+1))
	binary.LittleEndian.PutUint64(buf, uint64(n))
	h.Write(buf[:8])
	for i := 0; i < n; i++ {
		row := buf[:0]
		for j := i; j < n; j++ {
			row = binary.LittleEndian.AppendUint64(row, math.Float64bits(k.At(i, j)))
		}
		h.Write(row)
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// basis returns the eigenbasis of k under cut, from the cache when it
// holds it, else from compute (then kept if k's order is at least
// minOrder). A nil cache computes.
func (c *EigenCache) basis(k mat.Symmetric, cut kernelCut, minOrder int, compute func() (eigenbasis, float64)) (eigenbasis, float64) {
	if c == nil || k.SymmetricDim() < minOrder {
		return compute()
	}
	key := basisKey{digest: kernelDigest(k), cut: cut}
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*basisEntry)
		c.mu.Unlock()
		return e.basis, e.energy
	}
	c.mu.Unlock()
	eb, energy := compute()
	r, cols := eb.phi.Dims()
	e := &basisEntry{key: key, basis: eb, energy: energy, bytes: 2 * 8 * r * cols}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.bytes -= old.Value.(*basisEntry).bytes
		c.order.Remove(old)
	}
	c.entries[key] = c.order.PushFront(e)
	c.bytes += e.bytes
	for c.bytes > c.limit && c.order.Len() > 0 {
		last := c.order.Back()
		le := last.Value.(*basisEntry)
		c.order.Remove(last)
		delete(c.entries, le.key)
		c.bytes -= le.bytes
	}
	return eb, energy
}
