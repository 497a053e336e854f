package conic

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// cholFactor is the Cholesky factor of a symmetric positive definite n×n
// matrix by LAPACK's dpotrf (linalg.Cholesky: OpenBLAS's under -tags openblas). (gonum's mat.Cholesky also estimates the
// condition number, which costs as much as the factorisation again for the
// interior-point method's Newton systems.)
type cholFactor struct {
	n int
	a []float64 // the factor, as left by linalg.Cholesky (nil while single is used)

	// Mixed precision (factorMixed): the single-precision factor, refined
	// against the matrix m, which is kept intact; refill restores m for a
	// ridge retry and state records a fall back to double precision.
	single []float32
	m      []float64
	mNorm  float64 // ‖m‖∞
	refill func([]float64)
	state  *mixedState
	// maxRefine bounds the refinement steps of one solve
	// (Settings.MaxRefine).
	maxRefine int
}

// factorSPD factors the matrix held row-major in a (only the upper triangle
// is read; a is overwritten). If it is not numerically positive definite,
// it retries with a relative ridge up to 1e-8 (round-off at the end of an
// interior-point run), after refill(a) restores the matrix; with refill nil
// a copy is kept for that. It reports false if all attempts fail.
func factorSPD(n int, a []float64, refill func([]float64)) (*cholFactor, bool) {
	if refill == nil {
		orig := append([]float64(nil), a...)
		refill = func(a []float64) { copy(a, orig) }
	}
	for ridge := 0.0; ridge <= 1e-8; {
		if ridge > 0 {
			refill(a)
			for i := 0; i < n; i++ {
				a[i*n+i] = a[i*n+i]*(1+ridge) + ridge
			}
		}
		if linalg.Cholesky(n, a) {
			return &cholFactor{n: n, a: a}, true
		}
		if ridge == 0 {
			ridge = 1e-14
		} else {
			ridge *= 100
		}
	}
	return nil, false
}

// solve overwrites b with A⁻¹b. It reports false if the result is not
// finite, or if a single-precision factor's refinement failed and the
// double-precision factorisation it then falls back to failed too.
func (c *cholFactor) solve(b []float64) bool {
	if c.single != nil {
		if c.refine(b) {
			return true
		}
		c.state.failed = true
		f, ok := factorSPD(c.n, c.m, c.refill)
		if !ok {
			return false
		}
		c.a, c.single, c.m = f.a, nil, nil
	}
	linalg.CholeskySolve(c.n, c.a, b)
	return allFinite(b)
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Mixed precision: the interior-point stage of a full-W fit factors one
// dense |T|×|T| Newton matrix per step (|T| = 4400 on the aset400-scale
// fixture), and OpenBLAS's single-precision spotrf takes 0.36 s there
// against dpotrf's 0.84 s. factorMixed factors the matrix in single
// precision and solve refines each solution in double precision,
//
//	x ← x + M₃₂⁻¹(b − M x),
//
// until the residual meets LAPACK's own test for its mixed-precision
// solver dsposv, ‖b − Mx‖∞ ≤ ‖x‖∞ ‖M‖∞ ε √n (Langou et al. 2006;
// Buttari et al. 2007): the accuracy of a double-precision factorisation.
// Refinement converges when κ(M) ε₃₂ < 1; late in an interior-point run
// the Newton matrix grows too ill-conditioned, and a factorisation or a
// refinement that fails sends the step to dpotrf, and the rest of the run
// with it (mixedState.failed). See docs/solver.md, "Mixed precision".

// mixedState belongs to one interior-point run: the single-precision copy
// of its Newton matrix, reused across steps, and whether single precision
// has failed in the run.
type mixedState struct {
	single []float32
	failed bool
	// factored and refined count the single-precision factorisations and
	// refinement steps (for tests and measurements).
	factored, refined int
}

// factorMixed factors the symmetric positive definite matrix held
// row-major in a (upper triangle) as factorSPD does, but in single
// precision when s and st allow it (see above; Settings.MixedPrecision,
// Settings.MixedMinSize); a is then kept intact for the refinement and
// for the fall back.
func factorMixed(n int, a []float64, refill func([]float64), st *mixedState, s Settings) (*cholFactor, bool) {
	if st == nil || !s.MixedPrecision || n < s.MixedMinSize || st.failed {
		return factorSPD(n, a, refill)
	}
	if len(st.single) < n*n {
		st.single = make([]float32, n*n)
	}
	single := st.single[:n*n]
	norm := toSingleUpper(n, a, single)
	if !(norm < math.Inf(1)) || !linalg.CholeskySingle(n, single) {
		st.failed = true
		return factorSPD(n, a, refill)
	}
	st.factored++
	if refill == nil {
		orig := append([]float64(nil), a...)
		refill = func(a []float64) { copy(a, orig) }
	}
	return &cholFactor{n: n, single: single, m: a, mNorm: norm, refill: refill, state: st, maxRefine: s.MaxRefine}, true
}

// toSingleUpper rounds the upper triangle of the row-major n×n a into s
// and returns ‖a‖∞ (the largest absolute row sum of the symmetric matrix),
// two goroutines splitting the rows.
func toSingleUpper(n int, a []float64, s []float32) float64 {
	const workers = 2
	sums := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		sums[w] = make([]float64, n)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sum := sums[w]
			for i := w; i < n; i += workers { // interleaved: the triangle's rows shrink
				row, out := a[i*n+i:i*n+n], s[i*n+i:i*n+n]
				rowSum := 0.0
				for j, v := range row {
					out[j] = float32(v)
					av := math.Abs(v)
					rowSum += av
					if j > 0 {
						sum[i+j] += av
					}
				}
				sum[i] += rowSum
			}
		}(w)
	}
	wg.Wait()
	norm := 0.0
	for i := range n {
		t := 0.0
		for w := range workers {
			t += sums[w][i]
		}
		if math.IsNaN(t) {
			return math.NaN()
		}
		norm = math.Max(norm, t)
	}
	return norm
}

// refine overwrites b with M⁻¹b by single-precision solves refined in
// double precision (see above). It reports false, leaving b as it was,
// if the residual does not reach the test within c.maxRefine steps or stops
// shrinking tenfold per step.
func (c *cholFactor) refine(b []float64) bool {
	n := c.n
	x := make([]float64, n)
	r := append([]float64(nil), b...)
	s := make([]float32, n)
	bound := c.mNorm * eps64 * math.Sqrt(float64(n))
	prev := math.Inf(1)
	for step := 0; step <= c.maxRefine; step++ {
		// The residual is scaled to unit size before it is rounded, so
		// that float32's range cannot under- or overflow it.
		rn := floats.Norm(r, math.Inf(1))
		if rn == 0 {
			break
		}
		for i, v := range r {
			s[i] = float32(v / rn)
		}
		linalg.CholeskySolveSingle(n, c.single, s)
		for i, v := range s {
			x[i] += rn * float64(v)
		}
		linalg.SymMulVec(n, c.m, x, r)
		for i := range r {
			r[i] = b[i] - r[i]
		}
		c.state.refined++
		res := floats.Norm(r, math.Inf(1))
		if !(res < math.Inf(1)) || !allFinite(x) {
			return false
		}
		if res <= bound*floats.Norm(x, math.Inf(1)) {
			break
		}
		if step == c.maxRefine || res > prev/10 {
			return false
		}
		prev = res
	}
	copy(b, x)
	return true
}

// eps64 is the unit round-off of float64, LAPACK's dlamch('E').
const eps64 = 0x1p-53
