// Package linalg holds the few dense linear-algebra calls whose speed
// decides the cost of a full-W MKPOE fit (McFee & Lanckriet 2011, Alg. 4:
// every iteration projects each W⁽ᵖ⁾ onto the PSD cone by an
// eigendecomposition), behind one function per call so that a build tag can
// swap the implementation.
//
// The default build is pure Go (gonum). Built with -tags openblas (cgo, with
// Debian's libopenblas-dev and liblapacke-dev), the eigendecompositions call
// LAPACK's divide-and-conquer dsyevd and gonum's large matrix products
// (at least 32³ multiply-adds) run on OpenBLAS. dsyevd is about 8× faster
// than gonum's QR-based EigenSym at n = 330 (docs/solver.md, "Backends";
// the measurements and the benchmark of a whole fit are in
// docs/notes/solver-log.md). Results agree with the pure-Go build to rounding
// (about 1e-13 relative), not bit for bit.
package linalg

import (
	"golang.org/x/sys/cpu"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Backend names the implementation compiled in: "gonum" (pure Go) or
// "openblas". Experiments record it in env.json.
func Backend() string { return backend }

// Describe names the backend and, for OpenBLAS, the kernels it chose, as
// the commands print it: "gonum" or "openblas (Haswell)".
func Describe() string {
	if core := BLASCore(); core != "" {
		return Backend() + " (" + core + ")"
	}
	return Backend()
}

// BLASCore names the CPU kernels OpenBLAS chose when it started ("Haswell",
// "SkylakeX", …, or OPENBLAS_CORETYPE's choice), and is "" in the pure-Go
// build. "Prescott" on an x86-64 machine with AVX2 is OpenBLAS's generic
// fallback for a CPU its version does not recognise (0.3.21, Debian 12's, on a
// Sapphire Rapids Xeon): its kernels are slower, and setting
// OPENBLAS_CORETYPE is the cure (BLASAdvice). Experiments record it in
// env.json.
func BLASCore() string { return blasCore() }

// BLASConfig is the OpenBLAS library's description of its build (version,
// options, the kernel it chose) in the openblas build, "" in the pure-Go
// build.
func BLASConfig() string { return blasConfig() }

// BLASAdvice is a warning for the user when OpenBLAS runs its generic
// Prescott kernels on a CPU with AVX2, which it does when its version does
// not recognise the CPU, and "" otherwise (always in the pure-Go build). It
// names the kernels to choose instead: SkylakeX where the CPU has the
// AVX-512 of a Skylake-SP Xeon (F, CD, BW, DQ and VL), else Haswell.
func BLASAdvice() string {
	return blasAdvice(BLASCore(), cpu.X86.HasAVX2, hasAVX512())
}

// hasAVX512 reports whether the CPU has the AVX-512 subsets of a Skylake-SP
// Xeon, for which OpenBLAS's SkylakeX kernels are written.
func hasAVX512() bool {
	x := cpu.X86
	return x.HasAVX512F && x.HasAVX512DQ && x.HasAVX512CD && x.HasAVX512BW && x.HasAVX512VL
}

// blasAdvice is BLASAdvice for a given core name and CPU. The figures are
// BenchmarkFitBeta's full fits at β = 100 and 1e4 on a 5th-generation Xeon
// (Sapphire/Emerald Rapids), which OpenBLAS 0.3.21 does not recognise:
// 1.2–1.9× faster with OPENBLAS_CORETYPE=Haswell than with the Prescott
// fallback (2026-11-26), and 1.5–2.4× with SkylakeX (2026-11-27, alternated
// with both; docs/solver.md, "Which kernels OpenBLAS runs").
func blasAdvice(core string, avx2, avx512 bool) string {
	if core != "Prescott" || !avx2 {
		return ""
	}
	want, speedup := "Haswell", "1.2–1.9×"
	if avx512 {
		want, speedup = "SkylakeX", "1.5–2.4×"
	}
	return "OpenBLAS does not recognise this CPU and runs its generic Prescott kernels; " +
		"full-W fits ran " + speedup + " faster with OPENBLAS_CORETYPE=" + want +
		" in the environment (README, \"Optional OpenBLAS build\")"
}

// SymEigen computes the eigenvalues of the symmetric n×n matrix a (row-major,
// full storage; only the upper triangle is read) in ascending order into
// vals, which must have length n. If vectors is true, a is overwritten with
// the orthonormal eigenvectors, column k (a[i*n+k], i = 0…n−1) belonging to
// vals[k]; otherwise the content of a is destroyed. It reports false if the
// algorithm did not converge.
func SymEigen(n int, a, vals []float64, vectors bool) bool {
	if len(a) < n*n || len(vals) != n {
		panic("linalg: SymEigen: a needs n×n entries and vals n")
	}
	if n == 0 {
		return true
	}
	return symEigen(n, a, vals, vectors)
}

// Cholesky factors the symmetric positive definite n×n matrix a (row-major,
// full storage; only the upper triangle is read) in place as a = UᵀU, U
// upper triangular in the upper triangle of a. It reports false if a is not
// numerically positive definite. The interior-point stage of a full-W fit
// factors one |T|×|T| Newton matrix per iteration (docs/solver.md,
// "Interior point in comparison space").
func Cholesky(n int, a []float64) bool {
	if len(a) < n*n {
		panic("linalg: Cholesky: a needs n×n entries")
	}
	if n == 0 {
		return true
	}
	return cholesky(n, a)
}

// CholeskySolve overwrites b (length n) with A⁻¹b, for the factor a
// computed by Cholesky.
func CholeskySolve(n int, a, b []float64) {
	if len(a) < n*n || len(b) != n {
		panic("linalg: CholeskySolve: a needs n×n entries and b n")
	}
	if n == 0 {
		return
	}
	choleskySolve(n, a, b)
}

// GramUpper sets the upper triangle (diagonal included) of the n×n
// row-major c to aᵀa, for the r×n row-major a; what it leaves in the
// strict lower triangle of c is unspecified. This is the K-space Newton
// matrix Bᵀ diag(1/Δ) B of the interior-point stage of a diagonal fit
// (docs/solver.md, "Where the time goes"), the product that dominates it. With -tags openblas it
// is OpenBLAS's dsyrk; the pure-Go build computes one matrix product per
// panel of gramPanel rows of the triangle, about half the work of the full
// product at the speed of gonum's blocked Dgemm (gonum's own Dsyrk is not
// blocked: 0.34 s against 0.28 s for the panels and 0.45 s for the full
// product at r = 3902, n = 553).
func GramUpper(r, n int, a, c []float64) {
	if len(a) < r*n || len(c) < n*n {
		panic("linalg: GramUpper: a needs r×n entries and c n×n")
	}
	if n == 0 {
		return
	}
	if r == 0 {
		clearUpper(n, c)
		return
	}
	gramUpper(r, n, a, c, 0)
}

// clearUpper zeroes the upper triangle (diagonal included) of the n×n
// row-major c.
func clearUpper(n int, c []float64) {
	for i := 0; i < n; i++ {
		clear(c[i*n+i : i*n+n])
	}
}

// ScaledGram forms weighted Gram matrices (ScaledGram.Upper) and keeps
// their scratch buffers between calls.
type ScaledGram struct{ scratch scaledGramScratch }

// Upper sets the upper triangle (diagonal included) of the n×n row-major c
// to Σ_k w_k² a_{rows[k]} a_{rows[k]}ᵀ, for the rows a_i of the row-major
// a (n columns) listed in rows and their weights w; what it leaves in the
// strict lower triangle of c is unspecified. This is the K-space Newton
// matrix Bᵀ diag(1/Δ) B of a diagonal fit's interior-point rounds
// (w_k = Δ^{-1/2}; docs/solver.md, "Diagonal W").
//
// The pure-Go build scales the rows into one buffer and calls GramUpper.
// The OpenBLAS build never writes the scaled matrix out: each half of the
// rows is scaled a panel of gramTile rows at a time into a buffer that
// stays in cache and added to that half's Gram matrix by dsyrk, and the
// two halves are summed. The halves are fixed and summed in a fixed order,
// so the result does not depend on the number of workers. (At 3902 rows of
// 454 columns, 12.6 ms against 14.3 ms for scaling into one buffer and
// GramUpper: the 14 MB scaled copy was written and read again.)
func (g *ScaledGram) Upper(a []float64, n int, rows []int, w []float64, c []float64) {
	if len(w) != len(rows) || len(c) < n*n {
		panic("linalg: ScaledGram.Upper: w needs one weight per row and c n×n entries")
	}
	for _, i := range rows {
		if i < 0 || (i+1)*n > len(a) {
			panic("linalg: ScaledGram.Upper: row out of range")
		}
	}
	if n == 0 {
		return
	}
	scaledGramUpper(&g.scratch, a, n, rows, w, c)
}

// scaleRows writes w_k·a_{rows[k]} for k = lo … hi−1 into dst, row by row.
func scaleRows(dst, a []float64, n int, rows []int, w []float64, lo, hi int) {
	for k := lo; k < hi; k++ {
		src := a[rows[k]*n : rows[k]*n+n]
		out := dst[(k-lo)*n : (k-lo)*n+n]
		for j, v := range src {
			out[j] = w[k] * v
		}
	}
}

// Grow returns s resized to n, reallocating only when it is too short
// (callers overwrite what they use: the contents are not cleared), for
// scratch buffers kept between calls.
func Grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// FastProducts reports whether GramUpper and GramUpperAdd run on an
// optimised BLAS (OpenBLAS's dsyrk and dgemm under -tags openblas). At the
// aset400-scale fixture's 4400 columns, 36 rows of a took 13 ms with
// OpenBLAS and 137 ms in the pure-Go build (BenchmarkLowOrderTerms in
// pkg/mkpoe), where gonum's Dgemm does the work in Go.
const FastProducts = fastProducts

// GramUpperAdd adds aᵀa to the upper triangle (diagonal included) of the
// n×n row-major c, for the r×n row-major a, by the same kernels as
// GramUpper; what it does to the strict lower triangle of c is
// unspecified. The comparison-space Newton matrix of a full fit takes the
// terms of its low-order blocks this way (pkg/mkpoe/internal/conic, pairs.go).
func GramUpperAdd(r, n int, a, c []float64) {
	if len(a) < r*n || len(c) < n*n {
		panic("linalg: GramUpperAdd: a needs r×n entries and c n×n")
	}
	if n == 0 || r == 0 {
		return
	}
	gramUpper(r, n, a, c, 1)
}

// SymEigenRange computes the eigenpairs of the symmetric n×n matrix a
// (row-major; only the upper triangle is read; a is destroyed) whose
// eigenvalues lie in the half-open interval (vl, vu], in ascending order:
// it returns their number m, the values in vals[:m] and the vectors in
// vecs, vector k at vecs[k*n : k*n+n] (one per row). vals and vecs need
// room for n values and n vectors. It reports false if the algorithm did
// not converge. With -tags openblas this is LAPACK's dsyevr (relatively
// robust representations), which computes only the eigenvectors asked
// for: a projection onto the PSD cone needs just the positive (or just the
// negative) part (McFee & Lanckriet 2011, Alg. 4, step 6). The pure-Go
// build reduces a to tridiagonal form with gonum's dsytrd and finds the
// vectors asked for by inverse iteration (as LAPACK's dstein), up to a
// quarter of the spectrum, and falls back to the whole QR iteration
// beyond that: 35–41 ms against 108–120 ms for the whole decomposition at
// n = 330 (BenchmarkProjection330).
func SymEigenRange(n int, a []float64, vl, vu float64, vals, vecs []float64) (m int, ok bool) {
	if len(a) < n*n || len(vals) < n || len(vecs) < n*n {
		panic("linalg: SymEigenRange: a and vecs need n×n entries and vals n")
	}
	if n == 0 || !(vl < vu) {
		return 0, true
	}
	return symEigenRange(n, a, vl, vu, vals, vecs)
}

// SymEigenLeading computes the k largest eigenpairs of the symmetric n×n
// matrix a (row-major; only the upper triangle is read; a is destroyed),
// k = keep(all) chosen from every eigenvalue (ascending) once they are
// known: it returns the number m of pairs found, the values in vals[:m]
// ascending and the vectors as in SymEigenRange (vector q at
// vecs[q*n:q*n+n]). The pure-Go build keeps the eigenvalues above
// all[n−k−1] (a cut inside a tie keeps fewer than k); OpenBLAS's dsyevr
// selects by index. It costs one reduction to tridiagonal form plus k
// vectors instead of the whole decomposition (the truncated eigenbasis of
// a large kernel, docs/solver.md "Kernel truncation"). vals and vecs need
// room for n values and n vectors. It reports false if the algorithm did
// not converge.
func SymEigenLeading(n int, a []float64, keep func(all []float64) int, vals, vecs []float64) (m int, ok bool) {
	if len(a) < n*n || len(vals) < n || len(vecs) < n*n {
		panic("linalg: SymEigenLeading: a and vecs need n×n entries and vals n")
	}
	if n == 0 {
		return 0, true
	}
	return symEigenLeading(n, a, keep, vals, vecs)
}

// FastSingle reports whether CholeskySingle is an optimised LAPACK
// routine: OpenBLAS's spotrf under -tags openblas, 0.36 s against dpotrf's
// 0.84 s at n = 4400 on one core here (docs/solver.md, "Mixed precision").
// The pure-Go build's CholeskySingle (a plain loop below tiledMinSize,
// choleskyTiled on gonum's float32 kernels from there) is no faster than
// its float64 factorisation: 2.4–2.5 s against 2.6–2.9 s at n = 4400 on
// two cores (2026-11-26), so mixed precision is off there; it is kept so
// that the mixed-precision solver can be tested in both builds.
const FastSingle = fastSingle

// CholeskySingle factors the symmetric positive definite n×n float32
// matrix a in place, with the layout of Cholesky (row-major, only the
// upper triangle read, a = UᵀU with U in the upper triangle). It reports
// false if a is not numerically positive definite in single precision.
func CholeskySingle(n int, a []float32) bool {
	if len(a) < n*n {
		panic("linalg: CholeskySingle: a needs n×n entries")
	}
	if n == 0 {
		return true
	}
	return choleskySingle(n, a)
}

// CholeskySolveSingle overwrites b (length n) with A⁻¹b in single
// precision, for the factor a computed by CholeskySingle.
func CholeskySolveSingle(n int, a, b []float32) {
	if len(a) < n*n || len(b) != n {
		panic("linalg: CholeskySolveSingle: a needs n×n entries and b n")
	}
	if n == 0 {
		return
	}
	choleskySolveSingle(n, a, b)
}

// SymMulVec sets y = A x for the symmetric n×n matrix a (row-major; only
// the upper triangle is read): the residual of iterative refinement. With
// -tags openblas it is OpenBLAS's dsymv.
func SymMulVec(n int, a, x, y []float64) {
	if len(a) < n*n || len(x) != n || len(y) != n {
		panic("linalg: SymMulVec: a needs n×n entries, x and y n")
	}
	if n == 0 {
		return
	}
	blas64.Symv(1, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: a},
		blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: n, Inc: 1, Data: y})
}
