//go:build !openblas

package linalg

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

const backend = "gonum"

func blasCore() string { return "" }

func blasConfig() string { return "" }

// symEigen is gonum's EigenSym (LAPACK dsyev translated to Go: tridiagonal
// QR iteration).
func symEigen(n int, a, vals []float64, vectors bool) bool {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, a[:n*n]), vectors) {
		return false
	}
	eig.Values(vals)
	if vectors {
		eig.VectorsTo(mat.NewDense(n, n, a[:n*n]))
	}
	return true
}

// cholesky is gonum's blocked dpotrf, or from tiledMinSize on
// choleskyTiled on gonum's kernels: 3.7–3.8 s against 5.8–6.1 s at
// n = 4400 on this machine's 2 cores (BenchmarkCholesky4400).
func cholesky(n int, a []float64) bool {
	if n >= tiledMinSize {
		return choleskyTiled(n, a, tiles64{})
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Data: a, Stride: n})
	return ok
}

// In this build the kernels of choleskyTiled are gonum's: dpotrf
// (potrfSingle in single precision), trsm, syrk and gemm.
var tileBLAS level3 = gonum.Implementation{}

func (tiles64) potrf(m int, a []float64, ld int) bool {
	return lapackgo.Implementation{}.Dpotrf(blas.Upper, m, a, ld)
}

// choleskySolve is gonum's dpotrs.
func choleskySolve(n int, a, b []float64) {
	lapack64.Potrs(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Data: a, Stride: n},
		blas64.General{Rows: n, Cols: 1, Data: b, Stride: 1})
}

// symEigenRange reduces a to tridiagonal form T = QᵀAQ (gonum's dsytrd
// and dorgtr), finds every eigenvalue of T (dsterf, values only) and the
// eigenvectors of those in (vl, vu] by inverse iteration on T, as LAPACK's
// dstein does, then maps them back with Q. gonum has no partial
// eigensolver: its dsyev (EigenSym) accumulates every rotation of the
// tridiagonal QR iteration into all n vectors, 56% of a pure-Go full-W fit
// (docs/solver.md, "Backends"). When the range holds more than a
// quarter of the spectrum, or an inverse iteration does not reach a small
// residual, it falls back to that QR iteration (dsteqr on the same T and Q).
func symEigenRange(n int, a []float64, vl, vu float64, vals, vecs []float64) (int, bool) {
	return symEigenSelect(n, a, func([]float64) (float64, float64) { return vl, vu }, vals, vecs)
}

// symEigenLeading is symEigenSelect keeping the largest keep(all)
// eigenvalues: the range from midway between all[n−k−1] and all[n−k] up,
// so a cut inside a tie keeps fewer.
func symEigenLeading(n int, a []float64, keep func(all []float64) int, vals, vecs []float64) (int, bool) {
	return symEigenSelect(n, a, func(all []float64) (float64, float64) {
		k := keep(all)
		switch {
		case k <= 0:
			return 0, 0
		case k >= n:
			return math.Inf(-1), math.Inf(1)
		}
		// Midway, so that the QR fallback's slightly different values
		// fall on the same sides.
		return all[n-k-1] + (all[n-k]-all[n-k-1])/2, math.Inf(1)
	}, vals, vecs)
}

// symEigenSelect is symEigenRange with the range chosen by choose from
// every eigenvalue (ascending) once they are known.
func symEigenSelect(n int, a []float64, choose func(all []float64) (vl, vu float64), vals, vecs []float64) (int, bool) {
	impl := lapackgo.Implementation{}
	d := make([]float64, n)
	e := make([]float64, max(n-1, 1))
	tau := make([]float64, max(n-1, 1))
	work := make([]float64, 1)
	impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, work, len(work))
	all := append([]float64(nil), d...)
	off := append([]float64(nil), e...)
	if !impl.Dsterf(n, all, off) {
		return 0, false
	}
	vl, vu := choose(all)
	if !(vl < vu) {
		return 0, true
	}
	var want []float64
	for _, v := range all {
		if v > vl && v <= vu {
			want = append(want, v)
		}
	}
	m := len(want)
	if m == 0 {
		return 0, true
	}
	// Q, needed only for vectors.
	impl.Dorgtr(blas.Upper, n, a, n, tau, work, -1)
	if need := int(work[0]); need > len(work) {
		work = make([]float64, need)
	}
	impl.Dorgtr(blas.Upper, n, a, n, tau, work, len(work))
	if 4*m > n {
		return symEigenRangeQR(n, a, d, e, vl, vu, vals, vecs)
	}
	z := make([]float64, m*n) // eigenvectors of T, one per row
	if !tridiagonalInverseIteration(d, e[:n-1], want, z) {
		return symEigenRangeQR(n, a, d, e, vl, vu, vals, vecs)
	}
	copy(vals, want)
	// vecs (m×n, one vector per row) = Z Qᵀ.
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: m, Cols: n, Stride: n, Data: z},
		blas64.General{Rows: n, Cols: n, Stride: n, Data: a},
		0, blas64.General{Rows: m, Cols: n, Stride: n, Data: vecs})
	return m, true
}

// symEigenRangeQR finishes symEigenRange with every eigenpair: dsteqr on
// T (diagonal d, off-diagonal e) accumulating into Q (held in a), filtered
// to (vl, vu].
func symEigenRangeQR(n int, a, d, e []float64, vl, vu float64, vals, vecs []float64) (int, bool) {
	work := make([]float64, max(2*n-2, 1))
	if !(lapackgo.Implementation{}).Dsteqr(lapack.EVOrig, n, d, e, a, n, work) {
		return 0, false
	}
	m := 0
	for k, v := range d {
		if v > vl && v <= vu {
			vals[m] = v
			for i := 0; i < n; i++ {
				vecs[m*n+i] = a[i*n+k]
			}
			m++
		}
	}
	return m, true
}

// tridiagonalInverseIteration writes into z (one row per eigenvalue) the
// unit eigenvectors of the symmetric tridiagonal T (diagonal d, off-diagonal
// e) for its eigenvalues lambda (ascending, accurate to about ε‖T‖, as from
// dsterf): three steps of inverse iteration with T − λI factored by
// Gaussian elimination with partial pivoting, each from a fixed
// pseudo-random start, re-orthogonalised against the vectors of eigenvalues
// within 1e-3‖T‖ (a cluster, as in LAPACK's dstein). It reports false if a
// vector's residual ‖Tz − λz‖ exceeds 1e3·n·ε‖T‖.
func tridiagonalInverseIteration(d, e, lambda, z []float64) bool {
	n := len(d)
	norm := 0.0 // ‖T‖₁
	for i := range n {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < n-1 {
			s += math.Abs(e[i])
		}
		norm = math.Max(norm, s)
	}
	if norm == 0 {
		norm = 1
	}
	eps := 0x1p-52
	tiny := eps * norm
	cluster := 1e-3 * norm
	var f tridiagonalLU
	f.init(n)
	y := make([]float64, n)
	rng := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	first := 0 // first vector of the current cluster
	for j, lam := range lambda {
		if j > 0 && lam-lambda[j-1] > cluster {
			first = j
		}
		f.factor(d, e, lam, tiny)
		zj := z[j*n : (j+1)*n]
		for i := range zj {
			zj[i] = rng.Float64() - 0.5
		}
		for range 3 {
			copy(y, zj)
			f.solve(y)
			for k := first; k < j; k++ {
				zk := z[k*n : (k+1)*n]
				floats.AddScaled(y, -floats.Dot(y, zk), zk)
			}
			s := floats.Norm(y, 2)
			if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
				return false
			}
			floats.ScaleTo(zj, 1/s, y)
		}
		res := 0.0
		for i := range n {
			r := (d[i] - lam) * zj[i]
			if i > 0 {
				r += e[i-1] * zj[i-1]
			}
			if i < n-1 {
				r += e[i] * zj[i+1]
			}
			res += r * r
		}
		if math.Sqrt(res) > 1e3*float64(n)*eps*norm {
			return false
		}
	}
	return true
}

// tridiagonalLU is T − σI = PLU for a symmetric tridiagonal T, by Gaussian
// elimination with partial pivoting (LAPACK's dlagtf): U has the diagonal
// u0 and two superdiagonals u1, u2; step i's multiplier is l[i] and swap[i]
// records whether rows i and i+1 were exchanged.
type tridiagonalLU struct {
	u0, u1, u2, l []float64
	swap          []bool
}

func (f *tridiagonalLU) init(n int) {
	f.u0, f.u1, f.u2, f.l = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	f.swap = make([]bool, n)
}

// factor factors T − σI; a pivot of magnitude below tiny is replaced by
// tiny, which perturbs T by at most about ε‖T‖ (inverse iteration needs
// only a nearby singular matrix).
func (f *tridiagonalLU) factor(d, e []float64, sigma, tiny float64) {
	n := len(d)
	for i := range n {
		f.u0[i] = d[i] - sigma
		f.u1[i], f.u2[i] = 0, 0
		if i < n-1 {
			f.u1[i] = e[i]
		}
	}
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return math.Copysign(tiny, v)
		}
		return v
	}
	for i := 0; i < n-1; i++ {
		sub := e[i] // row i+1, column i
		next := 0.0 // row i+1, column i+2
		if i+1 < n-1 {
			next = f.u1[i+1]
		}
		if math.Abs(f.u0[i]) >= math.Abs(sub) {
			f.u0[i] = guard(f.u0[i])
			mult := sub / f.u0[i]
			f.l[i], f.swap[i] = mult, false
			f.u0[i+1] -= mult * f.u1[i]
			continue
		}
		// Exchange rows i and i+1, then eliminate.
		mult := f.u0[i] / sub
		f.l[i], f.swap[i] = mult, true
		oldUp, oldDiag := f.u1[i], f.u0[i+1]
		f.u0[i], f.u1[i], f.u2[i] = sub, oldDiag, next
		f.u0[i+1] = oldUp - mult*oldDiag
		if i+1 < n-1 {
			f.u1[i+1] = -mult * next
		}
	}
	f.u0[n-1] = guard(f.u0[n-1])
}

// solve overwrites b with (T − σI)⁻¹ b.
func (f *tridiagonalLU) solve(b []float64) {
	n := len(b)
	for i := 0; i < n-1; i++ {
		if f.swap[i] {
			b[i], b[i+1] = b[i+1], b[i]
		}
		b[i+1] -= f.l[i] * b[i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		if i+1 < n {
			s -= f.u1[i] * b[i+1]
		}
		if i+2 < n {
			s -= f.u2[i] * b[i+2]
		}
		b[i] = s / f.u0[i]
	}
}

// gramPanel is the panel width of the pure-Go GramUpper: 64 ran faster
// than 128 (0.28 s against 0.34 s at r = 3902, n = 553).
const gramPanel = 64

// gramUpper computes the upper triangle of aᵀa panel by panel: the rows
// i0…i1−1 of the result, from its diagonal on, are one matrix product.
func gramUpper(r, n int, a, c []float64, beta float64) {
	for i0 := 0; i0 < n; i0 += gramPanel {
		i1 := min(i0+gramPanel, n)
		left := blas64.General{Rows: r, Cols: i1 - i0, Stride: n, Data: a[i0:]}
		right := blas64.General{Rows: r, Cols: n - i0, Stride: n, Data: a[i0:]}
		out := blas64.General{Rows: i1 - i0, Cols: n - i0, Stride: n, Data: c[i0*n+i0:]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, left, right, beta, out)
	}
}

// scaledGramScratch is ScaledGram's buffer: the scaled rows.
type scaledGramScratch struct{ rows []float64 }

// scaledGramUpper scales the rows into one buffer (as tasks of
// ParallelRows) and calls GramUpper on it.
func scaledGramUpper(g *scaledGramScratch, a []float64, n int, rows []int, w []float64, c []float64) {
	r := len(rows)
	g.rows = Grow(g.rows, r*n)
	ParallelRows(r, scaleRowsTask, func(_, lo, hi int) {
		scaleRows(g.rows[lo*n:hi*n], a, n, rows, w, lo, hi)
	})
	GramUpper(r, n, g.rows, c)
}

// scaleRowsTask is the rows scaledGramUpper scales per task.
const scaleRowsTask = 256

const fastSingle = false

const fastProducts = false

// choleskySingle is a right-looking float32 Cholesky factorisation, row by
// row of U (the layout of cholesky), tiled from tiledMinSize on: a
// reference for tests, not tuned.
func choleskySingle(n int, a []float32) bool {
	if n >= tiledMinSize {
		return choleskyTiled(n, a, tiles32{})
	}
	return potrfSingle(n, a, n)
}

// potrfSingle factors the m×m float32 matrix a (leading dimension ld) in
// place, row by row of U.
func potrfSingle(m int, a []float32, ld int) bool {
	for k := 0; k < m; k++ {
		d := a[k*ld+k]
		if !(d > 0) || math.IsInf(float64(d), 0) {
			return false
		}
		u := float32(math.Sqrt(float64(d)))
		row := a[k*ld : k*ld+m]
		row[k] = u
		for j := k + 1; j < m; j++ {
			row[j] /= u
		}
		for i := k + 1; i < m; i++ {
			f := row[i]
			ri := a[i*ld : i*ld+m]
			for j := i; j < m; j++ {
				ri[j] -= f * row[j]
			}
		}
	}
	return true
}

func (tiles32) potrf(m int, a []float32, ld int) bool { return potrfSingle(m, a, ld) }

// choleskySolveSingle solves UᵀU x = b by the two triangular solves.
func choleskySolveSingle(n int, a, b []float32) {
	for k := 0; k < n; k++ { // Uᵀ y = b
		b[k] /= a[k*n+k]
		row := a[k*n : k*n+n]
		for j := k + 1; j < n; j++ {
			b[j] -= row[j] * b[k]
		}
	}
	for i := n - 1; i >= 0; i-- { // U x = y
		row := a[i*n : i*n+n]
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= row[j] * b[j]
		}
		b[i] = s / row[i]
	}
}
