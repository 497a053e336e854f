// Package reference solves small MKPOE problems exactly by methods that
// share no code with package mkpoe's solvers, to check them in tests:
// a primal log-barrier interior-point method (Boyd & Vandenberghe 2004,
// Sec. 11.3) for the SDP of Alg. 4 in the paper's W-space, and the simplex
// method (gonum optimize/convex/lp) for its diagonal LP (Sec. 4.4).
//
// It is slow (dense Newton systems) and meant for n ≤ 20, m ≤ 3, |𝒞| ≤ 100.
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
	Objective float64 // optimal value of the objective of Alg. 4
	Gap       float64 // bound on Objective − optimum (barrier: ν/t)
	W         []*mat.SymDense
}

// term is one coordinate of a block variable in the barrier method: a
// diagonal entry (a,a) or a symmetric pair (a,b), a<b, counted twice.
type term struct{ a, b int }

type blockVars struct {
	q     *mat.Dense // n×r orthonormal basis of range(K): W = Q Y Qᵀ (Q = I if K has full rank)
	r     int
	terms []term // svec layout of Y (full) or its diagonal (diag)
	off   int
}

// Barrier solves Alg. 4 (MKPOE, one W per kernel; full or diagonal W) to
// relative accuracy about 1e-9 by a primal log-barrier method over
// (W⁽ᵖ⁾, ξ): minimise t·f − Σ log det W⁽ᵖ⁾ − Σ log ξ_c − Σ log s_c with
// s_c = ξ_c − 1 − Σ_p ⟨W⁽ᵖ⁾, K⁽ᵖ⁾(E_ij − E_kl)K⁽ᵖ⁾⟩, for t → ∞. Singular
// kernels are handled by restricting W⁽ᵖ⁾ to the range of K⁽ᵖ⁾, which loses
// nothing (directions outside it change neither term of the objective).
func Barrier(ks []mat.Symmetric, cs []data.Comparison, beta float64, diag bool) (*Result, error) {
	n := ks[0].SymmetricDim()
	nc := len(cs)
	var blocks []blockVars
	off := 0
	// Per block: reduced kernel Kr = QᵀKQ (r×r) and per comparison the
	// reduced difference vectors u = Qᵀ(K_i − K_j), v = Qᵀ(K_k − K_l).
	var kred []*mat.Dense
	var us, vs [][][]float64
	for _, k := range ks {
		q := rangeBasis(k)
		_, r := q.Dims()
		var kq, kr mat.Dense
		kq.Mul(k, q)
		kr.Mul(q.T(), &kq) // QᵀKQ
		bv := blockVars{q: q, r: r, off: off}
		if diag {
			// Diagonal W lives in the original basis: no reduction.
			bv.q = nil
			bv.r = n
			for a := 0; a < n; a++ {
				bv.terms = append(bv.terms, term{a, a})
			}
		} else {
			for a := 0; a < r; a++ {
				for b := a; b < r; b++ {
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
		if diag {
			kr.CloneFrom(denseOf(k))
		}
		kred = append(kred, &kr)
		us = append(us, u)
		vs = append(vs, v)
	}
	nv := off
	dim := nv + nc
	// Linear objective coefficients and constraint rows a_c (over v).
	cost := make([]float64, dim)
	arow := make([][]float64, nc)
	for c := range arow {
		arow[c] = make([]float64, nv)
	}
	for p, bv := range blocks {
		for idx, tm := range bv.terms {
			mult := 2.0
			if tm.a == tm.b {
				mult = 1
			}
			cost[bv.off+idx] = mult * kred[p].At(tm.a, tm.b)
			for c := 0; c < nc; c++ {
				u, v := us[p][c], vs[p][c]
				arow[c][bv.off+idx] = mult * (u[tm.a]*u[tm.b] - v[tm.a]*v[tm.b])
			}
		}
	}
	for c := 0; c < nc; c++ {
		cost[nv+c] = beta / float64(nc)
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
	for c := 0; c < nc; c++ {
		x[nv+c] = math.Max(0, 1+dot(arow[c], x[:nv])) + 1
	}
	nu := float64(2 * nc)
	for _, bv := range blocks {
		nu += float64(bv.r)
	}
	eval := func(x []float64) (float64, bool) {
		f := 0.0
		for _, bv := range blocks {
			ld, ok := logDet(bv, x, diag)
			if !ok {
				return 0, false
			}
			f -= ld
		}
		for c := 0; c < nc; c++ {
			xi := x[nv+c]
			s := xi - 1 - dot(arow[c], x[:nv])
			if xi <= 0 || s <= 0 {
				return 0, false
			}
			f -= math.Log(xi) + math.Log(s)
		}
		return f, true
	}
	t := 1.0
	for outer := 0; outer < 200; outer++ {
		for newton := 0; newton < 500; newton++ {
			g := make([]float64, dim)
			h := mat.NewSymDense(dim, nil)
			for k := range g {
				g[k] = t * cost[k]
			}
			for _, bv := range blocks {
				if err := addLogDet(bv, x, diag, g, h); err != nil {
					return nil, err
				}
			}
			for c := 0; c < nc; c++ {
				xi := x[nv+c]
				s := xi - 1 - dot(arow[c], x[:nv])
				// −log ξ
				g[nv+c] -= 1 / xi
				h.SetSym(nv+c, nv+c, h.At(nv+c, nv+c)+1/(xi*xi))
				// −log s, ∂s/∂v = −a, ∂s/∂ξ_c = 1
				for k, a := range arow[c] {
					g[k] += a / s
				}
				g[nv+c] -= 1 / s
				s2 := 1 / (s * s)
				for k, ak := range arow[c] {
					if ak == 0 {
						continue
					}
					for l := k; l < nv; l++ {
						if al := arow[c][l]; al != 0 {
							h.SetSym(k, l, h.At(k, l)+ak*al*s2)
						}
					}
					h.SetSym(k, nv+c, h.At(k, nv+c)-ak*s2)
				}
				h.SetSym(nv+c, nv+c, h.At(nv+c, nv+c)+s2)
			}
			var chol mat.Cholesky
			if !chol.Factorize(h) {
				// Round-off at extreme barrier scales: add a tiny ridge.
				ok := false
				for ridge := 1e-14; ridge < 1e-4 && !ok; ridge *= 100 {
					hr := mat.NewSymDense(dim, nil)
					hr.CopySym(h)
					for k := 0; k < dim; k++ {
						hr.SetSym(k, k, h.At(k, k)*(1+ridge)+ridge)
					}
					ok = chol.Factorize(hr)
				}
				if !ok {
					return nil, errors.New("reference: Newton system not positive definite")
				}
			}
			var dx mat.VecDense
			if err := chol.SolveVecTo(&dx, mat.NewVecDense(dim, g)); err != nil {
				// Near the optimum the barrier Hessian is badly conditioned;
				// the solution is still usable (the line search guards it).
				var cond mat.Condition
				if !errors.As(err, &cond) {
					return nil, fmt.Errorf("reference: Newton solve: %w", err)
				}
			}
			lambda2 := mat.Dot(&dx, mat.NewVecDense(dim, g))
			if lambda2/2 < 1e-12 {
				break
			}
			f0, _ := eval(x)
			f0 += t * dot(cost, x)
			step := 1.0
			for ; step > 1e-14; step /= 2 {
				xn := make([]float64, dim)
				for k := range xn {
					xn[k] = x[k] - step*dx.AtVec(k)
				}
				fb, ok := eval(xn)
				if ok && fb+t*dot(cost, xn) <= f0-0.25*step*lambda2 {
					x = xn
					break
				}
			}
			if step <= 1e-14 {
				break
			}
		}
		obj := dot(cost, x)
		if nu/t <= 1e-10*math.Max(1, math.Abs(obj)) {
			break
		}
		t *= 10
	}
	res := &Result{Objective: dot(cost, x), Gap: nu / t}
	for _, bv := range blocks {
		res.W = append(res.W, blockW(bv, x, diag, n))
	}
	return res, nil
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
// 1e-9·λ_max), or the identity when K has full rank.
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
	var chol mat.Cholesky
	if !chol.Factorize(blockMatrix(bv, x)) {
		return errors.New("reference: iterate left the PSD cone")
	}
	var u mat.SymDense
	if err := chol.InverseTo(&u); err != nil {
		return err
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
// by gonum's simplex method (an independent exact route).
func DiagonalLP(ks []mat.Symmetric, cs []data.Comparison, beta float64) (float64, error) {
	n := ks[0].SymmetricDim()
	m := len(ks)
	nc := len(cs)
	nw := m * n
	cols := nw + 2*nc
	a := mat.NewDense(nc, cols, nil)
	b := make([]float64, nc)
	c := make([]float64, cols)
	for p, k := range ks {
		for t := 0; t < n; t++ {
			c[p*n+t] = k.At(t, t)
		}
	}
	for r, cmp := range cs {
		b[r] = 1
		for p, k := range ks {
			for t := 0; t < n; t++ {
				u := k.At(t, cmp.I) - k.At(t, cmp.J)
				v := k.At(t, cmp.K) - k.At(t, cmp.L)
				a.Set(r, p*n+t, -(u*u - v*v))
			}
		}
		a.Set(r, nw+r, 1)
		a.Set(r, nw+nc+r, -1)
		c[nw+r] = beta / float64(nc)
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		return 0, fmt.Errorf("reference: simplex: %w", err)
	}
	return opt, nil
}
