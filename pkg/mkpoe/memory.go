package mkpoe

import "fmt"

// memoryNeed estimates the bytes a fit holds at its peak, from the shapes
// of its problem (docs/solver.md, "Memory"): per full block of order r over
// n items, its coordinates (n·r) and, for the default method, about ten
// r×r matrices (iterate, momentum, gradient, eigenvectors and their
// scratch) and the model's n×n W; the low-rank method keeps only factors
// of k ≪ r columns and returns a factored model (no r×r matrix, no W),
// and of a diagonal kernel's block (GNMDS) only its two diagonals;
// per diagonal block its n×r coordinates twice; per comparison about 64
// bytes (pairs, indices, margins, multipliers). It is a planning figure:
// GNMDS at n = 10⁴ with 10⁶ triplets, low-rank, at W = 0 was estimated at
// 3.2 GB and peaked at 2.7 GB resident (/usr/bin/time -v) when that model
// still held X and a dense W.
func memoryNeed(p *problem, factored bool) float64 {
	n := float64(p.n)
	bytes := 64 * float64(len(p.left)+len(p.pairs))
	for _, blk := range p.blocks {
		r := float64(blk.r)
		if blk.diag {
			bytes += 8 * 2 * n * r
			continue
		}
		if factored {
			if blk.phi == nil {
				r = 2 // a diagonal kernel's coordinates and map back (diagonalBlock)
			}
			bytes += 8 * n * r
			continue
		}
		bytes += 8 * (n*r + 10*r*r + n*n)
	}
	return bytes
}

// checkMemory refuses a fit whose estimated need exceeds limit bytes
// (Settings.MemoryLimit; 0: no limit) with an error matching ErrTooLarge
// that names both figures and what would lower the need.
func checkMemory(p *problem, factored bool, limit uint64) error {
	need := memoryNeed(p, factored)
	if limit == 0 || need <= float64(limit) {
		return nil
	}
	return fmt.Errorf("%w: this fit needs about %.1f GiB (n = %d items, %d blocks, %d comparisons; each full W is n×n) but its limit is %.1f GiB: use fewer items, diagonal W (mode diag), fewer kernels or the low-rank method",
		ErrTooLarge, need/(1<<30), p.n, len(p.blocks), len(p.left), float64(limit)/(1<<30))
}
