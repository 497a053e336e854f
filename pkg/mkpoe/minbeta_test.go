package mkpoe

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/reference"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

// TestMinBetaHandComputed checks β_min on one triplet over three items,
// "0 and 1 are closer than 0 and 2", with K = I (GNMDS), worked out by
// hand. Diagonal: the margin is 1 + w₁ − w₂ and the regulariser w₀ + w₁ +
// w₂, so M = diag(0, 1, −1) and β_min = c₂/1 = 1 (at w₂ = 1 the objective
// is 1 against β at W = 0). Full: M = E₀₁ − E₀₂ has the characteristic
// polynomial λ³ − 3λ, so λ_min = −√3 and β_min = 1/√3.
func TestMinBetaHandComputed(t *testing.T) {
	t.Parallel()
	cs := []data.Comparison{{I: 0, J: 1, K: 0, L: 2}}
	for _, tc := range []struct {
		name string
		mode Mode
		want float64
	}{
		{"diagonal", Diag, 1},
		{"full", Full, 1 / math.Sqrt(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := FitIdentity(3, cs, &Settings{Beta: 1, Mode: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Stats.MinBeta; math.Abs(got-tc.want) > 1e-12*tc.want {
				t.Errorf("MinBeta = %.15g, want %.15g", got, tc.want)
			}
		})
	}
}

// TestMinBetaSeparatesZeroFromNonzero checks β_min against an independent
// exact solver (the reference log-barrier method, full and diagonal W) on
// the small problems, as K₄ and as K₁ on their sum kernel: at 0.98·β_min the
// optimum is W = 0, whose objective is exactly β (every margin 1), and at
// 1.02·β_min it is below β. Our own fits agree: W = 0 below, W ≠ 0 above.
func TestMinBetaSeparatesZeroFromNonzero(t *testing.T) {
	t.Parallel()
	for _, pr := range smallProblems() {
		for _, mode := range []Mode{Full, Diag} {
			for _, combine := range []Combine{Separate, Sum} {
				if combine == Sum && len(pr.ks) == 1 {
					continue
				}
				name := pr.name + "/" + mode.String() + "/" + combine.String()
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					ks := pr.ks
					if combine == Sum {
						n := ks[0].SymmetricDim()
						sum := mat.NewSymDense(n, nil)
						for _, k := range ks {
							sum.AddSym(sum, k)
						}
						ks = []mat.Symmetric{sum}
					}
					probe, err := Fit(ks, pr.cs, &Settings{Beta: 1, Mode: mode})
					if err != nil {
						t.Fatal(err)
					}
					bmin := probe.Stats.MinBeta
					if !(bmin > 0) || math.IsInf(bmin, 0) {
						t.Fatalf("MinBeta = %g, want a finite positive value on noisy comparisons", bmin)
					}
					for _, c := range []struct {
						factor float64
						zero   bool
					}{{0.98, true}, {1.02, false}} {
						beta := c.factor * bmin
						ref, err := reference.Barrier(ks, pr.cs, beta, mode == Diag)
						if err != nil {
							t.Fatalf("reference at %g·β_min: %v", c.factor, err)
						}
						m, err := Fit(ks, pr.cs, &Settings{Beta: beta, Mode: mode})
						if err != nil {
							t.Fatal(err)
						}
						if c.zero {
							if math.Abs(ref.Objective-beta) > 1e-6*beta {
								t.Errorf("at %g·β_min the exact optimum %.10g is not W = 0's objective β = %.10g", c.factor, ref.Objective, beta)
							}
							if !m.IsZero() {
								t.Errorf("at %g·β_min the fit is not W = 0 (objective %.10g, β %.10g)", c.factor, m.Objective, beta)
							}
						} else {
							if ref.Objective > beta*(1-1e-6) {
								t.Errorf("at %g·β_min the exact optimum %.10g is not below W = 0's %.10g", c.factor, ref.Objective, beta)
							}
							if m.IsZero() || m.Objective >= beta {
								t.Errorf("at %g·β_min the fit is W = 0 or no better (objective %.10g, β %.10g)", c.factor, m.Objective, beta)
							}
						}
					}
				})
			}
		}
	}
}

// TestMinBetaSameForEveryMethod checks that the subgradient method, which
// works in the paper's W-space, reports the β_min of the default solver's
// eigenbasis problem, and that it does not depend on the β of the fit.
func TestMinBetaSameForEveryMethod(t *testing.T) {
	t.Parallel()
	pr := smallProblems()[1]
	want, err := Fit(pr.ks, pr.cs, &Settings{Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Settings{{Beta: 100}, {Beta: 1, Solver: Subgradient, MaxIter: 10}} {
		m, err := Fit(pr.ks, pr.cs, &s)
		if err != nil {
			t.Fatal(err)
		}
		if m.Stats.MinBeta != want.Stats.MinBeta {
			t.Errorf("%+v: MinBeta %.17g, want %.17g", s, m.Stats.MinBeta, want.Stats.MinBeta)
		}
	}
}

// TestMinBetaAnsweredAtOnce: at β ≤ β_min every method, full or diagonal,
// with or without a rank bound, returns W = 0 without an iteration,
// certified with gap 0 at objective β (route, atMinBeta).
func TestMinBetaAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	pr := smallProblems()[1]
	probe, err := Fit(pr.ks, pr.cs, &Settings{Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	beta := 0.98 * probe.Stats.MinBeta
	for _, s := range []Settings{
		{Solver: Accelerated}, {Solver: Accelerated, Mode: Diag}, {Solver: LowRank}, {Solver: ALM},
		{Solver: Auto}, {Solver: Subgradient}, {Solver: Subgradient, Mode: Diag}, {Rank: 2},
	} {
		s.Beta = beta
		t.Run(fmt.Sprintf("%s/%s/rank%d", s.Solver, s.Mode, s.Rank), func(t *testing.T) {
			m, err := Fit(pr.ks, pr.cs, &s)
			if err != nil {
				t.Fatal(err)
			}
			if !m.IsZero() || m.Objective != beta || m.Stats.RelativeGap != 0 || m.Stats.Iterations != 0 || m.Stats.Status != StatusCertified {
				t.Errorf("zero %v, objective %.17g (β %.17g), gap %g, %d iterations, status %q; want W = 0 at once, certified",
					m.IsZero(), m.Objective, beta, m.Stats.RelativeGap, m.Stats.Iterations, m.Stats.Status)
			}
		})
	}
}

// TestMinBetaWithoutComparisons: with no comparison W = 0 is optimal at
// every β.
func TestMinBetaWithoutComparisons(t *testing.T) {
	t.Parallel()
	m, err := FitIdentity(4, nil, &Settings{Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(m.Stats.MinBeta, 1) {
		t.Errorf("MinBeta = %g without comparisons, want +Inf", m.Stats.MinBeta)
	}
	if m.Objective != 0 || m.Stats.RelativeGap != 0 || m.Stats.Status != StatusCertified {
		t.Errorf("objective %g, gap %g, status %q without comparisons; want 0, 0, certified", m.Objective, m.Stats.RelativeGap, m.Stats.Status)
	}
}

// TestMinBetaLanczosMatchesDense holds the Lanczos β_min (large blocks) to
// the dense eigendecomposition's on GNMDS and on two kernels in their
// eigenbasis.
func TestMinBetaLanczosMatchesDense(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 5))
	n := 150
	hidden := testproblems.Features(rng, n, 4)
	cs := testproblems.Comparisons(rng, hidden, 3000, 0.1, testproblems.TripletsIf(true), 0)
	x := mat.NewDense(n, 4, nil)
	x.Add(hidden, testproblems.Features(rng, n, 4))
	for _, tc := range []struct {
		name string
		in   input
	}{
		{"identity", input{kind: InputIdentity, n: n, numInputs: 1}},
		{"kernels", input{kind: InputKernels, n: n, numInputs: 2, kernels: []mat.Symmetric{testproblems.RBF(x), testproblems.Linear(testproblems.Features(rng, n, 6))}}},
	} {
		blocks, _ := formulation(tc.in, Full, true, kernelCut{relTol: 1e-10}, basisSource{})
		p := newProblem(n, blocks, cs, 1)
		dense := p.minBeta()
		alpha := make([]float64, len(cs))
		for c := range alpha {
			alpha[c] = 1 / float64(len(cs))
		}
		lanczos := p.minBetaLanczos(alpha, nil)
		if d := relDiff(lanczos, dense); d > 1e-8 {
			t.Errorf("%s: Lanczos β_min %.12g, dense %.12g (relative difference %.2g)", tc.name, lanczos, dense, d)
		}
		if lanczos > dense*(1+1e-12) {
			t.Errorf("%s: Lanczos β_min %.15g above the dense %.15g: W = 0 would be claimed optimal where it is not", tc.name, lanczos, dense)
		}
	}
}

// TestMinBetaWithoutFitting: MinBeta equals the Stats.MinBeta of a fit for
// every mode and combination, and validates its inputs like Fit.
func TestMinBetaWithoutFitting(t *testing.T) {
	t.Parallel()
	for _, pr := range smallProblems()[:4] {
		for _, s := range []Settings{{Mode: Full}, {Mode: Diag}, {Mode: Full, Combine: Sum}} {
			got, err := MinBeta(pr.ks, pr.cs, &s)
			if err != nil {
				t.Fatal(err)
			}
			fs := s
			fs.Beta, fs.MaxIter = 1, 1
			m, err := Fit(pr.ks, pr.cs, &fs)
			if err != nil {
				t.Fatal(err)
			}
			if got != m.Stats.MinBeta {
				t.Errorf("%s %+v: MinBeta %.17g, the fit's %.17g", pr.name, s, got, m.Stats.MinBeta)
			}
		}
	}
	if _, err := MinBeta(nil, nil, nil); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("no kernels: error %v, want an invalid-input error", err)
	}
}
