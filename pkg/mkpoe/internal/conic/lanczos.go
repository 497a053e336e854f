package conic

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Ritz is what [Lanczos] found: the smallest Ritz values of a symmetric
// operator, ascending, the Ritz vectors of the first Want of them, and a
// lower estimate of its smallest eigenvalue.
type Ritz struct {
	Vals []float64   // every Ritz value of the last tridiagonal, ascending
	Vecs [][]float64 // Vecs[i] is the unit Ritz vector of Vals[i], i < Want
	// Lower is Vals[0] minus its residual norm ‖Av − θv‖: an eigenvalue of
	// A lies within the residual of θ (Parlett, The Symmetric Eigenvalue
	// Problem, Thm. 4.5.1), and Lanczos approaches the extreme eigenvalue
	// from above, so Lower ≤ λ_min unless the start vector missed λ_min's
	// eigenspace entirely. Vals[0] itself when the Krylov space is
	// invariant.
	Lower float64
	Steps int // operator applications
}

// LanczosOptions are the settings of [Lanczos].
type LanczosOptions struct {
	Start    []float64 // the start vector (normalised here; not changed)
	MaxSteps int       // at most this many steps (and at most the order k)
	// Tol: stop once the smallest Ritz pair's residual is at most
	// Tol·max|θ| (or the Krylov space is invariant).
	Tol float64
	// Enough, if not nil, is asked at every check with the smallest Ritz
	// value and its residual; true stops as if converged (a caller that
	// needs the Ritz pairs only to a precision it can judge).
	Enough func(theta, resid float64) bool
	// Check reports whether to solve the tridiagonal problem (and test
	// convergence) after step n; the last step is always checked.
	Check func(n int) bool
	Want  int // Ritz vectors to return
	// Stop, if not nil, is asked before every step; true abandons the run
	// (ok = false): a cancelled fit's way out of a long Lanczos run.
	Stop func() bool
}

// Lanczos runs the Lanczos method with full re-orthogonalisation (Golub &
// Van Loan, Matrix Computations, Sec. 10.3; each step orthogonalised twice,
// Parlett's "twice is enough") on the symmetric k×k operator apply (out =
// A·v). ok is false if the tridiagonal eigenvalue problem fails. The
// interior point's step lengths (lanczosMin) and the low-rank method's
// certificate (pkg/mkpoe, smallestEigen) use it.
func Lanczos(k int, apply func(v, out []float64), opt LanczosOptions) (Ritz, bool) {
	m := min(opt.MaxSteps, k)
	if m <= 0 {
		return Ritz{}, false
	}
	// The Lanczos vectors, one per step, and T's eigenvectors grow with
	// the steps taken, not the bound m: at n = 10⁴ items m = n would be
	// 1.6 GB where a few hundred steps are taken.
	q := make([]float64, k, min(m+1, 64)*k)
	v := q[:k]
	copy(v, opt.Start)
	floats.Scale(1/floats.Norm(v, 2), v)
	alpha := make([]float64, m)
	beta := make([]float64, m)
	w := make([]float64, k)
	d := make([]float64, m)
	e := make([]float64, m)
	var z []float64
	work := make([]float64, max(2*m-2, 1))
	var impl gonum.Implementation
	for j := 0; j < m; j++ {
		if opt.Stop != nil && opt.Stop() {
			return Ritz{}, false
		}
		qj := q[j*k : (j+1)*k]
		apply(qj, w)
		alpha[j] = floats.Dot(qj, w)
		// Full re-orthogonalisation, twice, which also removes α_j q_j
		// and β_{j−1} q_{j−1}.
		for pass := 0; pass < 2; pass++ {
			for i := 0; i <= j; i++ {
				qi := q[i*k : (i+1)*k]
				floats.AddScaled(w, -floats.Dot(qi, w), qi)
			}
		}
		b := floats.Norm(w, 2)
		beta[j] = b
		n := j + 1
		scale := math.Abs(alpha[j])
		invariant := b <= 1e-14*math.Max(scale, floats.Norm(alpha[:n], math.Inf(1)))
		if opt.Check(n) || n == m || invariant {
			copy(d, alpha[:n])
			copy(e, beta[:n-1])
			if cap(z) < n*n {
				z = make([]float64, 0, 2*n*n)
			}
			z = z[:n*n] // Dsteqr (EVTridiag) sets it to the identity first
			if !impl.Dsteqr(lapack.EVTridiag, n, d[:n], e[:n], z[:n*n], n, work) {
				return Ritz{}, false
			}
			// Ascending eigenvalues; z is row-major n×n with the
			// eigenvectors of T as columns: the residual of Ritz pair c is
			// b·|z[n−1][c]|.
			scale = math.Max(math.Abs(d[0]), math.Abs(d[n-1]))
			resid := b * math.Abs(z[(n-1)*n])
			if invariant || n == m || resid <= opt.Tol*scale || (opt.Enough != nil && opt.Enough(d[0], resid)) {
				out := Ritz{Vals: append([]float64(nil), d[:n]...), Lower: d[0] - resid, Steps: n}
				if invariant {
					out.Lower = d[0]
				}
				for c := 0; c < min(opt.Want, n); c++ {
					vec := make([]float64, k)
					for i := 0; i < n; i++ {
						floats.AddScaled(vec, z[i*n+c], q[i*k:(i+1)*k])
					}
					out.Vecs = append(out.Vecs, vec)
				}
				return out, true
			}
		}
		q = append(q, w...)
		floats.ScaleTo(q[(j+1)*k:(j+2)*k], 1/b, w)
	}
	return Ritz{}, false // not reached: n == m returns
}
