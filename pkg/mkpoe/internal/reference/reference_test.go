package reference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

// The checks here are independent of the barrier's own bookkeeping: the
// primal objective is recomputed from the returned W, and a dual-feasible
// point is built from the returned multipliers (scaled until feasible), so
// primal − dual bounds the distance to the optimum rigorously (weak duality,
// up to round-off in the two evaluations).

type problem struct {
	name string
	ks   []mat.Symmetric
	cs   []data.Comparison
}

// problems returns small seeded problems (n ≤ 15, |𝒞| ≤ 60): 1–3 kernels
// of linear (rank 3, deficient), RBF (full rank), identity and summed
// (RBF + linear) type, with realizable or noisy comparisons (15% flipped
// plus three directly contradicting pairs).
func problems() []problem {
	specs := []struct {
		n       int
		kernels string // l, r, i, s = RBF + linear
	}{
		{12, "ri"}, {10, "ilr"}, {11, "l"}, {14, "rl"}, {9, "lri"}, {13, "i"},
		{13, "s"}, {15, "r"}, {15, "l"}, {11, "sl"},
	}
	var out []problem
	for si, sp := range specs {
		seed := uint64(si + 1)
		rng := rand.New(rand.NewPCG(seed, 1234))
		n := sp.n
		hidden := testproblems.Features(rng, n, 3)
		var ks []mat.Symmetric
		for _, kind := range sp.kernels {
			rbfOf := func() *mat.SymDense {
				x := mat.NewDense(n, 3, nil)
				x.Add(hidden, testproblems.Features(rng, n, 3))
				return testproblems.RBF(x)
			}
			switch kind {
			case 'l':
				ks = append(ks, testproblems.Linear(testproblems.Features(rng, n, 3)))
			case 'r':
				ks = append(ks, rbfOf())
			case 'i':
				ks = append(ks, testproblems.Identity(n))
			case 's':
				k := rbfOf()
				k.AddSym(k, testproblems.Linear(testproblems.Features(rng, n, 3)))
				ks = append(ks, k)
			}
		}
		noise, contra := 0.0, 0
		if seed%2 == 0 {
			noise, contra = 0.15, 3
		}
		cs := testproblems.Comparisons(rng, hidden, 30+rng.IntN(28), noise, testproblems.Mixed, contra)
		out = append(out, problem{fmt.Sprintf("seed%d_n%d_%s_c%d_noise%g", seed, n, sp.kernels, len(cs), noise), ks, cs})
	}
	return out
}

// primal evaluates the objective of Alg. 4 at ws.
func primal(ks []mat.Symmetric, cs []data.Comparison, beta float64, ws []*mat.SymDense) float64 {
	n := ks[0].SymmetricDim()
	f := 0.0
	diff := func(k mat.Symmetric, a, b int) *mat.VecDense {
		v := mat.NewVecDense(n, nil)
		for t := 0; t < n; t++ {
			v.SetVec(t, k.At(t, a)-k.At(t, b))
		}
		return v
	}
	for p, k := range ks {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				f += ws[p].At(i, j) * k.At(j, i)
			}
		}
	}
	for _, c := range cs {
		m := 1.0
		for p, k := range ks {
			m += mat.Inner(diff(k, c.I, c.J), ws[p], diff(k, c.I, c.J)) - mat.Inner(diff(k, c.K, c.L), ws[p], diff(k, c.K, c.L))
		}
		f += beta / float64(len(cs)) * math.Max(0, m)
	}
	return f
}

// dual returns τΣα for α clipped to [0, β/|𝒞|] and the largest τ ≤ 1 with
// K⁽ᵖ⁾ + τ Σ_c α_c K⁽ᵖ⁾(E_ij − E_kl)K⁽ᵖ⁾ ⪰ 0 for every p (diag: its diagonal
// ≥ 0): a lower bound on the optimum by weak duality.
func dual(ks []mat.Symmetric, cs []data.Comparison, beta float64, alpha []float64, diag bool) float64 {
	n := ks[0].SymmetricDim()
	a := make([]float64, len(cs))
	sum := 0.0
	for c := range cs {
		a[c] = math.Min(math.Max(alpha[c], 0), beta/float64(len(cs)))
		sum += a[c]
	}
	// S = Σ α_c (E_ij − E_kl), E_ij = (e_i − e_j)(e_i − e_j)ᵀ.
	s := mat.NewDense(n, n, nil)
	addE := func(i, j int, w float64) {
		s.Set(i, i, s.At(i, i)+w)
		s.Set(j, j, s.At(j, j)+w)
		s.Set(i, j, s.At(i, j)-w)
		s.Set(j, i, s.At(j, i)-w)
	}
	for c, cmp := range cs {
		addE(cmp.I, cmp.J, a[c])
		addE(cmp.K, cmp.L, -a[c])
	}
	tau := 1.0
	for _, k := range ks {
		if diag {
			// diag(K S K) + diag(K) ≥ 0.
			var ks, kk mat.Dense
			ks.Mul(k, s)
			kk.Mul(&ks, k)
			for t := 0; t < n; t++ {
				if g := kk.At(t, t); g < 0 {
					tau = math.Min(tau, k.At(t, t)/-g)
				}
			}
			continue
		}
		// K = ΦΦᵀ with Φ = U Λ^{1/2} over the eigenvalues above
		// 1e-9·λ_max (the numerical range of K, to which every solver
		// restricts W: directions of round-off size, of either sign, are
		// not part of the problem): K + KSK = Φ(I + ΦᵀSΦ)Φᵀ ⪰ 0 if
		// λ_min(ΦᵀSΦ) ≥ −1/τ.
		var eig mat.EigenSym
		if !eig.Factorize(k, true) {
			panic("eigendecomposition failed")
		}
		var u mat.Dense
		eig.VectorsTo(&u)
		vals := eig.Values(nil)
		var cols []int
		for c, v := range vals {
			if v > 1e-9*vals[n-1] {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		r := len(cols)
		phi := mat.NewDense(n, r, nil)
		for c, idx := range cols {
			sq := math.Sqrt(vals[idx])
			for i := 0; i < n; i++ {
				phi.Set(i, c, u.At(i, idx)*sq)
			}
		}
		var sp, m mat.Dense
		sp.Mul(s, phi)
		m.Mul(phi.T(), &sp)
		msym := mat.NewSymDense(r, nil)
		for i := 0; i < r; i++ {
			for j := i; j < r; j++ {
				msym.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
			}
		}
		var e2 mat.EigenSym
		if !e2.Factorize(msym, false) {
			panic("eigendecomposition failed")
		}
		if mu := e2.Values(nil)[0]; mu < -1 {
			tau = math.Min(tau, -1/mu)
		}
	}
	return tau * sum
}

// TestBarrierCertifiedAtHighBeta checks Barrier (full and diagonal) at β
// from 1 to 1e7 by an independent certificate, primal(W) − dual(α) ≤ 1e-5
// relative (its own error limit; measured at most 1e-9 here and 2e-6 in
// exact_highbeta_test.go), and the diagonal barrier against the simplex
// method to 1e-6 relative (measured at most 3e-11).
func TestBarrierCertifiedAtHighBeta(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s")
	}
	betas := []float64{1, 1e3, 1e4, 1e5, 1e6, 1e7}
	type worst struct{ gap, lp, secs float64 }
	summary := map[string]*worst{}
	for _, pr := range problems() {
		for _, beta := range betas {
			for _, diag := range []bool{false, true} {
				name := fmt.Sprintf("%s_beta%g_diag%v", pr.name, beta, diag)
				key := fmt.Sprintf("beta=%g diag=%v", beta, diag)
				if summary[key] == nil {
					summary[key] = &worst{}
				}
				w := summary[key]
				t.Run(name, func(t *testing.T) {
					st := time.Now()
					res, err := Barrier(pr.ks, pr.cs, beta, diag)
					if err != nil {
						t.Fatal(err)
					}
					el := time.Since(st).Seconds()
					f := primal(pr.ks, pr.cs, beta, res.W)
					d := dual(pr.ks, pr.cs, beta, res.Alpha, diag)
					rel := (f - d) / math.Max(f, 1e-12)
					lpRel := 0.0
					if diag {
						lpOpt, err := DiagonalLP(pr.ks, pr.cs, beta)
						if err != nil {
							t.Fatal(err)
						}
						lpRel = math.Abs(lpOpt-res.Objective) / math.Max(lpOpt, 1e-12)
						if lpRel > 1e-6 {
							t.Errorf("simplex %.12g, barrier %.12g: relative difference %.2g", lpOpt, res.Objective, lpRel)
						}
					}
					t.Logf("objective %.12g, primal(W) %.12g, dual(α) %.12g: certified relative gap %.2g (reported %.2g), simplex %.2g, %.2fs",
						res.Objective, f, d, rel, res.Gap/math.Max(res.Objective, 1e-12), lpRel, el)
					if rel > 1e-5 {
						t.Errorf("certified relative gap %.2g > 1e-5 (primal %.12g, dual %.12g)", rel, f, d)
					}
					if r := math.Abs(f-res.Objective) / f; r > 1e-8 {
						t.Errorf("reported objective %.12g, objective of the returned W %.12g", res.Objective, f)
					}
					w.gap, w.lp, w.secs = math.Max(w.gap, rel), math.Max(w.lp, lpRel), math.Max(w.secs, el)
				})
			}
		}
	}
	for _, beta := range betas {
		for _, diag := range []bool{false, true} {
			key := fmt.Sprintf("beta=%g diag=%v", beta, diag)
			w := summary[key]
			t.Logf("%-20s worst certified relative gap %.2g, worst simplex disagreement %.2g, slowest %.2fs", key, w.gap, w.lp, w.secs)
		}
	}
}
