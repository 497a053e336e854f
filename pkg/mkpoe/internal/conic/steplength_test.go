package conic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// symWithSpectrum returns Q diag(vals) Qᵀ (k×k, row-major) for a random
// orthogonal Q.
func symWithSpectrum(rng *rand.Rand, vals []float64) []float64 {
	k := len(vals)
	g := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	a := make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			s := 0.0
			for t, v := range vals {
				s += q.At(i, t) * v * q.At(j, t)
			}
			a[i*k+j] = s
		}
	}
	return a
}

// matrixOperator is v ↦ A v for a full row-major k×k matrix.
func matrixOperator(k int, a []float64) func(v, out []float64) {
	m := mat.NewDense(k, k, a)
	return func(v, out []float64) { mat.NewVecDense(k, out).MulVec(m, mat.NewVecDense(k, v)) }
}

// TestLanczosMin checks the smallest Ritz value against the exact smallest
// eigenvalue: never below it, and within the stated accuracy when the
// Krylov space is the whole space or the smallest eigenvalue is separated;
// at the dense edge of a semicircle spectrum (gaps of order k^{-2/3}), 64
// steps give it to about a percent, which is why psdStep checks its step.
func TestLanczosMin(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 3))
	uniform := func(k int, lo, hi float64) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = lo + (hi-lo)*rng.Float64()
		}
		return v
	}
	semicircle := func(k int) []float64 {
		g := mat.NewSymDense(k, nil)
		for i := 0; i < k; i++ {
			for j := i; j < k; j++ {
				g.SetSym(i, j, rng.NormFloat64()/math.Sqrt(float64(k)))
			}
		}
		var es mat.EigenSym
		es.Factorize(g, false)
		return es.Values(nil)
	}
	for _, tc := range []struct {
		name string
		vals []float64
		tol  float64 // on θ − λ_min, relative to max|λ|
	}{
		{"order 1", []float64{-2.5}, 1e-15},
		{"order 2", []float64{3, -1}, 1e-14},
		{"zero matrix", make([]float64, 7), 0},
		{"order 40, whole Krylov space", uniform(40, -1, 1), 1e-10},
		{"repeated smallest", append([]float64{-4, -4, -4}, uniform(100, -1, 2)...), 1e-10},
		// Within the cluster's width (2.5e-10 of the scale).
		{"cluster 1e-9 apart", append([]float64{-4, -4 + 1e-9}, uniform(100, -1, 2)...), 3e-10},
		{"outlier, order 330", append([]float64{-6}, uniform(329, -1, 1)...), 1e-10},
		{"two outliers, order 330", append([]float64{-6, -5.5}, uniform(328, -1, 1)...), 1e-10},
		// Dense at its lower end (gaps of about 1e-2): the residual test
		// stops at a Ritz value a few 1e-9 above.
		{"no negative eigenvalue, dense", uniform(200, 0.5, 3), 1e-7},
		{"semicircle edge, order 330", semicircle(330), 1e-2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := len(tc.vals)
			a := symWithSpectrum(rng, tc.vals)
			exact := math.Inf(1)
			scale := 0.0
			for _, v := range tc.vals {
				exact = math.Min(exact, v)
				scale = math.Max(scale, math.Abs(v))
			}
			theta := lanczosMin(k, matrixOperator(k, a), 64, DefaultSettings().LanczosTol)
			if theta < exact-1e-12*math.Max(scale, 1) {
				t.Errorf("Ritz value %.15g below λ_min %.15g", theta, exact)
			}
			if theta-exact > tc.tol*math.Max(scale, 1) {
				t.Errorf("Ritz value %.15g, λ_min %.15g: off by %.3g of the spectrum's scale, want ≤ %.1g", theta, exact, (theta-exact)/math.Max(scale, 1), tc.tol)
			}
		})
	}
}

// randomSPDSvec returns svec and the full form of a random k×k positive
// definite matrix whose eigenvalues span [lo, hi] log-uniformly.
func randomSPDSvec(rng *rand.Rand, k int, lo, hi float64) (v, full []float64) {
	vals := make([]float64, k)
	for i := range vals {
		vals[i] = lo * math.Pow(hi/lo, rng.Float64())
	}
	full = symWithSpectrum(rng, vals)
	v = make([]float64, SvecLen(k))
	SvecOf(k, full, v)
	return v, full
}

// randomScaledPoint returns a random primal point X (svec, eigenvalues in
// [1/cond, 1]), a dual point S (eigenvalues in [1, cond]) and their NT
// scaling.
func randomScaledPoint(tb testing.TB, rng *rand.Rand, k int, cond float64) (xv, sv []float64, nt ntBlock) {
	tb.Helper()
	xv, xm := randomSPDSvec(rng, k, 1/cond, 1)
	sv, sm := randomSPDSvec(rng, k, 1, cond)
	nt, ok := ntScaling(k, xm, sm)
	if !ok {
		tb.Fatal("ntScaling failed")
	}
	return xv, sv, nt
}

// randomDirection returns a direction (svec of length n) of independent
// normal entries times scale.
func randomDirection(rng *rand.Rand, n int, scale float64) []float64 {
	dir := make([]float64, n)
	for i := range dir {
		dir[i] = scale * rng.NormFloat64()
	}
	return dir
}

// TestPSDStepMatchesExact compares psdStep with the step from the formed
// scaled direction's exact smallest eigenvalue (maxStepPSD), primal and
// dual, for steps below and at 1, on conditioned and ill-conditioned
// points, and checks that the damped step stays inside the cone.
func TestPSDStepMatchesExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	for _, k := range []int{1, 4, 30, 120} {
		for _, cond := range []float64{10, 1e8} {
			for _, size := range []float64{0.01, 1, 100} {
				t.Run(fmt.Sprintf("k%d_cond%g_dir%g", k, cond, size), func(t *testing.T) {
					xv, sv, nt := randomScaledPoint(t, rng, k, cond)
					for _, side := range []struct {
						name string
						base []float64
						a    *mat.Dense
					}{{"primal", xv, nt.ginvt}, {"dual", sv, nt.g}} {
						// A direction of the base's own scale, times size.
						scale := 0.0
						for _, v := range side.base {
							scale = math.Max(scale, math.Abs(v))
						}
						dir := randomDirection(rng, len(side.base), size*scale/math.Sqrt(float64(k)))
						dm := make([]float64, k*k)
						SmatOf(k, dir, dm)
						exact := maxStepPSD(nt.lambda, congruence(side.a, dm, k))
						got := psdStep(k, side.base, dir, side.a, nt.lambda, DefaultSettings())
						if math.Abs(got-exact) > 1e-6*exact {
							t.Errorf("%s: step %.12g, exact %.12g", side.name, got, exact)
						}
						if !insideAfter(k, side.base, dir, 0.98*got) {
							t.Errorf("%s: the damped step %.6g leaves the cone", side.name, 0.98*got)
						}
					}
				})
			}
		}
	}
}

// TestPSDStepFallsBack takes the Lanczos method down to one step, whose
// Ritz value (the start vector's Rayleigh quotient) gives too long a step:
// the Cholesky check must reject it and psdStep return the exact step.
func TestPSDStepFallsBack(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 9))
	k := 40
	xv, _, nt := randomScaledPoint(t, rng, k, 100)
	dir := randomDirection(rng, len(xv), 1)
	dm := make([]float64, k*k)
	SmatOf(k, dir, dm)
	exact := maxStepPSD(nt.lambda, congruence(nt.ginvt, dm, k))
	theta := lanczosMin(k, scaledDirection(k, dm, nt.ginvt, nt.lambda), 1, DefaultSettings().LanczosTol)
	if est := math.Min(1, -1/theta); !(theta < 0 && est*DefaultSettings().StepCheck > exact) {
		t.Fatalf("the one-step estimate %.6g (θ = %.6g) does not exceed the exact step %.6g: the test does not reach the fallback", est, theta, exact)
	}
	oneStep := DefaultSettings()
	oneStep.LanczosMaxSteps = 1
	if got := psdStep(k, xv, dir, nt.ginvt, nt.lambda, oneStep); got != exact {
		t.Errorf("step %.12g, want the exact %.12g", got, exact)
	}
	if !(exact < 1) {
		t.Errorf("exact step %.6g: the direction should leave the cone before 1", exact)
	}
}

// BenchmarkPSDStep times one step length on a PSD block of order 330, by
// psdStep (Lanczos and a Cholesky check) and by forming the scaled
// direction and solving its eigenvalue problem (maxStepPSD).
func BenchmarkPSDStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	k := 330
	xv, _, nt := randomScaledPoint(b, rng, k, 1e4)
	dir := randomDirection(rng, len(xv), 1/float64(k))
	b.Run("lanczos", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			psdStep(k, xv, dir, nt.ginvt, nt.lambda, DefaultSettings())
		}
	})
	b.Run("formed_eigen", func(b *testing.B) {
		dm := make([]float64, k*k)
		for i := 0; i < b.N; i++ {
			SmatOf(k, dir, dm)
			maxStepPSD(nt.lambda, congruence(nt.ginvt, dm, k))
		}
	})
}
