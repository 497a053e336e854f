package mkpoe

import (
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/reference"
	"gonum.org/v1/gonum/mat"
)

// randomSymmetric returns a symmetric matrix with N(0,1) entries.
func randomSymmetric(rng *rand.Rand, r int) []float64 {
	a := make([]float64, r*r)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			v := rng.NormFloat64()
			a[i*r+j], a[j*r+i] = v, v
		}
	}
	return a
}

func minEig(a []float64, r int) float64 {
	s := mat.NewSymDense(r, nil)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			s.SetSym(i, j, a[i*r+j])
		}
	}
	var e mat.EigenSym
	e.Factorize(s, false)
	return e.Values(nil)[0]
}

func frob(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Sqrt(s)
}

// TestProjectPSD checks the projection of Appendix B: the result is
// symmetric PSD, idempotent, leaves PSD matrices alone, and is the nearest
// PSD matrix in Frobenius norm (no random PSD matrix is closer).
func TestProjectPSD(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	ws := &eigWS{}
	for trial := 0; trial < 50; trial++ {
		r := 1 + rng.IntN(12)
		a := randomSymmetric(rng, r)
		p := append([]float64(nil), a...)
		projectPSD(ws, r, p)
		if m := minEig(p, r); m < -1e-10*float64(r) {
			t.Fatalf("trial %d: projection has eigenvalue %g < 0", trial, m)
		}
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				if math.Abs(p[i*r+j]-p[j*r+i]) > 1e-12 {
					t.Fatalf("trial %d: projection is not symmetric", trial)
				}
			}
		}
		pp := append([]float64(nil), p...)
		projectPSD(ws, r, pp)
		if d := frob(p, pp); d > 1e-9 {
			t.Errorf("trial %d: not idempotent, ‖P(P(A)) − P(A)‖ = %g", trial, d)
		}
		dist := frob(a, p)
		for k := 0; k < 20; k++ {
			// B = GGᵀ is PSD; it must not be closer to A than P(A).
			g := mat.NewDense(r, r, nil)
			for i := range g.RawMatrix().Data {
				g.RawMatrix().Data[i] = rng.NormFloat64()
			}
			var b mat.Dense
			b.Mul(g, g.T())
			b.Scale(rng.Float64(), &b)
			if db := frob(a, b.RawMatrix().Data); db < dist-1e-9 {
				t.Fatalf("trial %d: a PSD matrix at distance %g is closer than the projection (%g)", trial, db, dist)
			}
		}
	}
}

// TestProjectPSDBothSides checks that the three ways projectPSD computes
// the projection — from the positive eigenpairs, as A minus the negative
// part, or from the whole decomposition — agree with V₊Λ₊V₊ᵀ from an
// independent whole eigendecomposition, on matrices
// with mostly positive, mostly negative and mixed spectra.
func TestProjectPSDBothSides(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := 0; trial < 30; trial++ {
		r := 1 + rng.IntN(60)
		a := randomSymmetric(rng, r)
		shift := []float64{-2, 0, 2}[trial%3] * math.Sqrt(float64(r))
		for i := 0; i < r; i++ {
			a[i*r+i] += shift
		}
		// Reference: the whole decomposition.
		v := append([]float64(nil), a...)
		vals := make([]float64, r)
		if !linalg.SymEigen(r, v, vals, true) {
			t.Fatal("SymEigen failed")
		}
		want := make([]float64, r*r)
		for k, l := range vals {
			if l <= 0 {
				continue
			}
			for i := 0; i < r; i++ {
				for j := 0; j < r; j++ {
					want[i*r+j] += l * v[i*r+k] * v[j*r+k]
				}
			}
		}
		for _, positives := range []int{0, r / 2, r} {
			ws := &eigWS{positives: positives}
			p := append([]float64(nil), a...)
			projectPSD(ws, r, p)
			if d := frob(p, want); d > 1e-10*(1+frob(want, make([]float64, r*r))) {
				t.Errorf("trial %d (r=%d, shift %g, guess %d positives): ‖P(A) − V₊Λ₊V₊ᵀ‖ = %g", trial, r, shift, positives, d)
			}
			if wantPos := countAbove(vals, 0); ws.positives != wantPos {
				t.Errorf("trial %d: %d positive eigenvalues recorded, want %d", trial, ws.positives, wantPos)
			}
		}
	}
}

func countAbove(vals []float64, x float64) int {
	n := 0
	for _, v := range vals {
		if v > x {
			n++
		}
	}
	return n
}

func TestFitNoComparisonsGivesZero(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	k := testproblems.RBF(testproblems.Features(rng, 6, 2))
	for _, mode := range []Mode{Full, Diag} {
		m, err := Fit([]mat.Symmetric{k}, nil, &Settings{Beta: 10, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if m.Objective != 0 || mat.Norm(m.Metric(0), 2) != 0 {
			t.Errorf("%v: with no comparisons the optimum is W = 0, got objective %g, ‖W‖ = %g", mode, m.Objective, mat.Norm(m.Metric(0), 2))
		}
	}
}

// TestFitDeterministicAndInputsUnchanged fits twice and checks identical
// models, and that neither the kernels nor the comparisons were modified.
func TestFitDeterministicAndInputsUnchanged(t *testing.T) {
	t.Parallel()
	pr := smallProblems()[0]
	ksCopy := make([]*mat.SymDense, len(pr.ks))
	for p, k := range pr.ks {
		ksCopy[p] = mat.NewSymDense(k.SymmetricDim(), nil)
		ksCopy[p].CopySym(k)
	}
	csCopy := append([]data.Comparison(nil), pr.cs...)
	for _, mode := range []Mode{Full, Diag} {
		a, err := Fit(pr.ks, pr.cs, &Settings{Beta: pr.beta, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Fit(pr.ks, pr.cs, &Settings{Beta: pr.beta, Mode: mode})
		if a.Objective != b.Objective || !mat.Equal(a.Train, b.Train) {
			t.Errorf("%v: two fits differ", mode)
		}
	}
	for p := range pr.ks {
		if !mat.Equal(pr.ks[p], ksCopy[p]) {
			t.Errorf("kernel %d was modified", p)
		}
	}
	for i := range csCopy {
		if csCopy[i] != pr.cs[i] {
			t.Fatalf("comparison %d was modified", i)
		}
	}
}

// TestEmbedTrainingRowsEqualsTrain: embedding the training items from their
// own kernel rows gives the stored training embedding (Sec. 3.2: g(x) = N K_x).
func TestEmbedTrainingRowsEqualsTrain(t *testing.T) {
	t.Parallel()
	pr := smallProblems()[1]
	for _, comb := range []Combine{Separate, Sum} {
		m, err := Fit(pr.ks, pr.cs, &Settings{Beta: 100, Combine: comb})
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]*mat.Dense, len(pr.ks))
		for p, k := range pr.ks {
			rows[p] = mat.DenseCopyOf(k)
		}
		emb, err := m.Embed(rows)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(emb, m.Train, 1e-9) {
			t.Errorf("%v: Embed(K) differs from the training embedding", comb)
		}
		// Distances in the embedding are the model's d(i,j) = Σ_p (K_i−K_j)ᵀW(K_i−K_j).
		i, j := 0, 1
		d := 0.0
		for p, k := range pr.ks {
			if comb == Sum && p > 0 {
				break
			}
			n := k.SymmetricDim()
			v := mat.NewVecDense(n, nil)
			for r := 0; r < n; r++ {
				s := 0.0
				for q, kq := range pr.ks {
					if comb == Separate && q != p {
						continue
					}
					s += kq.At(r, i) - kq.At(r, j)
				}
				v.SetVec(r, s)
			}
			d += mat.Inner(v, m.Metric(p), v)
		}
		var e float64
		for c := 0; c < m.Dim(); c++ {
			x := m.Train.At(i, c) - m.Train.At(j, c)
			e += x * x
		}
		if math.Abs(d-e) > 1e-8*math.Max(1, d) {
			t.Errorf("%v: embedding distance %g, model distance %g", comb, e, d)
		}
	}
}

// TestPermutingItemsPermutesEmbedding relabels the items and checks that the
// objective is unchanged and the distances follow the permutation.
func TestPermutingItemsPermutesEmbedding(t *testing.T) {
	t.Parallel()
	pr := smallProblems()[2]
	n := pr.ks[0].SymmetricDim()
	perm := rand.New(rand.NewPCG(5, 5)).Perm(n)
	var pks []mat.Symmetric
	for _, k := range pr.ks {
		pk := mat.NewSymDense(n, nil)
		for a := 0; a < n; a++ {
			for b := a; b < n; b++ {
				pk.SetSym(perm[a], perm[b], k.At(a, b))
			}
		}
		pks = append(pks, pk)
	}
	var pcs []data.Comparison
	for _, c := range pr.cs {
		pcs = append(pcs, data.Comparison{I: perm[c.I], J: perm[c.J], K: perm[c.K], L: perm[c.L]})
	}
	a, err := Fit(pr.ks, pr.cs, &Settings{Beta: pr.beta, Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(pks, pcs, &Settings{Beta: pr.beta, Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if relDiff(a.Objective, b.Objective) > 2e-6 {
		t.Errorf("objective %g after permuting, %g before", b.Objective, a.Objective)
	}
	dist := func(m *Model, i, j int) float64 {
		s := 0.0
		for c := 0; c < m.Dim(); c++ {
			x := m.Train.At(i, c) - m.Train.At(j, c)
			s += x * x
		}
		return s
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			da, db := dist(a, i, j), dist(b, perm[i], perm[j])
			if math.Abs(da-db) > 1e-2*math.Max(1, da) {
				t.Fatalf("d(%d,%d) = %g but d(π%d,π%d) = %g", i, j, da, i, j, db)
			}
		}
	}
}

// TestLPOEMatchesKPOEOnLinearKernel: LPOE on features X (Alg. 2, reg tr(W))
// and KPOE on K = XXᵀ (Alg. 3, reg tr(WK)) have the same optimal value
// (W_LPOE = Xᵀ W_KPOE X when X has full column rank), checked against the
// exact barrier solution of the kernel problem.
func TestLPOEMatchesKPOEOnLinearKernel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	n, d := 14, 3
	x := testproblems.Features(rng, n, d)
	cs := testproblems.Comparisons(rng, testproblems.Features(rng, n, 2), 50, 0.1, testproblems.TripletsIf(true), 0)
	k := mat.NewSymDense(n, nil)
	k.SymOuterK(1, x)
	for _, mode := range []Mode{Full, Diag} {
		lp, err := FitFeatures(x, cs, &Settings{Beta: 50, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if r, c := lp.Metric(0).Dims(); r != d || c != d {
			t.Fatalf("LPOE W is %d×%d, want %d×%d", r, c, d, d)
		}
		if mode == Diag {
			// Diagonal LPOE weights features, diagonal KPOE weights items:
			// different problems. Check LPOE against its own exact LP by
			// the barrier on the "kernel" whose columns are the features.
			continue
		}
		ref, err := reference.Barrier([]mat.Symmetric{k}, cs, 50, false)
		if err != nil {
			t.Fatal(err)
		}
		if relDiff(lp.Objective, ref.Objective) > 1e-3 {
			t.Errorf("LPOE objective %g, exact KPOE optimum on XXᵀ %g", lp.Objective, ref.Objective)
		}
		// New feature rows embed like training rows.
		emb, err := lp.Embed([]*mat.Dense{x})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(emb, lp.Train, 1e-9) {
			t.Error("LPOE: Embed(X) differs from the training embedding")
		}
	}
}

// TestDualBoundNeverAboveOptimum: every certificate the solver reports is a
// lower bound on the exact optimum, also when it stops early.
func TestDualBoundNeverAboveOptimum(t *testing.T) {
	t.Parallel()
	probs := smallProblems()
	for _, pr := range []smallProblem{probs[0], probs[2]} {
		for _, mode := range []Mode{Full, Diag} {
			ref, err := reference.Barrier(pr.ks, pr.cs, pr.beta, mode == Diag)
			if err != nil {
				t.Fatal(err)
			}
			for _, iters := range []int{10, 50, 200} {
				m, err := Fit(pr.ks, pr.cs, &Settings{Beta: pr.beta, Mode: mode, MaxIter: iters})
				if err != nil {
					t.Fatal(err)
				}
				if m.Stats.DualBound > ref.Objective*(1+1e-9)+1e-12 {
					t.Errorf("%s %v after %d iterations: bound %g above the optimum %g", pr.name, mode, iters, m.Stats.DualBound, ref.Objective)
				}
				if m.Objective < ref.Objective*(1-1e-9) {
					t.Errorf("%s %v: objective %g below the optimum %g", pr.name, mode, m.Objective, ref.Objective)
				}
				best := math.Inf(1)
				for _, f := range m.Stats.Trace {
					best = math.Min(best, f)
				}
				if len(m.Stats.Trace) > 0 && m.Objective > best*(1+1e-12) {
					t.Errorf("%s %v: reported objective %g above the best iterate %g", pr.name, mode, m.Objective, best)
				}
			}
		}
	}
}
