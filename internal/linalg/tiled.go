package linalg

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
)

// tileOps are the four kernels of a tiled Cholesky factorisation A = UᵀU
// on row-major storage (upper triangle), for one precision. Every matrix
// argument is a sub-matrix of the n×n row-major a with leading dimension
// ld.
type tileOps[T float32 | float64] interface {
	// potrf factors the m×m diagonal tile a in place (U in its upper
	// triangle) and reports false if it is not positive definite.
	potrf(m int, a []T, ld int) bool
	// trsm overwrites the m×k tile b with U⁻ᵀb, U the m×m upper factor
	// in u.
	trsm(m, k int, u []T, b []T, ld int)
	// syrk subtracts xᵀx from the upper triangle of the m×m tile c, for
	// the k×m tile x.
	syrk(m, k int, x, c []T, ld int)
	// gemm subtracts xᵀy from the m×k tile c, for the j×m tile x and the
	// j×k tile y.
	gemm(m, k, j int, x, y, c []T, ld int)
}

// tiles64 and tiles32 are the float64 and float32 kernels of
// choleskyTiled: trsm, syrk and gemm below on the build's BLAS (level3),
// potrf defined by each build (openblas.go, gonum.go).
type (
	tiles64 struct{}
	tiles32 struct{}
)

// level3 is the build's Level 3 BLAS in both precisions: OpenBLAS through
// gonum's netlib wrapper (openblas.go) or gonum's Go implementation
// (gonum.go).
type level3 interface {
	blas.Float64Level3
	blas.Float32Level3
}

func (tiles64) trsm(m, k int, u, b []float64, ld int) {
	tileBLAS.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, m, k, 1, u, ld, b, ld)
}

func (tiles64) syrk(m, k int, x, c []float64, ld int) {
	tileBLAS.Dsyrk(blas.Upper, blas.Trans, m, k, -1, x, ld, 1, c, ld)
}

func (tiles64) gemm(m, k, j int, x, y, c []float64, ld int) {
	tileBLAS.Dgemm(blas.Trans, blas.NoTrans, m, k, j, -1, x, ld, y, ld, 1, c, ld)
}

func (tiles32) trsm(m, k int, u, b []float32, ld int) {
	tileBLAS.Strsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, m, k, 1, u, ld, b, ld)
}

func (tiles32) syrk(m, k int, x, c []float32, ld int) {
	tileBLAS.Ssyrk(blas.Upper, blas.Trans, m, k, -1, x, ld, 1, c, ld)
}

func (tiles32) gemm(m, k, j int, x, y, c []float32, ld int) {
	tileBLAS.Sgemm(blas.Trans, blas.NoTrans, m, k, j, -1, x, ld, y, ld, 1, c, ld)
}

// tiledMinSize is the order from which cholesky and choleskySingle split
// the factorisation into tiles.
const tiledMinSize = 2 * tileSize

// tileSize is the tile width of choleskyTiled. 256 keeps the serial
// factorisation of each diagonal tile (256³/3 multiply-adds, under a
// millisecond) small against the parallel updates.
const tileSize = 256

// choleskyTiled factors the symmetric positive definite n×n row-major a
// (upper triangle read) as UᵀU in place, like a right-looking blocked
// dpotrf, with the panel solves and trailing updates of each step split
// into tiles that the goroutines of Parallel take in turn. OpenBLAS
// runs one thread per call (openblas.go), so this is how one factorisation
// uses both cores of the machine (docs/solver.md, "Parallel
// factorisation").
//
// Determinism: the tiles are fixed by n alone, and every tile receives the
// same calls in the same order whichever goroutine makes them (steps are
// separated by barriers), so the factor does not depend on the number of
// workers or on scheduling.
func choleskyTiled[T float32 | float64](n int, a []T, ops tileOps[T]) bool {
	for k0 := 0; k0 < n; k0 += tileSize {
		kb := min(tileSize, n-k0)
		if !ops.potrf(kb, a[k0*n+k0:], n) {
			return false
		}
		r0 := k0 + kb // first row and column of the trailing matrix
		if r0 == n {
			break
		}
		tiles := (n - r0 + tileSize - 1) / tileSize
		// Panel: U[k, j] = U[k,k]⁻ᵀ A[k, j] for every column tile j.
		Parallel(tiles, func(t int) {
			j0 := r0 + t*tileSize
			ops.trsm(kb, min(tileSize, n-j0), a[k0*n+k0:], a[k0*n+j0:], n)
		})
		// Trailing update, one row tile i at a time (the first ones are the
		// widest, so they go first): A[i, i…] −= U[k, i]ᵀ U[k, i…].
		Parallel(tiles, func(t int) {
			i0 := r0 + t*tileSize
			ib := min(tileSize, n-i0)
			ops.syrk(ib, kb, a[k0*n+i0:], a[i0*n+i0:], n)
			if i1 := i0 + ib; i1 < n {
				ops.gemm(ib, n-i1, kb, a[k0*n+i0:], a[k0*n+i1:], a[i0*n+i1:], n)
			}
		})
	}
	// OpenBLAS's potrf, unlike LAPACKE's wrapper (which scans for NaN
	// first), accepts a NaN pivot; a NaN anywhere in the upper triangle
	// reaches U's diagonal (every U_ij enters U_jj), so it is refused
	// here, with non-finite pivots.
	for i := 0; i < n; i++ {
		if d := float64(a[i*n+i]); !(d > 0) || math.IsInf(d, 0) {
			return false
		}
	}
	return true
}

// Parallel calls f(t) for t = 0 … tasks−1 and waits. The calling
// goroutine works through the tasks in order, helped by at most
// runtime.GOMAXPROCS(0)−1 other goroutines, and only while fewer than
// GOMAXPROCS goroutines of the process are working inside Parallel or
// hold Occupy: a fit running beside another one then gets no helpers,
// instead of both splitting their OpenBLAS calls over more threads than
// there are cores. f must write only task t's own outputs, so that the
// results do not depend on who ran which task.
func Parallel(tasks int, f func(t int)) {
	busy.Add(1)
	defer busy.Add(-1)
	var next atomic.Int64
	work := func() {
		for {
			t := int(next.Add(1) - 1)
			if t >= tasks {
				return
			}
			f(t)
		}
	}
	var wg sync.WaitGroup
	limit := int64(runtime.GOMAXPROCS(0))
	for range min(limit, int64(tasks)) - 1 {
		if !reserve(limit) {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer busy.Add(-1)
			work()
		}()
	}
	work()
	wg.Wait()
}

// ParallelRows cuts the rows 0 … n−1 into blocks of size rows (the last
// one shorter) and calls f(t, lo, hi) for block t, rows lo … hi−1, as
// tasks of Parallel.
func ParallelRows(n, size int, f func(t, lo, hi int)) {
	Parallel((n+size-1)/size, func(t int) {
		lo := t * size
		f(t, lo, min(lo+size, n))
	})
}

// busy counts the goroutines working inside Parallel, callers included,
// and those that called Occupy.
var busy atomic.Int64

// Occupy counts the calling goroutine as keeping a core busy until
// release is called, so that Parallel adds no helpers beyond the cores.
// The harness's workers hold it while they run a task: with two workers
// on two cores, a fit's Parallel calls then run on their own goroutine,
// as every call did before Parallel existed, instead of four goroutines
// sharing two cores and each other's caches (experiments/runner.go).
func Occupy() (release func()) {
	busy.Add(1)
	var once sync.Once
	return func() { once.Do(func() { busy.Add(-1) }) }
}

// reserve counts one more goroutine in busy if that keeps it within limit.
func reserve(limit int64) bool {
	for {
		b := busy.Load()
		if b >= limit {
			return false
		}
		if busy.CompareAndSwap(b, b+1) {
			return true
		}
	}
}
