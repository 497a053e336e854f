// Package reference solves small MKPOE problems exactly by methods that
// share no code with package mkpoe's solvers, to check them in tests:
// a primal log-barrier interior-point method (Boyd & Vandenberghe 2004,
// Sec. 11.3) for the SDP of Alg. 4 in the paper's W-space, and the simplex
// method (gonum optimize/convex/lp) for its diagonal LP (Sec. 4.4).
//
// It uses dense Newton systems and is meant for n ≤ 20, m ≤ 3, |𝒞| ≤ 100
// (about 0.01–0.5 s per problem with n ≤ 15, |𝒞| ≤ 60).
package reference

import (
	"errors"
	"fmt"
	"math"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Result is an exact solution.
type Result struct {
	Objective float64 // optimal value of the objective of Alg. 4, evaluated at W
	// Gap bounds Objective − optimum: Objective − DualBound (Barrier),
	// 0 when there are no comparisons.
	Gap float64
	// DualBound (Barrier) is Σ_c α_c for the multipliers Alpha, a lower
	// bound on the optimum by weak duality.
	DualBound float64
	W         []*mat.SymDense
	// Alpha (Barrier) are dual-feasible multipliers of the hinge terms,
	// 0 ≤ α_c ≤ β/|𝒞| with K⁽ᵖ⁾ + Σ_c α_c K⁽ᵖ⁾(E_ij − E_kl)K⁽ᵖ⁾ ⪰ 0 on
	// range(K⁽ᵖ⁾) for every p (diag: its diagonal ≥ 0),
	// E_ij = (e_i − e_j)(e_i − e_j)ᵀ, up to round-off.
	Alpha []float64
}

// term is one coordinate of a block variable in the barrier method: a
// diagonal entry (a,a) or a symmetric pair (a,b), a<b, counted twice.
type term struct{ a, b int }

type blockVars struct {
	q     *mat.Dense // n×r orthonormal basis of range(K): W = Q Y Qᵀ (Q = I if K has full rank)
	r     int
	terms []term // svec layout of Y (full) or its kept diagonal coordinates (diag)
	off   int
}

// Target accuracy of Barrier: it stops when the duality gap is below
// barrierTol·max(1, |f|) and fails when it cannot certify gapLimit·max(1, |f|).
const (
	barrierTol = 1e-10
	gapLimit   = 1e-5
)

// validate checks what Barrier and DiagonalLP need: at least one kernel,
// all of the same size with finite entries, comparisons naming items in
// range with two different pairs, and a finite β > 0.
func validate(ks []mat.Symmetric, cs []data.Comparison, beta float64) error {
	if len(ks) == 0 {
		return errors.New("reference: no kernels")
	}
	if !(beta > 0) || math.IsInf(beta, 0) {
		return fmt.Errorf("reference: β must be finite and > 0, got %v", beta)
	}
	var n int
	for p, k := range ks {
		if k == nil {
			return fmt.Errorf("reference: kernel %d is nil", p)
		}
		if p == 0 {
			n = k.SymmetricDim()
		} else if k.SymmetricDim() != n {
			return fmt.Errorf("reference: kernel %d is %d×%d, kernel 0 is %d×%d", p, k.SymmetricDim(), k.SymmetricDim(), n, n)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if v := k.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("reference: kernel %d has a non-finite entry (%d,%d) = %v", p, i, j, v)
				}
			}
		}
	}
	if n == 0 {
		return errors.New("reference: empty kernels")
	}
	for c, cmp := range cs {
		for _, v := range [4]int{cmp.I, cmp.J, cmp.K, cmp.L} {
			if v < 0 || v >= n {
				return fmt.Errorf("reference: comparison %d names item %d outside [0,%d)", c, v, n)
			}
		}
		if data.NewPair(cmp.I, cmp.J) == data.NewPair(cmp.K, cmp.L) {
			return fmt.Errorf("reference: comparison %d compares a pair with itself", c)
		}
	}
	return nil
}

// Barrier solves Alg. 4 (MKPOE, one W per kernel; full or diagonal W) by
// a primal log-barrier method over (W⁽ᵖ⁾, ξ): minimise
// t·f − Σ log det W⁽ᵖ⁾ − Σ log ξ_c − Σ log s_c with
// s_c = ξ_c − 1 − Σ_p ⟨W⁽ᵖ⁾, K⁽ᵖ⁾(E_ij − E_kl)K⁽ᵖ⁾⟩, for t growing tenfold
// from min(1, ν/f(x₀)) until ν/t ≤ 1e-10·max(1, f). Singular kernels are
// handled by restricting W⁽ᵖ⁾ to the range of K⁽ᵖ⁾ (eigenvalues above
// 1e-9·λ_max), which loses nothing (directions outside it change neither
// term of the objective).
//
// The result is certified: Alpha is a dual-feasible point and
// Gap = Objective − Σα. Measured on problems with n ≤ 15, |𝒞| ≤ 60 and
// β from 1 to 1e7 (reference_test.go, exact_highbeta_test.go) the relative
// gap is 1e-11 to 1e-9, and up to 2e-6 on degenerate problems at β ≥ 1e6
// where the hinge term is 1e4 times the trace term: the dual point comes
// from a Newton system whose condition grows like (tβ/|𝒞|)², and the best
// one along the path is kept. If Gap exceeds 1e-5·max(1, Objective)
// Barrier returns the result with an error.
//
// What keeps it exact at large β:
//   - The first t makes the starting point roughly central (Boyd &
//     Vandenberghe Sec. 11.3.1); at t = 1 the first centring would have to
//     shed t·β/|𝒞|·Σξ in damped steps of bounded decrease.
//   - The ξ block of the Newton system, diagonal, is eliminated; the Schur
//     complement B + Σ_c a_c a_cᵀ/(ξ_c² + s_c²) (B from −log det) has
//     bounded weights where the full Hessian has 1/s_c² ~ (tβ/|𝒞|)², and
//     the gradient terms of size 1/s_c and 1/ξ_c are combined by hand so
//     that nothing of that size cancels. The slacks s_c are summed with
//     error compensation.
//   - Each centring is a damped Newton method (the barrier is
//     self-concordant, B & V Sec. 9.6): backtracking never goes below the
//     step 1/(1+λ) that guarantees a decrease, and inside the region of
//     quadratic convergence full steps are taken without comparing
//     function values (at large t·f they are swamped by round-off); it
//     stops when λ stops shrinking.
//   - The dual point is built from the Newton step (B & V Sec. 11.3.3 for
//     LPs), α_c = (1 − Δs_c/s_c)/(t s_c), which is dual feasible whenever
//     λ < 1, not only at the exact centre; round-off is absorbed by scaling
//     α by the largest τ ≤ 1 that keeps it feasible.
func Barrier(ks []mat.Symmetric, cs []data.Comparison, beta float64, diag bool) (*Result, error) {
	if err := validate(ks, cs, beta); err != nil {
		return nil, err
	}
	n := ks[0].SymmetricDim()
	nc := len(cs)
	if nc == 0 {
		// min Σ tr(W K) over W ⪰ 0: W = 0.
		res := &Result{}
		for range ks {
			res.W = append(res.W, mat.NewSymDense(n, nil))
		}
		return res, nil
	}
	var blocks []blockVars
	off := 0
	// Per block: reduced kernel Kr = QᵀKQ (r×r) and per comparison the
	// reduced difference vectors u = Qᵀ(K_i − K_j), v = Qᵀ(K_k − K_l).
	var kred []*mat.Dense
	var us, vs [][][]float64
	for _, k := range ks {
		bv := blockVars{off: off}
		var kr mat.Dense
		if diag {
			// Diagonal W lives in the original basis: no reduction. A
			// coordinate with K_tt = 0 (then row t of a PSD kernel is 0)
			// changes nothing and would make the barrier unbounded: drop it.
			bv.r = n
			for a := 0; a < n; a++ {
				if k.At(a, a) > 0 {
					bv.terms = append(bv.terms, term{a, a})
				}
			}
			kr.CloneFrom(denseOf(k))
		} else {
			bv.q = rangeBasis(k)
			if bv.q != nil {
				_, bv.r = bv.q.Dims()
				var kq mat.Dense
				kq.Mul(k, bv.q)
				kr.Mul(bv.q.T(), &kq) // QᵀKQ
			}
			for a := 0; a < bv.r; a++ {
				for b := a; b < bv.r; b++ {
					bv.terms = append(bv.terms, term{a, b})
				}
			}
		}
		off += len(bv.terms)
		blocks = append(blocks, bv)
		u := make([][]float64, nc)
		v := make([][]float64, nc)
		for c, cmp := range cs {
			u[c] = reducedDiff(k, bv.q, cmp.I, cmp.J)
			v[c] = reducedDiff(k, bv.q, cmp.K, cmp.L)
		}
		kred = append(kred, &kr)
		us = append(us, u)
		vs = append(vs, v)
	}
	nv := off
	dim := nv + nc
	if nv == 0 {
		// Zero kernels: W changes nothing, every hinge term is 1.
		res := &Result{Objective: beta, DualBound: beta}
		for range ks {
			res.W = append(res.W, mat.NewSymDense(n, nil))
		}
		for range cs {
			res.Alpha = append(res.Alpha, beta/float64(nc))
		}
		return res, nil
	}
	// Linear objective coefficients and constraint rows a_c (over v).
	cost := make([]float64, dim)
	arow := mat.NewDense(nc, nv, nil)
	for p, bv := range blocks {
		for idx, tm := range bv.terms {
			mult := 2.0
			if tm.a == tm.b {
				mult = 1
			}
			cost[bv.off+idx] = mult * kred[p].At(tm.a, tm.b)
			for c := 0; c < nc; c++ {
				u, v := us[p][c], vs[p][c]
				arow.Set(c, bv.off+idx, mult*(u[tm.a]*u[tm.b]-v[tm.a]*v[tm.b]))
			}
		}
	}
	wc := beta / float64(nc)
	for c := 0; c < nc; c++ {
		cost[nv+c] = wc
	}
	// s_c = ξ_c − 1 − a_c·v, summed with error compensation: near the
	// optimum s_c is tiny against the terms it is the difference of, and its
	// relative accuracy sets that of the multipliers 1/(t s_c).
	slacks := func(x, s []float64) {
		for c := range s {
			s[c] = sumMinusDot(x[nv+c], -1, arow.RawRowView(c)[:nv], x[:nv])
		}
	}
	// Strictly feasible start: W = I (Y = I), ξ_c = max(0, 1 + a_c·v) + 1.
	x := make([]float64, dim)
	for _, bv := range blocks {
		for idx, tm := range bv.terms {
			if tm.a == tm.b {
				x[bv.off+idx] = 1
			}
		}
	}
	s := make([]float64, nc)
	slacks(x, s)
	for c := 0; c < nc; c++ {
		x[nv+c] = math.Max(0, -s[c]) + 1 // s = ξ − 1 − a·v with ξ = 0 here
	}
	nu := float64(2 * nc)
	for _, bv := range blocks {
		if diag {
			nu += float64(len(bv.terms))
		} else {
			nu += float64(bv.r)
		}
	}
	// phi is the barrier (without t·f); ok is false outside its domain.
	sb := make([]float64, nc)
	phi := func(x []float64) (float64, bool) {
		f := 0.0
		for _, bv := range blocks {
			ld, ok := logDet(bv, x, diag)
			if !ok {
				return 0, false
			}
			f -= ld
		}
		slacks(x, sb)
		for c := 0; c < nc; c++ {
			xi := x[nv+c]
			if !(xi > 0) || !(sb[c] > 0) {
				return 0, false
			}
			f -= math.Log(xi) + math.Log(sb[c])
		}
		return f, true
	}
	g := make([]float64, nv)
	h := mat.NewSymDense(nv, nil)
	gs := mat.NewDense(nv, nc, nil) // columns a_c/√(ξ_c² + s_c²)
	xn := make([]float64, dim)
	dx := mat.NewVecDense(dim, nil)
	var dv mat.VecDense
	// newton computes the Newton step dx for t·f + φ at x and returns the
	// squared Newton decrement λ². The ξ block of the Hessian is diagonal
	// (1/ξ_c² + 1/s_c²) and is eliminated: the Schur complement in v is
	// B + Σ_c a_c a_cᵀ/(ξ_c² + s_c²), B the Hessian of −log det, whose
	// weights stay bounded when one of ξ_c, s_c goes to 0 (only the pair
	// going to 0 together makes it large), while the full Hessian has
	// entries 1/s_c² ~ (tβ/|𝒞|)². The terms with 1/s_c and 1/ξ_c are
	// combined by hand so that nothing of that size cancels.
	newton := func(t float64) (float64, error) {
		for k := range g {
			g[k] = t * cost[k]
		}
		h.Zero()
		for _, bv := range blocks {
			if err := addLogDet(bv, x, diag, g, h); err != nil {
				return 0, err
			}
		}
		slacks(x, s)
		l2 := 0.0
		for c := 0; c < nc; c++ {
			xi, sc := x[nv+c], s[c]
			q := xi*xi + sc*sc
			// Reduced right-hand side: g_v + Σ_c a_c (s + tw ξ² − ξ)/q.
			coef := (sc + t*wc*xi*xi - xi) / q
			sq := 1 / math.Sqrt(q)
			for k := 0; k < nv; k++ {
				a := arow.At(c, k)
				g[k] += a * coef
				gs.Set(k, c, a*sq)
			}
			// The eliminated part of λ²: g_ξ²/(1/ξ² + 1/s²).
			e := t*wc*sc*xi - sc - xi
			l2 += e * e / q
		}
		h.SymRankK(h, 1, gs)
		var chol mat.Cholesky
		if !chol.Factorize(h) {
			// Round-off at extreme barrier scales: add a tiny ridge.
			ok := false
			hr := mat.NewSymDense(nv, nil)
			for ridge := 1e-14; ridge < 1e-4 && !ok; ridge *= 100 {
				hr.CopySym(h)
				for k := 0; k < nv; k++ {
					hr.SetSym(k, k, h.At(k, k)*(1+ridge))
				}
				ok = chol.Factorize(hr)
			}
			if !ok {
				return 0, errors.New("reference: Newton system not positive definite")
			}
		}
		if err := chol.SolveVecTo(&dv, mat.NewVecDense(nv, g)); err != nil {
			// Near the optimum the barrier Hessian is badly conditioned;
			// the solution is still usable (the step is checked).
			var cond mat.Condition
			if !errors.As(err, &cond) {
				return 0, fmt.Errorf("reference: Newton solve: %w", err)
			}
		}
		l2 += mat.Dot(&dv, mat.NewVecDense(nv, g))
		for k := 0; k < nv; k++ {
			dx.SetVec(k, dv.AtVec(k))
		}
		for c := 0; c < nc; c++ {
			xi, sc := x[nv+c], s[c]
			ad := 0.0
			for k := 0; k < nv; k++ {
				ad += arow.At(c, k) * dv.AtVec(k)
			}
			// dξ_c = (g_ξ + a_c·dv/s²)/(1/ξ² + 1/s²).
			dx.SetVec(nv+c, (t*wc*sc*sc*xi*xi-sc*sc*xi-sc*xi*xi+xi*xi*ad)/(xi*xi+sc*sc))
		}
		if math.IsNaN(l2) || math.IsInf(l2, 0) {
			return 0, errors.New("reference: non-finite Newton decrement")
		}
		return l2, nil
	}
	stepTo := func(step float64) {
		for k := range xn {
			xn[k] = x[k] - step*dx.AtVec(k)
		}
	}
	center := func(t float64) error {
		best, stall := math.Inf(1), 0
		for it := 0; it < 200; it++ {
			l2, err := newton(t)
			if err != nil {
				return err
			}
			if l2/2 <= 1e-12 {
				return nil
			}
			if l2 < 1e-2 {
				// Quadratic convergence squares λ each step; when it stops
				// shrinking, round-off has the last word (the certificate
				// only needs λ < 1).
				if l2 < best/4 {
					best, stall = l2, 0
				} else if stall++; stall >= 3 {
					return nil
				}
			}
			lam := math.Sqrt(l2)
			if lam < 0.25 {
				stepTo(1)
				if _, ok := phi(xn); ok {
					copy(x, xn)
					continue
				}
			}
			f0, _ := phi(x)
			f0 += t * dot(cost, x)
			floor := 1 / (1 + lam)
			accepted := false
			for step := 1.0; step >= floor; step /= 2 {
				stepTo(step)
				if fb, ok := phi(xn); ok && fb+t*dot(cost, xn) <= f0-0.25*step*l2 {
					accepted = true
					break
				}
			}
			if !accepted {
				// The damped step decreases a self-concordant function by
				// λ − log(1+λ) in exact arithmetic; keep it in the domain.
				step := floor
				for stepTo(step); step > 1e-14; stepTo(step) {
					if _, ok := phi(xn); ok {
						break
					}
					step /= 2
				}
				if step <= 1e-14 {
					return nil
				}
			}
			copy(x, xn)
		}
		return nil
	}
	// feasible clips α to [0, β/|𝒞|], scales it by the largest τ ≤ 1 that
	// makes it dual feasible and returns it with Σα, a lower bound.
	feasible := func(alpha []float64) ([]float64, float64) {
		for c := range alpha {
			alpha[c] = math.Min(math.Max(alpha[c], 0), wc)
		}
		// z = Aᵀα over the block coordinates; the dual slack is cost + τz.
		z := make([]float64, nv)
		mat.NewVecDense(nv, z).MulVec(arow.T(), mat.NewVecDense(nc, alpha))
		tau := 1.0
		for pi, bv := range blocks {
			if diag {
				for idx := range bv.terms {
					k := bv.off + idx
					if z[k] < 0 {
						tau = math.Min(tau, cost[k]/-z[k])
					}
				}
				continue
			}
			if bv.r == 0 {
				continue
			}
			// Largest τ ≤ 1 with Kr + τS ⪰ 0, S from the svec coordinates.
			sm := mat.NewSymDense(bv.r, nil)
			for idx, tm := range bv.terms {
				mult := 2.0
				if tm.a == tm.b {
					mult = 1
				}
				sm.SetSym(tm.a, tm.b, z[bv.off+idx]/mult)
			}
			tau = math.Min(tau, psdScale(kred[pi], sm))
		}
		sum := 0.0
		for c := range alpha {
			alpha[c] *= tau
			sum += alpha[c]
		}
		return alpha, sum
	}
	// certify returns dual-feasible multipliers from the Newton step at x
	// and the lower bound Σα. With Δ = −dx the Newton step for t·f + φ,
	// α_c = (1 − Δs_c/s_c)/(t s_c) and μ_c = (1 − Δξ_c/ξ_c)/(t ξ_c) satisfy
	// α_c + μ_c = β/|𝒞| and K_r + S(α) = (Y⁻¹ − Y⁻¹ΔY Y⁻¹)/t, which is ⪰ 0
	// (α, μ ≥ 0) when the Newton decrement is below 1 (Boyd & Vandenberghe
	// Sec. 11.3.3 for the LP case): a dual-feasible point even when x is not
	// exactly centred, up to round-off.
	certify := func(t float64) ([]float64, float64, error) {
		if _, err := newton(t); err != nil {
			return nil, 0, err
		}
		slacks(x, s)
		alpha := make([]float64, nc)
		for c := range alpha {
			// Δs_c = Δξ_c − a_c·Δv, simplified with dξ_c from newton.
			xi, sc := x[nv+c], s[c]
			ad := 0.0
			for k := 0; k < nv; k++ {
				ad += arow.At(c, k) * dx.AtVec(k)
			}
			alpha[c] = (sc + t*wc*xi*xi - xi - ad) / (t * (xi*xi + sc*sc))
		}
		a, lb := feasible(alpha)
		return a, lb, nil
	}
	// Start where x is roughly central: the gap ν/t of the first centre
	// about equal to f(x) (Boyd & Vandenberghe Sec. 11.3.1); with t = 1 at
	// large β the first centring would have to shed t·β/|𝒞|·Σξ in damped
	// steps of bounded decrease.
	t := math.Min(1, nu/dot(cost, x))
	var alpha []float64
	var lb float64
	for outer := 0; ; outer++ {
		if err := center(t); err != nil {
			return nil, err
		}
		obj := dot(cost, x)
		a, b, err := certify(t)
		if err != nil {
			return nil, err
		}
		if b > lb || alpha == nil {
			alpha, lb = a, b
		}
		scale := math.Max(1, math.Abs(obj))
		if nu/t <= barrierTol*scale || obj-lb <= barrierTol*scale || outer == 60 {
			break
		}
		t *= 10
	}
	res := &Result{Alpha: alpha, DualBound: lb}
	// The objective at W (ξ_c replaced by the hinge it bounds); Alpha is the
	// best dual point met on the path.
	slacks(x, s)
	res.Objective = dot(cost[:nv], x[:nv])
	for c := 0; c < nc; c++ {
		res.Objective += wc * math.Max(0, x[nv+c]-s[c])
	}
	res.Gap = math.Max(0, res.Objective-lb)
	for _, bv := range blocks {
		res.W = append(res.W, blockW(bv, x, diag, n))
	}
	if res.Gap > gapLimit*math.Max(1, res.Objective) {
		return res, fmt.Errorf("reference: barrier certified only a gap of %.3g at objective %.10g", res.Gap, res.Objective)
	}
	return res, nil
}

// psdScale returns the largest τ ∈ [0,1] (to 1e-12) with K + τS ⪰ 0, K ≻ 0,
// tested by Cholesky factorisation.
func psdScale(k *mat.Dense, s *mat.SymDense) float64 {
	r := s.SymmetricDim()
	m := mat.NewSymDense(r, nil)
	var chol mat.Cholesky
	ok := func(tau float64) bool {
		for i := 0; i < r; i++ {
			for j := i; j < r; j++ {
				m.SetSym(i, j, (k.At(i, j)+k.At(j, i))/2+tau*s.At(i, j))
			}
		}
		return chol.Factorize(m)
	}
	if ok(1) {
		return 1
	}
	lo, hi := 0.0, 1.0
	for hi-lo > 1e-12 {
		mid := (lo + hi) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// sumMinusDot returns s0 + s1 − a·b with compensated summation (Ogita,
// Rump & Oishi 2005, Dot2): as accurate as if computed in twice the
// working precision, then rounded.
func sumMinusDot(s0, s1 float64, a, b []float64) float64 {
	s, c := s0, 0.0
	add := func(p float64) { // TwoSum
		t := s + p
		z := t - s
		c += (s - (t - z)) + (p - z)
		s = t
	}
	add(s1)
	for i := range a {
		p := -a[i] * b[i]
		c += math.FMA(-a[i], b[i], -p) // TwoProduct error
		add(p)
	}
	return s + c
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func denseOf(k mat.Symmetric) *mat.Dense {
	n := k.SymmetricDim()
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d.Set(i, j, k.At(i, j))
		}
	}
	return d
}

// rangeBasis returns an orthonormal basis of range(K) (eigenvalues above
// 1e-9·λ_max), the identity when K has full rank, or nil when K = 0.
func rangeBasis(k mat.Symmetric) *mat.Dense {
	n := k.SymmetricDim()
	var eig mat.EigenSym
	eig.Factorize(k, true)
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	lmax := vals[n-1]
	var keep []int
	for i, v := range vals {
		if v > 1e-9*lmax {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil // zero kernel
	}
	if len(keep) == n {
		q := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			q.Set(i, i, 1)
		}
		return q
	}
	q := mat.NewDense(n, len(keep), nil)
	for c, idx := range keep {
		for i := 0; i < n; i++ {
			q.Set(i, c, vecs.At(i, idx))
		}
	}
	return q
}

// reducedDiff returns Qᵀ(K_a − K_b) (or K_a − K_b when q is nil).
func reducedDiff(k mat.Symmetric, q *mat.Dense, a, b int) []float64 {
	n := k.SymmetricDim()
	d := make([]float64, n)
	for t := 0; t < n; t++ {
		d[t] = k.At(t, a) - k.At(t, b)
	}
	if q == nil {
		return d
	}
	_, r := q.Dims()
	out := make([]float64, r)
	for c := 0; c < r; c++ {
		for t := 0; t < n; t++ {
			out[c] += q.At(t, c) * d[t]
		}
	}
	return out
}

func blockMatrix(bv blockVars, x []float64) *mat.SymDense {
	y := mat.NewSymDense(bv.r, nil)
	for idx, tm := range bv.terms {
		y.SetSym(tm.a, tm.b, x[bv.off+idx])
	}
	return y
}

func logDet(bv blockVars, x []float64, diag bool) (float64, bool) {
	if diag {
		s := 0.0
		for idx := range bv.terms {
			w := x[bv.off+idx]
			if w <= 0 {
				return 0, false
			}
			s += math.Log(w)
		}
		return s, true
	}
	if bv.r == 0 {
		return 0, true
	}
	var chol mat.Cholesky
	if !chol.Factorize(blockMatrix(bv, x)) {
		return 0, false
	}
	return chol.LogDet(), true
}

// addLogDet adds the gradient and Hessian of −log det Y (or −Σ log w).
func addLogDet(bv blockVars, x []float64, diag bool, g []float64, h *mat.SymDense) error {
	if diag {
		for idx := range bv.terms {
			w := x[bv.off+idx]
			g[bv.off+idx] -= 1 / w
			k := bv.off + idx
			h.SetSym(k, k, h.At(k, k)+1/(w*w))
		}
		return nil
	}
	if bv.r == 0 {
		return nil
	}
	var chol mat.Cholesky
	if !chol.Factorize(blockMatrix(bv, x)) {
		return errors.New("reference: iterate left the PSD cone")
	}
	var u mat.SymDense
	if err := chol.InverseTo(&u); err != nil {
		// Y is badly conditioned near a low-rank optimum; the inverse is
		// still what the Newton step needs (the step is checked).
		var cond mat.Condition
		if !errors.As(err, &cond) {
			return err
		}
	}
	expand := func(tm term) [][2]int {
		if tm.a == tm.b {
			return [][2]int{{tm.a, tm.a}}
		}
		return [][2]int{{tm.a, tm.b}, {tm.b, tm.a}}
	}
	for p, tp := range bv.terms {
		if tp.a == tp.b {
			g[bv.off+p] -= u.At(tp.a, tp.a)
		} else {
			g[bv.off+p] -= 2 * u.At(tp.a, tp.b)
		}
		ep := expand(tp)
		for q := p; q < len(bv.terms); q++ {
			eq := expand(bv.terms[q])
			// d²(−log det Y)[E_p, E_q] = tr(U E_p U E_q) = Σ U_{b c} U_{d a}.
			s := 0.0
			for _, ab := range ep {
				for _, cd := range eq {
					s += u.At(ab[1], cd[0]) * u.At(cd[1], ab[0])
				}
			}
			k, l := bv.off+p, bv.off+q
			h.SetSym(k, l, h.At(k, l)+s)
		}
	}
	return nil
}

func blockW(bv blockVars, x []float64, diag bool, n int) *mat.SymDense {
	if diag {
		w := mat.NewSymDense(n, nil)
		for idx, tm := range bv.terms {
			w.SetSym(tm.a, tm.a, x[bv.off+idx])
		}
		return w
	}
	if bv.r == 0 {
		return mat.NewSymDense(n, nil)
	}
	y := blockMatrix(bv, x)
	var qy, w mat.Dense
	qy.Mul(bv.q, y)
	w.Mul(&qy, bv.q.T())
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			out.SetSym(i, j, w.At(i, j))
		}
	}
	return out
}

// DiagonalLP solves the diagonal problem (Sec. 4.4) as the linear program
//
//	min Σ_p Σ_t K⁽ᵖ⁾_tt w⁽ᵖ⁾_t + β/|𝒞| Σ_c ξ_c
//	s.t. ξ_c − Σ_p Σ_t w⁽ᵖ⁾_t [(K⁽ᵖ⁾_ti − K⁽ᵖ⁾_tj)² − (K⁽ᵖ⁾_tk − K⁽ᵖ⁾_tl)²] − σ_c = 1,
//	     w, ξ, σ ≥ 0
//
// by gonum's simplex method (an independent exact route). The costs are
// divided by max(1, β/|𝒞|) so that the simplex's absolute reduced-cost
// tolerance means the same at every β; the basis of the ξ columns (w = 0,
// ξ = 1) is feasible and starts phase 2 directly; w columns that are zero
// in every row (items in no comparison) are left out (w_t = 0 there).
func DiagonalLP(ks []mat.Symmetric, cs []data.Comparison, beta float64) (float64, error) {
	if err := validate(ks, cs, beta); err != nil {
		return 0, err
	}
	n := ks[0].SymmetricDim()
	nc := len(cs)
	if nc == 0 {
		return 0, nil
	}
	scale := math.Max(1, beta/float64(nc))
	type wcol struct {
		cost float64
		a    []float64
	}
	var ws []wcol
	for _, k := range ks {
		for t := 0; t < n; t++ {
			col := wcol{cost: k.At(t, t) / scale, a: make([]float64, nc)}
			zero := true
			for r, cmp := range cs {
				u := k.At(t, cmp.I) - k.At(t, cmp.J)
				v := k.At(t, cmp.K) - k.At(t, cmp.L)
				col.a[r] = -(u*u - v*v)
				zero = zero && col.a[r] == 0
			}
			if zero {
				if col.cost < 0 {
					return 0, errors.New("reference: unbounded LP (negative kernel diagonal)")
				}
				continue
			}
			ws = append(ws, col)
		}
	}
	nw := len(ws)
	cols := nw + 2*nc
	a := mat.NewDense(nc, cols, nil)
	b := make([]float64, nc)
	c := make([]float64, cols)
	basic := make([]int, nc)
	for j, col := range ws {
		c[j] = col.cost
		for r := range cs {
			a.Set(r, j, col.a[r])
		}
	}
	for r := range cs {
		b[r] = 1
		a.Set(r, nw+r, 1)
		a.Set(r, nw+nc+r, -1)
		c[nw+r] = beta / float64(nc) / scale
		basic[r] = nw + r
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-12, basic)
	if err != nil {
		return 0, fmt.Errorf("reference: simplex: %w", err)
	}
	return opt * scale, nil
}
