//go:build openblas

package linalg

/*
#cgo LDFLAGS: -llapacke -lopenblas
#include <lapacke.h>

// Declared by OpenBLAS (cblas.h would pull in a second copy of the CBLAS
// declarations that gonum's netlib package already compiles).
void openblas_set_num_threads(int);
char* openblas_get_corename(void);
char* openblas_get_config(void);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/netlib/blas/netlib"
)

const backend = "openblas"

func init() {
	// Large matrix products of gonum (mat.Dense.Mul and the BLAS level 3
	// calls inside gonum's own LAPACK) now run on OpenBLAS.
	blas64.Use(hybrid{})
	// One thread per call: the solver already runs the kernels' blocks, and
	// the harness its tasks, concurrently; two goroutines each calling a
	// 2-thread OpenBLAS ran 2.3× slower than one after the other
	// (docs/solver.md, "Backends").
	C.openblas_set_num_threads(1)
}

// blasCore is the name OpenBLAS gives the CPU kernels it chose at start
// (openblas_get_corename).
func blasCore() string { return C.GoString(C.openblas_get_corename()) }

// blasConfig is OpenBLAS's build description (openblas_get_config), e.g.
// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
func blasConfig() string { return C.GoString(C.openblas_get_config()) }

// symEigen is LAPACK's dsyevd (divide and conquer) through LAPACKE.
func symEigen(n int, a, vals []float64, vectors bool) bool {
	jobz := C.char('N')
	if vectors {
		jobz = 'V'
	}
	info := C.LAPACKE_dsyevd(C.LAPACK_ROW_MAJOR, jobz, 'U', C.lapack_int(n),
		(*C.double)(&a[0]), C.lapack_int(n), (*C.double)(&vals[0]))
	return info == 0
}

// symEigenRange is LAPACK's dsyevr through LAPACKE, column-major on the
// lower triangle (the row-major upper one), so that no transposed copy is
// made; column k of the column-major n×m result is vector k, i.e. the row
// layout SymEigenRange promises.
func symEigenRange(n int, a []float64, vl, vu float64, vals, vecs []float64) (int, bool) {
	var m C.lapack_int
	isuppz := make([]C.lapack_int, 2*n)
	info := C.LAPACKE_dsyevr(C.LAPACK_COL_MAJOR, 'V', 'V', 'L', C.lapack_int(n),
		(*C.double)(&a[0]), C.lapack_int(n), C.double(vl), C.double(vu), 0, 0, 0,
		&m, (*C.double)(&vals[0]), (*C.double)(&vecs[0]), C.lapack_int(n), &isuppz[0])
	return int(m), info == 0
}

// symEigenLeading is LAPACK's dsyevr twice: every eigenvalue (values
// only, on a copy), then the vectors of the keep(all) largest by index.
func symEigenLeading(n int, a []float64, keep func(all []float64) int, vals, vecs []float64) (int, bool) {
	all := make([]float64, n)
	if !symEigen(n, append([]float64(nil), a[:n*n]...), all, false) {
		return 0, false
	}
	k := min(keep(all), n)
	if k <= 0 {
		return 0, true
	}
	var m C.lapack_int
	isuppz := make([]C.lapack_int, 2*n)
	info := C.LAPACKE_dsyevr(C.LAPACK_COL_MAJOR, 'V', 'I', 'L', C.lapack_int(n),
		(*C.double)(&a[0]), C.lapack_int(n), 0, 0, C.lapack_int(n-k+1), C.lapack_int(n), 0,
		&m, (*C.double)(&vals[0]), (*C.double)(&vecs[0]), C.lapack_int(n), &isuppz[0])
	return int(m), info == 0
}

// cholesky is LAPACK's dpotrf through LAPACKE. The row-major upper
// triangle is the column-major lower one, so the factor L = Uᵀ is computed
// in place without the transposed copy that LAPACKE makes for row-major
// input (twice 155 MB at |T| = 4400).
//
// From tiledMinSize on, the factorisation is choleskyTiled on the same
// kernels, which uses every core.
func cholesky(n int, a []float64) bool {
	if n >= tiledMinSize {
		return choleskyTiled(n, a, tiles64{})
	}
	return C.LAPACKE_dpotrf(C.LAPACK_COL_MAJOR, 'L', C.lapack_int(n), (*C.double)(&a[0]), C.lapack_int(n)) == 0
}

// In this build the kernels of choleskyTiled are LAPACK's potrf
// (LAPACKE's _work variant, which skips the NaN scan of the tile:
// choleskyTiled checks the pivots) and OpenBLAS's trsm, syrk, gemm.
var tileBLAS level3 = netlib.Implementation{}

func (tiles64) potrf(m int, a []float64, ld int) bool {
	return C.LAPACKE_dpotrf_work(C.LAPACK_COL_MAJOR, 'L', C.lapack_int(m), (*C.double)(&a[0]), C.lapack_int(ld)) == 0
}

func (tiles32) potrf(m int, a []float32, ld int) bool {
	return C.LAPACKE_spotrf_work(C.LAPACK_COL_MAJOR, 'L', C.lapack_int(m), (*C.float)(&a[0]), C.lapack_int(ld)) == 0
}

// choleskySolve is two triangular solves by OpenBLAS's dtrsv (Uᵀy = b,
// then Ux = y, U row-major upper as left by cholesky). LAPACK's dpotrs
// does the same through dtrsm, which OpenBLAS does not tune for one
// right-hand side: 33 ms against 10 ms for the two dtrsv at n = 4400.
func choleskySolve(n int, a, b []float64) {
	netlib.Implementation{}.Dtrsv(blas.Upper, blas.Trans, blas.NonUnit, n, a, n, b, 1)
	netlib.Implementation{}.Dtrsv(blas.Upper, blas.NoTrans, blas.NonUnit, n, a, n, b, 1)
}

const fastSingle = true

const fastProducts = true

// choleskySingle is LAPACK's spotrf, in the layout of cholesky.
func choleskySingle(n int, a []float32) bool {
	if n >= tiledMinSize {
		return choleskyTiled(n, a, tiles32{})
	}
	return C.LAPACKE_spotrf(C.LAPACK_COL_MAJOR, 'L', C.lapack_int(n), (*C.float)(&a[0]), C.lapack_int(n)) == 0
}

// choleskySolveSingle is choleskySolve in single precision (strsv; 5 ms
// against spotrs's 23 ms at n = 4400).
func choleskySolveSingle(n int, a, b []float32) {
	netlib.Implementation{}.Strsv(blas.Upper, blas.Trans, blas.NonUnit, n, a, n, b, 1)
	netlib.Implementation{}.Strsv(blas.Upper, blas.NoTrans, blas.NonUnit, n, a, n, b, 1)
}

// gramUpper is OpenBLAS's dsyrk (through hybrid.Dsyrk), or from
// gramTiledMin columns on one dsyrk and one dgemm per panel of gramTile
// rows of the triangle, which Parallel spreads over the cores (OpenBLAS
// runs one thread per call). Each entry is computed by the same call
// whatever the number of workers.
func gramUpper(r, n int, a, c []float64, beta float64) {
	if n < gramTiledMin {
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: r, Cols: n, Stride: n, Data: a}, beta,
			blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c})
		return
	}
	tiles := (n + gramTile - 1) / gramTile
	Parallel(tiles, func(t int) {
		i0 := t * gramTile
		i1 := min(i0+gramTile, n)
		netlib.Implementation{}.Dsyrk(blas.Upper, blas.Trans, i1-i0, r, 1, a[i0:], n, beta, c[i0*n+i0:], n)
		if i1 < n {
			netlib.Implementation{}.Dgemm(blas.Trans, blas.NoTrans, i1-i0, n-i1, r, 1, a[i0:], n, a[i1:], n, beta, c[i0*n+i1:], n)
		}
	})
}

// scaledGramScratch is ScaledGram's buffers: each half's Gram matrix and
// its panel of scaled rows.
type scaledGramScratch struct{ part, pan [2][]float64 }

// scaledGramUpper adds each half of the rows to its own Gram matrix, one
// panel of gramTile scaled rows at a time (dsyrk), as two tasks of
// Parallel, and sums the two. Up to two panels of rows (r ≤ 2·gramTile),
// where the scaled copy takes no more memory than the halves' panels, it
// scales them into one buffer and calls gramUpper, as the pure-Go build
// does: the same bits as before the split on small problems, where an
// interior-point run at β = 1e7 is sensitive to rounding (with the split,
// one of TestConicMatchesBarrier's runs stalled at relative gap 5e-6
// instead of below 1e-7, with OpenBLAS's SkylakeX and Prescott kernels).
func scaledGramUpper(g *scaledGramScratch, a []float64, n int, rows []int, w []float64, c []float64) {
	r := len(rows)
	if r <= 2*gramTile {
		g.pan[0] = Grow(g.pan[0], r*n)
		scaleRows(g.pan[0], a, n, rows, w, 0, r)
		gramUpper(r, n, g.pan[0], c, 0)
		return
	}
	half := (r + 1) / 2
	for t := range 2 {
		g.part[t] = Grow(g.part[t], n*n)
		g.pan[t] = Grow(g.pan[t], gramTile*n)
	}
	Parallel(2, func(t int) {
		part, pan := g.part[t], g.pan[t]
		lo, hi := t*half, min((t+1)*half, r)
		if lo >= hi {
			clearUpper(n, part)
			return
		}
		beta := 0.0
		for p0 := lo; p0 < hi; p0 += gramTile {
			p1 := min(p0+gramTile, hi)
			scaleRows(pan, a, n, rows, w, p0, p1)
			netlib.Implementation{}.Dsyrk(blas.Upper, blas.Trans, n, p1-p0, 1, pan, n, beta, part, n)
			beta = 1
		}
	})
	for i := 0; i < n; i++ {
		p0, p1 := g.part[0][i*n+i:i*n+n], g.part[1][i*n+i:i*n+n]
		out := c[i*n+i : i*n+n]
		for j := range out {
			out[j] = p0[j] + p1[j]
		}
	}
}

// gramTile and gramTiledMin: panels of 128 rows from 256 columns on.
const (
	gramTile     = 128
	gramTiledMin = 2 * gramTile
)

// hybrid is gonum's pure-Go BLAS except for large matrix-matrix products,
// which go to OpenBLAS. Each cgo call costs about 0.1–0.2 µs, so sending
// every call there (the level 1 and 2 routines that gonum's LAPACK calls in
// loops, small products) made the small problems of the tests several
// times slower.
type hybrid struct{ gonum.Implementation }

// cgoMinWork is the product size m·n·k from which a product goes to
// OpenBLAS: 32³ multiply-adds take gonum about 10 µs.
const cgoMinWork = 32 * 32 * 32

func (hybrid) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m*n*k < cgoMinWork {
		gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	netlib.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (hybrid) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	k := m
	if s == blas.Right {
		k = n
	}
	if m*n*k < cgoMinWork {
		gonum.Implementation{}.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	netlib.Implementation{}.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dsymv goes to OpenBLAS from n = 256 (a 512 KB matrix), where the call's
// cost is negligible against the product.
func (hybrid) Dsymv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if n < 256 {
		gonum.Implementation{}.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	netlib.Implementation{}.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
}

func (hybrid) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if n*n*k < 2*cgoMinWork {
		gonum.Implementation{}.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	netlib.Implementation{}.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
}
