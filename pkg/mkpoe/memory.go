package mkpoe

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// memoryNeed estimates the bytes a fit holds at its peak, from the shapes
// of its problem (docs/solver.md, "Memory"): per full block of order r over
// n items, its coordinates (n·r) and, for the default method, about ten
// r×r matrices (iterate, momentum, gradient, eigenvectors and their
// scratch) and the model's n×n W; the low-rank method keeps only factors
// of k ≪ r columns and returns a factored model (no r×r matrix, no W);
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
			bytes += 8 * n * r
			continue
		}
		bytes += 8 * (n*r + 10*r*r + n*n)
	}
	return bytes
}

// availableMemory returns the bytes the system can still give (Linux:
// MemAvailable of /proc/meminfo), 0 when unknown.
func availableMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 2 && fields[1] == "kB" {
				if kb, err := strconv.ParseUint(fields[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// checkMemory refuses a fit whose estimated need exceeds the memory
// available (tuning.hooks.availableMemory overrides the system's in tests),
// with an error that names both and what would lower the need.
func checkMemory(p *problem, factored bool) error {
	avail := availableMemory()
	if f := p.tune.hooks.availableMemory; f != nil {
		avail = f()
	}
	need := memoryNeed(p, factored)
	if avail == 0 || need <= float64(avail) {
		return nil
	}
	return invalidf("mkpoe: this fit needs about %.1f GiB (n = %d items, %d blocks, %d comparisons; each full W is n×n) but %.1f GiB are available: use fewer items, diagonal W (mode diag), or fewer kernels",
		need/(1<<30), p.n, len(p.blocks), len(p.left), float64(avail)/(1<<30))
}
