package mkpoe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

// denseSlack forms block b's S = ΦᵀMΦ from its operator, column by column.
func denseSlack(lr *lowRank, b int) *mat.SymDense {
	r := lr.blocks[b].blk.r
	apply := lr.slackOperator(b)
	s := mat.NewSymDense(r, nil)
	e, out := make([]float64, r), make([]float64, r)
	for j := 0; j < r; j++ {
		clear(e)
		e[j] = 1
		apply(e, out)
		for i := 0; i <= j; i++ {
			s.SetSym(i, j, out[i])
		}
	}
	return s
}

// TestDeflatedEigenBound checks the bound on λ_min of the dual slack from
// span(L) and its complement against a dense eigendecomposition: never
// above λ_min (within rounding); tight (1e-8) when range(L) is an
// invariant subspace holding λ_min; and valid for a random L.
func TestDeflatedEigenBound(t *testing.T) {
	t.Parallel()
	const n = 40
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 3, Triplets: 600, Flip: 0.1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := newProblem(n, []block{{phi: identity(n), r: n, phiDiag: ones(n)}}, pl.Triplets, 1)
	lr := newLowRank(p)
	rng := rand.New(rand.NewPCG(4, 5))
	for c := range lr.alpha {
		lr.alpha[c] = rng.Float64() / 10
	}
	lr.pairWeights()
	var es mat.EigenSym
	if !es.Factorize(denseSlack(lr, 0), true) {
		t.Fatal("dense eigendecomposition failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	for _, tc := range []struct {
		name  string
		k     int
		fill  func(l *mat.Dense)
		tight bool
	}{
		{"invariant, bottom 3", 3, func(l *mat.Dense) { l.Copy(vecs.Slice(0, n, 0, 3)) }, true},
		{"invariant, eigenvectors 2-6", 5, func(l *mat.Dense) { l.Copy(vecs.Slice(0, n, 1, 6)) }, true},
		{"random", 4, func(l *mat.Dense) {
			for i := 0; i < n; i++ {
				for j := 0; j < 4; j++ {
					l.Set(i, j, rng.NormFloat64())
				}
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := mat.NewDense(n, tc.k, nil)
			tc.fill(l)
			lr.layout([]int{tc.k})
			res, ok := lr.deflatedEigen(0, l.RawMatrix().Data, 2, math.Inf(-1))
			if !ok {
				t.Fatal("deflatedEigen failed")
			}
			scale := math.Max(math.Abs(vals[0]), math.Abs(vals[n-1]))
			if res.lower > vals[0]+1e-9*scale {
				t.Errorf("bound %.12g above λ_min %.12g", res.lower, vals[0])
			}
			if tc.tight && vals[0]-res.lower > 1e-8*scale {
				t.Errorf("bound %.12g, λ_min %.12g: not tight on an invariant subspace", res.lower, vals[0])
			}
			t.Logf("bound %.10g, λ_min %.10g, %d Lanczos steps", res.lower, vals[0], res.steps)
			// A certificate that cannot certify (need above every bound)
			// may stop early, but its bound stays below λ_min.
			lr.growTol = 1e-3
			early, ok := lr.deflatedEigen(0, l.RawMatrix().Data, 2, math.Inf(1))
			if !ok {
				t.Fatal("deflatedEigen failed")
			}
			if early.lower > vals[0]+1e-9*scale {
				t.Errorf("hopeless bound %.12g above λ_min %.12g", early.lower, vals[0])
			}
			if early.steps > res.steps {
				t.Errorf("hopeless run took %d Lanczos steps, the full one %d", early.steps, res.steps)
			}
		})
	}
}

// TestEnoughForGrowth checks when a certificate's Lanczos run on the
// complement may stop, on hand-computed cases: a = −1.01, c = 0, so the
// bound is min(a, θ) and need −1.005 cannot be met.
func TestEnoughForGrowth(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		a, theta, c, resid, need float64
		want                     bool
	}{
		{"can certify: run on", -1.0001, -0.99, 0, 0.5, -1.005, false},
		{"hopeless, no direction below −1 − growTol", -1.01, -0.99, 0, 0.009, -1.005, true},
		{"hopeless, a direction may lie below", -1.01, -0.99, 0, 0.02, -1.005, false},
		{"hopeless, a Ritz value below −1: grow along it", -1.01, -1.3, 0, 1e-9, -1.005, false},
		{"coupling c makes it hopeless", -1.0001, -0.99, 0.1, 0.001, -1.005, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := enoughForGrowth(tc.a, tc.theta, tc.c, tc.resid, tc.need, 1e-3); got != tc.want {
				t.Errorf("enoughForGrowth = %v, want %v (bound %.6g)", got, tc.want, deflatedBound(tc.a, tc.theta, tc.c))
			}
		})
	}
}

// TestSlackBlock checks slackBlock, the dual-slack term applied to a block
// of columns at once, against slackOperator column by column, for GNMDS's
// diagonal Φ and a dense Φ.
func TestSlackBlock(t *testing.T) {
	t.Parallel()
	const n, r, k = 30, 6, 4
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 3, Triplets: 300, Flip: 0.1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 7))
	phi := mat.NewDense(n, r, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < r; j++ {
			phi.Set(i, j, rng.NormFloat64())
		}
	}
	for _, tc := range []struct {
		name string
		blk  block
	}{
		{"diagonal Φ", block{phi: identity(n), r: n, phiDiag: ones(n)}},
		{"dense Φ", block{phi: phi, r: r}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLowRank(newProblem(n, []block{tc.blk}, pl.Triplets, 1))
			for c := range lr.alpha {
				lr.alpha[c] = rng.Float64()
			}
			lr.pairWeights()
			q := mat.NewDense(tc.blk.r, k, nil)
			for i := 0; i < tc.blk.r; i++ {
				for j := 0; j < k; j++ {
					q.Set(i, j, rng.NormFloat64())
				}
			}
			got := lr.slackBlock(0, q)
			apply := lr.slackOperator(0)
			col, out := make([]float64, tc.blk.r), make([]float64, tc.blk.r)
			for j := 0; j < k; j++ {
				mat.Col(col, j, q)
				apply(col, out)
				for i, want := range out {
					if d := math.Abs(got.At(i, j) - want); d > 1e-12*(1+math.Abs(want)) {
						t.Fatalf("(%d,%d): %.15g, column by column %.15g", i, j, got.At(i, j), want)
					}
				}
			}
		})
	}
}

// TestALMAnswersAtMinBeta checks that at β ≤ β_min the augmented-Lagrangian
// method returns W = 0 with no iteration and a zero gap, the objective β
// that the default method certifies too.
func TestALMAnswersAtMinBeta(t *testing.T) {
	t.Parallel()
	const n = 30
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 3, Triplets: 400, Flip: 0.1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := MinBeta([]mat.Symmetric{testproblems.Identity(n)}, pl.Triplets, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mult := range []float64{0.5, 1} {
		t.Run(fmt.Sprint(mult), func(t *testing.T) {
			beta := mult * mb
			m, err := FitIdentity(n, pl.Triplets, &Settings{Beta: beta, Solver: ALM})
			if err != nil {
				t.Fatal(err)
			}
			if m.Stats.Iterations != 0 || !m.Stats.Converged || m.Stats.RelativeGap != 0 {
				t.Errorf("iterations %d, converged %v, gap %g: want 0, true, 0", m.Stats.Iterations, m.Stats.Converged, m.Stats.RelativeGap)
			}
			if w := m.Metric(0); mat.Norm(w, 1) != 0 {
				t.Errorf("W has norm %g, want 0", mat.Norm(w, 1))
			}
			if relDiff(m.Objective, beta) > 1e-12 {
				t.Errorf("objective %.12g, want β = %.12g", m.Objective, beta)
			}
			def, err := FitIdentity(n, pl.Triplets, &Settings{Beta: beta})
			if err != nil {
				t.Fatal(err)
			}
			if relDiff(def.Objective, m.Objective) > DefaultTol {
				t.Errorf("default method %.10g, alm %.10g", def.Objective, m.Objective)
			}
		})
	}
}

// TestALMLargeMultiples holds the augmented-Lagrangian method to the
// default method at large multiples of β_min on GNMDS, where both certify:
// the objectives within 2·Tol, and the warm start from the neighbouring
// β's model certifies too; with either inner solve, either order of
// multiplier update and growth (almTuning.updateOnGrow), and a warm start
// of factors only (almTuning.warmFactorsOnly).
func TestALMLargeMultiples(t *testing.T) {
	t.Parallel()
	const n = 40
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 3, Triplets: 800, Flip: 0.1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := MinBeta([]mat.Symmetric{testproblems.Identity(n)}, pl.Triplets, nil)
	if err != nil {
		t.Fatal(err)
	}
	defaults := map[float64]float64{}
	for _, inner := range []struct {
		name                           string
		newton, growFirst, factorsOnly bool
	}{
		{"L-BFGS", false, false, false},
		{"Newton-CG", true, false, false},
		{"Newton-CG, grow first", true, true, false},
		{"L-BFGS, grow first", false, true, false},
		{"Newton-CG, warm factors only", true, false, true},
	} {
		t.Run(inner.name, func(t *testing.T) {
			tu := tuned(func(tu *tuning) {
				tu.alm.newton = inner.newton
				tu.alm.updateOnGrow = !inner.growFirst
				tu.alm.warmFactorsOnly = inner.factorsOnly
			})
			var prev *Model
			for _, mult := range []float64{3, 30, 300} {
				beta := mult * mb
				alm, err := FitIdentity(n, pl.Triplets, &Settings{Beta: beta, Solver: ALM, Init: prev, tuning: tu})
				if err != nil {
					t.Fatal(err)
				}
				want, ok := defaults[mult]
				if !ok {
					def, err := FitIdentity(n, pl.Triplets, &Settings{Beta: beta})
					if err != nil {
						t.Fatal(err)
					}
					if !def.Stats.Converged {
						t.Fatalf("%g·β_min: the default method did not certify", mult)
					}
					want, defaults[mult] = def.Objective, def.Objective
				}
				if !alm.Stats.Converged {
					t.Fatalf("%g·β_min: alm did not certify (gap %.3g)", mult, alm.Stats.RelativeGap)
				}
				if d := relDiff(alm.Objective, want); d > 2*DefaultTol {
					t.Errorf("%g·β_min: alm %.10g, default %.10g (relative %.2g)", mult, alm.Objective, want, d)
				}
				if alm.Solver != ALM {
					t.Errorf("Model.Solver %q, want %q", alm.Solver, ALM)
				}
				t.Logf("%g·β_min: alm %.8g (%d iterations, rank %d), default %.8g", mult, alm.Objective, alm.Stats.Iterations, alm.Dim(), want)
				prev = alm
			}
		})
	}
}

// BenchmarkLowRankEvaluate measures one evaluation of the factored
// objective with its gradient (the pair loops) on planted GNMDS sets at the
// rank the certified fits reach at 10·β_min.
func BenchmarkLowRankEvaluate(b *testing.B) {
	for _, tc := range []struct{ n, triplets, k int }{{300, 8000, 57}, {1000, 24000, 95}} {
		b.Run(fmt.Sprintf("n%d_k%d", tc.n, tc.k), func(b *testing.B) {
			pl, err := data.GeneratePlanted(data.PlantedSpec{N: tc.n, Dim: 5, Triplets: tc.triplets, Flip: 0.1, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			p := newProblem(tc.n, []block{{phi: identity(tc.n), r: tc.n, phiDiag: ones(tc.n)}}, pl.Triplets, 100)
			lr := newLowRank(p)
			z := make([]float64, lr.layout([]int{tc.k}))
			rng := rand.New(rand.NewPCG(1, 1))
			for i := range z {
				z[i] = rng.NormFloat64() / 10
			}
			g := make([]float64, len(z))
			b.ResetTimer()
			for range b.N {
				lr.evaluate(z, 1, g)
			}
		})
	}
}

// TestALMWarmCertificate: along an increasing grid on a realizable set the
// solution stops changing once no comparison is violated, so a warm fit
// certifies from Init's factors and dual point with no iteration; a
// foreign Init (another comparison set of the same size) cannot certify a
// wrong answer: the fit still matches the cold one.
func TestALMWarmCertificate(t *testing.T) {
	t.Parallel()
	const n = 40
	planted := func(seed uint64) []data.Comparison {
		pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 3, Triplets: 600, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return pl.Triplets
	}
	cs, foreign := planted(5), planted(6)
	mb, err := MinBeta([]mat.Symmetric{testproblems.Identity(n)}, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(cs []data.Comparison, mult float64, init *Model) *Model {
		m, err := FitIdentity(n, cs, &Settings{Beta: mult * mb, Solver: ALM, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Stats.Converged {
			t.Fatalf("%g·β_min: not certified (gap %.3g)", mult, m.Stats.RelativeGap)
		}
		return m
	}
	first := fit(cs, 300, nil)
	for _, tc := range []struct {
		name      string
		init      *Model
		wantIters bool // whether the fit must iterate
	}{
		{"own neighbour", first, false},
		{"foreign", fit(foreign, 300, nil), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			warm := fit(cs, 3000, tc.init)
			cold := fit(cs, 3000, nil)
			if d := relDiff(warm.Objective, cold.Objective); d > 2*DefaultTol {
				t.Errorf("warm %.10g, cold %.10g (relative %.2g)", warm.Objective, cold.Objective, d)
			}
			if got := warm.Stats.Iterations > 0; got != tc.wantIters {
				t.Errorf("warm fit took %d iterations", warm.Stats.Iterations)
			}
		})
	}
}

// TestRangeBasis checks rangeBasis (CholeskyQR2) against the SVD's basis:
// orthonormal columns spanning range(L) to rounding on a well-conditioned
// L, and the SVD's answer (directions below rangeTol dropped) on a
// rank-deficient L.
func TestRangeBasis(t *testing.T) {
	tn := defaultTuning().lowRank
	rng := rand.New(rand.NewPCG(13, 14))
	const r = 40
	for _, tc := range []struct {
		name  string
		k     int
		scale func(j int) float64 // column j's scale
		want  int                 // columns of the basis
	}{
		{"well conditioned", 6, func(j int) float64 { return 1 + float64(j) }, 6},
		{"columns down to 1e-3", 8, func(j int) float64 { return math.Pow(10, -3*float64(j)/7) }, 8},
		{"a repeated column", 5, func(j int) float64 { return 1 }, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := mat.NewDense(r, tc.k, nil)
			for j := 0; j < tc.k; j++ {
				for i := 0; i < r; i++ {
					l.Set(i, j, tc.scale(j)*rng.NormFloat64())
				}
			}
			if tc.want < tc.k { // the last column repeats the first
				for i := 0; i < r; i++ {
					l.Set(i, tc.k-1, l.At(i, 0))
				}
			}
			q := rangeBasis(l, tn.rangeTol, tn.cholQRMaxCond)
			if _, c := q.Dims(); c != tc.want {
				t.Fatalf("%d columns, want %d", c, tc.want)
			}
			var qtq mat.Dense
			qtq.Mul(q.T(), q)
			for i := 0; i < tc.want; i++ {
				for j := 0; j < tc.want; j++ {
					want := 0.0
					if i == j {
						want = 1
					}
					if d := math.Abs(qtq.At(i, j) - want); d > 1e-12 {
						t.Fatalf("QᵀQ[%d,%d] = %.15g", i, j, qtq.At(i, j))
					}
				}
			}
			// (I − QQᵀ)L = 0: the basis spans range(L).
			var coef, proj mat.Dense
			coef.Mul(q.T(), l)
			proj.Mul(q, &coef)
			proj.Sub(l, &proj)
			if d := mat.Norm(&proj, 2) / mat.Norm(l, 2); d > 1e-12 {
				t.Errorf("‖(I − QQᵀ)L‖/‖L‖ = %.3g", d)
			}
		})
	}
}
