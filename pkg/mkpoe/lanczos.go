package mkpoe

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// ritz is the result of smallestEigen: the smallest Ritz values of a
// symmetric operator in ascending order, their Ritz vectors, and a lower
// estimate of its smallest eigenvalue.
type ritz struct {
	vals []float64   // ascending
	vecs [][]float64 // vecs[i] is the unit Ritz vector of vals[i]
	// lower is vals[0] minus its residual norm ‖Av − θv‖: an eigenvalue of
	// A lies within the residual of θ (Parlett, The Symmetric Eigenvalue
	// Problem, Thm. 4.5.1), and Lanczos approaches the extreme eigenvalue
	// from above, so lower ≤ λ_min unless the start vector missed λ_min's
	// eigenspace entirely.
	lower float64
	steps int // Lanczos steps taken (operator applications)
}

// smallestEigen runs the Lanczos method with full re-orthogonalisation
// (Golub & Van Loan, Matrix Computations, Sec. 10.3; each step
// orthogonalised twice) on the symmetric k×k operator apply (out = A·v),
// from a deterministic start vector, for at most maxSteps steps. It stops
// once the smallest Ritz pair's residual is at most tol·max|θ| (or the
// Krylov space is invariant) and returns up to want of the smallest Ritz
// pairs. It is how the low-rank method finds λ_min of the dual slack
// without forming it (docs/solver.md, "Low-rank method"). It returns ok =
// false if the tridiagonal eigenproblem fails.
func smallestEigen(k int, apply func(v, out []float64), want, maxSteps int, tol float64) (ritz, bool) {
	m := min(maxSteps, k)
	if m <= 0 {
		return ritz{}, false
	}
	q := make([]float64, (m+1)*k)
	v := q[:k]
	for i := range v {
		// A fixed vector with no structure shared with item order.
		v[i] = 1 + 0.5*math.Sin(1.7*float64(i)+1) + 0.25*math.Cos(0.37*float64(i*i%9973))
	}
	floats.Scale(1/floats.Norm(v, 2), v)
	alpha := make([]float64, m)
	beta := make([]float64, m)
	w := make([]float64, k)
	d := make([]float64, m)
	e := make([]float64, m)
	z := make([]float64, m*m)
	work := make([]float64, max(2*m-2, 1))
	var impl gonum.Implementation
	next := 8
	for j := 0; j < m; j++ {
		qj := q[j*k : (j+1)*k]
		apply(qj, w)
		alpha[j] = floats.Dot(qj, w)
		for pass := 0; pass < 2; pass++ {
			for i := 0; i <= j; i++ {
				qi := q[i*k : (i+1)*k]
				floats.AddScaled(w, -floats.Dot(qi, w), qi)
			}
		}
		b := floats.Norm(w, 2)
		beta[j] = b
		n := j + 1
		invariant := b <= 1e-14*math.Max(1, floats.Norm(alpha[:n], math.Inf(1)))
		// Check every 8 steps at first, then every n/4: the tridiagonal
		// eigenproblem costs O(n³) with vectors, so checks at a fixed
		// stride would cost O(m⁴) in all.
		if n == next || n == m || invariant {
			next = n + max(8, n/4)
			copy(d, alpha[:n])
			copy(e, beta[:n-1])
			if !impl.Dsteqr(lapack.EVTridiag, n, d[:n], e[:n], z[:n*n], n, work) {
				return ritz{}, false
			}
			// z is row-major n×n with the eigenvectors of T as columns:
			// the residual of Ritz pair c is b·|z[n−1][c]|.
			scale := math.Max(math.Abs(d[0]), math.Abs(d[n-1]))
			resid := b * math.Abs(z[(n-1)*n])
			if invariant || n == m || resid <= tol*scale {
				out := ritz{lower: d[0] - resid, steps: n}
				if invariant {
					out.lower = d[0]
				}
				for c := 0; c < min(want, n); c++ {
					vec := make([]float64, k)
					for i := 0; i < n; i++ {
						floats.AddScaled(vec, z[i*n+c], q[i*k:(i+1)*k])
					}
					out.vals = append(out.vals, d[c])
					out.vecs = append(out.vecs, vec)
				}
				return out, true
			}
		}
		floats.ScaleTo(q[(j+1)*k:(j+2)*k], 1/b, w)
	}
	return ritz{}, false // not reached: n == m returns
}
