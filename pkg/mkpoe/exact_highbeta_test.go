package mkpoe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/reference"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

// The default solver must certify a relative gap of 1e-3 at any β up to
// 1e7, where β/|𝒞| dwarfs the trace regulariser and the problem is close to
// a hard-margin SDP/LP (realizable comparisons) or to minimising the hinge
// loss alone (unrealizable ones). These tests hold it to that on small
// problems against the exact optimum of package reference (certified to
// about 1e-10 at these β, see reference_test.go).

// highBetaKind names the formulation a case exercises.
type highBetaKind int

const (
	hbFull     highBetaKind = iota // MKPOE (Alg. 4), one full W per kernel
	hbDiag                         // MKPOE with diagonal W (Sec. 4.4)
	hbSum                          // K₁: one W on the summed kernel (Settings.Combine = Sum)
	hbIdentity                     // GNMDS: FitIdentity, K = I
	hbFeatures                     // LPOE: FitFeatures (Alg. 2), equal to KPOE on XXᵀ
)

type highBetaCase struct {
	name string
	kind highBetaKind
	n    int
	ks   []mat.Symmetric // kernels (hbFull, hbDiag, hbSum)
	x    *mat.Dense      // features (hbFeatures)
	cs   []data.Comparison
	beta float64
	tune *tuning // the solver's tuning (nil: defaultTuning)
}

func identityKernel(n int) *mat.SymDense {
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		k.SetSym(i, i, 1)
	}
	return k
}

// highBetaComparisons draws count comparisons consistent with the rows of
// hidden (realizable) or, unless realizable, flips 15% of them and appends
// three comparisons that directly contradict earlier ones (c and its
// reverse), so that no metric satisfies them all.
func highBetaComparisons(rng *rand.Rand, hidden *mat.Dense, count int, realizable bool) []data.Comparison {
	if realizable {
		return testproblems.Comparisons(rng, hidden, count, 0, testproblems.TripletsIf(rng.IntN(2) == 0), 0)
	}
	cs := testproblems.Comparisons(rng, hidden, count-3, 0.15, testproblems.TripletsIf(rng.IntN(2) == 0), 0)
	for q := 0; q < 3; q++ {
		cs = append(cs, cs[q].Reverse())
	}
	return cs
}

// highBetaCases returns the table: six seeded problems (MKPOE full with
// three and with two kernels, MKPOE diagonal, K₁ sum, GNMDS, LPOE), each
// with realizable and unrealizable comparisons, at β = 1e4 … 1e7.
func highBetaCases() []highBetaCase {
	type spec struct {
		name    string
		kind    highBetaKind
		n, c    int
		kernels string // l = linear (rank 3, deficient), r = RBF (full rank), i = identity
	}
	specs := []spec{
		{"mkpoe_full_lri", hbFull, 10, 50, "lri"},
		{"mkpoe_full_rl", hbFull, 13, 56, "rl"},
		{"mkpoe_diag_lri", hbDiag, 12, 50, "lri"},
		{"k1sum_rl", hbSum, 13, 55, "rl"},
		{"gnmds", hbIdentity, 12, 60, ""},
		{"lpoe", hbFeatures, 15, 60, ""},
	}
	var out []highBetaCase
	for si, sp := range specs {
		for _, realizable := range []bool{true, false} {
			rng := rand.New(rand.NewPCG(uint64(101+si), 2011))
			if !realizable {
				rng = rand.New(rand.NewPCG(uint64(201+si), 2011))
			}
			hidden := testproblems.Features(rng, sp.n, 3)
			pc := highBetaCase{kind: sp.kind, n: sp.n}
			for _, k := range sp.kernels {
				switch k {
				case 'l':
					pc.ks = append(pc.ks, testproblems.Linear(testproblems.Features(rng, sp.n, 3)))
				case 'r':
					x := mat.NewDense(sp.n, 3, nil)
					x.Add(hidden, testproblems.Features(rng, sp.n, 3))
					pc.ks = append(pc.ks, testproblems.RBF(x))
				case 'i':
					pc.ks = append(pc.ks, identityKernel(sp.n))
				}
			}
			if sp.kind == hbFeatures {
				// The hidden embedding plus one noise feature: realizable
				// comparisons are realizable by a linear metric.
				pc.x = mat.NewDense(sp.n, 4, nil)
				for i := 0; i < sp.n; i++ {
					for j := 0; j < 3; j++ {
						pc.x.Set(i, j, hidden.At(i, j))
					}
					pc.x.Set(i, 3, rng.NormFloat64())
				}
			}
			pc.cs = highBetaComparisons(rng, hidden, sp.c, realizable)
			tag := "realizable"
			if !realizable {
				tag = "noisy"
			}
			for _, beta := range []float64{1e4, 1e5, 1e6, 1e7} {
				c := pc
				c.beta = beta
				c.name = fmt.Sprintf("%s_%s_n%d_c%d_beta%g", sp.name, tag, sp.n, len(pc.cs), beta)
				out = append(out, c)
			}
		}
	}
	return out
}

// exact returns the reference optimum of a case.
func (c highBetaCase) exact() (*reference.Result, error) {
	switch c.kind {
	case hbFull, hbDiag:
		return reference.Barrier(c.ks, c.cs, c.beta, c.kind == hbDiag)
	case hbSum:
		sum := mat.NewSymDense(c.n, nil)
		for _, k := range c.ks {
			sum.AddSym(sum, k)
		}
		return reference.Barrier([]mat.Symmetric{sum}, c.cs, c.beta, false)
	case hbIdentity:
		return reference.Barrier([]mat.Symmetric{identityKernel(c.n)}, c.cs, c.beta, false)
	case hbFeatures:
		// LPOE's tr(W) on X equals KPOE's tr(WK) on K = XXᵀ at the optimum
		// (TestLPOEMatchesKPOEOnLinearKernel).
		k := mat.NewSymDense(c.n, nil)
		k.SymOuterK(1, c.x)
		return reference.Barrier([]mat.Symmetric{k}, c.cs, c.beta, false)
	}
	panic("unknown kind")
}

// fit runs the solver under test on a case.
func (c highBetaCase) fit(maxIter int) (*Model, error) {
	return c.fitWith(&Settings{Beta: c.beta, MaxIter: maxIter, tuning: c.tune})
}

// fitWith runs the solver under test on a case with settings s (Beta,
// MaxIter, Init); the case sets Mode and Combine.
func (c highBetaCase) fitWith(s *Settings) (*Model, error) {
	switch c.kind {
	case hbFull:
		return Fit(c.ks, c.cs, s)
	case hbDiag:
		s.Mode = Diag
		return Fit(c.ks, c.cs, s)
	case hbSum:
		s.Combine = Sum
		return Fit(c.ks, c.cs, s)
	case hbIdentity:
		return FitIdentity(c.n, c.cs, s)
	case hbFeatures:
		return FitFeatures(c.x, c.cs, s)
	}
	panic("unknown kind")
}

// objectiveOf evaluates the objective of the returned metrics directly in
// the paper's W-space, independently of the solver's own bookkeeping.
func (c highBetaCase) objectiveOf(ws []*mat.SymDense) float64 {
	// Each block is a metric W on vectors z_i (kernel columns or features)
	// with regulariser tr(W R): R = K for kernels, I for features.
	var zs []*mat.Dense
	var regs []mat.Symmetric
	switch c.kind {
	case hbFull, hbDiag:
		for _, k := range c.ks {
			zs = append(zs, mat.DenseCopyOf(k))
			regs = append(regs, k)
		}
	case hbSum:
		sum := mat.NewSymDense(c.n, nil)
		for _, k := range c.ks {
			sum.AddSym(sum, k)
		}
		zs, regs = []*mat.Dense{mat.DenseCopyOf(sum)}, []mat.Symmetric{sum}
	case hbIdentity:
		id := identityKernel(c.n)
		zs, regs = []*mat.Dense{mat.DenseCopyOf(id)}, []mat.Symmetric{id}
	case hbFeatures:
		xt := mat.DenseCopyOf(c.x.T()) // columns are items
		_, d := c.x.Dims()
		zs, regs = []*mat.Dense{xt}, []mat.Symmetric{identityKernel(d)}
	}
	f := 0.0
	for p, w := range ws {
		r := w.SymmetricDim()
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				f += w.At(i, j) * regs[p].At(j, i)
			}
		}
	}
	dist := func(p, a, b int) float64 {
		z := zs[p]
		r, _ := z.Dims()
		v := mat.NewVecDense(r, nil)
		for t := 0; t < r; t++ {
			v.SetVec(t, z.At(t, a)-z.At(t, b))
		}
		return mat.Inner(v, ws[p], v)
	}
	for _, cmp := range c.cs {
		m := 1.0
		for p := range ws {
			m += dist(p, cmp.I, cmp.J) - dist(p, cmp.K, cmp.L)
		}
		f += c.beta / float64(len(c.cs)) * math.Max(0, m)
	}
	return f
}

// highBetaMaxIter is Settings.MaxIter for the high-β tests: 0 (the default)
// unless MKPOE_HIGHBETA_MAXITER is set, to bound runs while the solver is
// being developed.
func highBetaMaxIter(t *testing.T) int {
	v := os.Getenv("MKPOE_HIGHBETA_MAXITER")
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("MKPOE_HIGHBETA_MAXITER=%q: %v", v, err)
	}
	return n
}

// guardedOutcome is the result of a Fit call run under guard.
type guardedOutcome struct {
	m        *Model
	err      error
	panicked any
	stack    []byte
	elapsed  time.Duration
}

// runGuarded runs f in a goroutine, turning a panic into a value, and
// gives up after timeout (reporting done = false; the goroutine is left
// running, which only matters for a test that has already failed).
func runGuarded(timeout time.Duration, f func() (*Model, error)) (out guardedOutcome, done bool) {
	ch := make(chan guardedOutcome, 1)
	start := time.Now()
	go func() {
		var o guardedOutcome
		defer func() {
			if r := recover(); r != nil {
				o.panicked, o.stack = r, debug.Stack()
			}
			o.elapsed = time.Since(start)
			ch <- o
		}()
		o.m, o.err = f()
	}()
	select {
	case o := <-ch:
		return o, true
	case <-time.After(timeout):
		return guardedOutcome{elapsed: timeout}, false
	}
}

func TestFitMatchesExactOptimumHighBeta(t *testing.T) {
	t.Parallel()
	maxIter := highBetaMaxIter(t)
	start := time.Now()
	for _, c := range highBetaCases() {
		t.Run(c.name, func(t *testing.T) { fitAndCheckExact(t, c, maxIter) })
	}
	t.Logf("total %.1fs", time.Since(start).Seconds())
}

// TestFitOtherNewtonTermsMatchExactOptimum runs the high-β cases whose
// blocks are full, at β = 1e4 and 1e7, with the other way of forming the
// small blocks' terms of the comparison-space Newton matrix than the
// build's default (conic.Settings.LowOrderMax: a matrix product with OpenBLAS, look-ups
// in pure Go), so that both ways are held to the exact optimum in either
// build. Every block of these cases has order at most 13.
func TestFitOtherNewtonTermsMatchExactOptimum(t *testing.T) {
	t.Parallel()
	tune := defaultTuning()
	if tune.conic.LowOrderMax > 0 {
		tune.conic.LowOrderMax = 0
	} else {
		tune.conic.LowOrderMax = 12
	}
	maxIter := highBetaMaxIter(t)
	for _, c := range highBetaCases() {
		if c.kind == hbDiag || (c.beta != 1e4 && c.beta != 1e7) {
			continue
		}
		c.tune = tune
		t.Run(c.name, func(t *testing.T) { fitAndCheckExact(t, c, maxIter) })
	}
}

// fitAndCheckExact fits case c (within 60 s, without panicking) and holds
// it to the exact optimum (checkExact).
func fitAndCheckExact(t *testing.T, c highBetaCase, maxIter int) {
	t.Helper()
	ref, err := c.exact()
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	out, done := runGuarded(60*time.Second, func() (*Model, error) { return c.fit(maxIter) })
	if !done {
		t.Fatalf("Fit did not return within 60 s")
	}
	if out.panicked != nil {
		t.Fatalf("Fit panicked: %v\n%s", out.panicked, out.stack)
	}
	if out.err != nil {
		t.Fatalf("Fit: %v", out.err)
	}
	checkExact(t, c, ref, out.m, out.elapsed)
}

// checkExact holds a fit m of case c to the exact optimum ref: objective
// within 1e-3, bound never above the optimum, certified gap ≤ 1e-3, and the
// reported objective equal to that of the returned W.
func checkExact(t *testing.T, c highBetaCase, ref *reference.Result, m *Model, elapsed time.Duration) {
	t.Helper()
	st := m.Stats
	t.Logf("objective %.10g, exact %.10g (certified to %.1g): rel. error %.2g; bound %.10g, gap %.2g, converged %v, %d iterations, %.2fs",
		m.Objective, ref.Objective, ref.Gap/ref.Objective, math.Abs(m.Objective-ref.Objective)/m.Objective,
		st.DualBound, st.RelativeGap, st.Converged, st.Iterations, elapsed.Seconds())
	// Relative to the returned objective, as the solver's certificate
	// is (f − bound ≤ Tol·f).
	if d := math.Abs(m.Objective-ref.Objective) / m.Objective; !(d <= 1e-3) {
		t.Errorf("objective %.10g, exact optimum %.10g: difference %.3g of the objective > 1e-3", m.Objective, ref.Objective, d)
	}
	if m.Objective < ref.DualBound*(1-1e-7) {
		t.Errorf("objective %.12g below the certified lower bound %.12g on the optimum", m.Objective, ref.DualBound)
	}
	// ref.Objective is the value of a feasible point, ≥ the optimum.
	if st.DualBound > ref.Objective*(1+1e-9)+1e-12 {
		t.Errorf("dual bound %.12g exceeds the optimum %.12g", st.DualBound, ref.Objective)
	}
	if !st.Converged {
		t.Errorf("not converged after %d iterations", st.Iterations)
	}
	if !(st.RelativeGap <= 1e-3) {
		t.Errorf("certified relative gap %.3g > 1e-3", st.RelativeGap)
	}
	// The reported objective is that of the returned metrics.
	if f := c.objectiveOf(metrics(m)); relDiff(f, m.Objective) > 1e-6 {
		t.Errorf("objective of the returned W is %.12g, reported %.12g", f, m.Objective)
	}
}

// TestFitWarmPathMatchesExactOptimum runs every high-β case as the
// harness's β sweep does (β = 1e3 … 1e7, each fit warm-started from the
// previous one, Settings.Init) and holds every fit to the exact optimum.
// Once the solution stops changing with β, the previous fit's dual point
// certifies it without solving (warmCertificate): the realizable chains
// must show such fits (0 iterations). Then a foreign Init (another
// problem's fit with the same number of comparisons) must still give a
// valid certificate.
func TestFitWarmPathMatchesExactOptimum(t *testing.T) {
	t.Parallel()
	cases := highBetaCases()
	var chains [][]highBetaCase
	for _, c := range cases {
		if c.beta == 1e4 {
			lo := c
			lo.beta = 1e3
			lo.name = strings.Replace(c.name, "_beta10000", "_beta1000", 1)
			chains = append(chains, []highBetaCase{lo})
		}
		chains[len(chains)-1] = append(chains[len(chains)-1], c)
	}
	var last *Model
	for _, chain := range chains {
		var prev *Model
		warm := 0
		for _, c := range chain {
			t.Run("warm_"+c.name, func(t *testing.T) {
				ref, err := c.exact()
				if err != nil {
					t.Fatalf("reference: %v", err)
				}
				start := time.Now()
				firstOrder := 0
				rec := func(it Iteration) {
					if it.Stage == StageAccelerated {
						firstOrder++
					}
				}
				m, err := c.fitWith(&Settings{Beta: c.beta, Init: prev, Recorder: rec})
				if err != nil {
					t.Fatalf("Fit: %v", err)
				}
				checkExact(t, c, ref, m, time.Since(start))
				if m.Stats.Iterations == 0 {
					warm++
				}
				// A diagonal fit warm-started from a nonzero W goes straight
				// to the interior-point stage (acceleratedMethod).
				if c.kind == hbDiag && prev != nil && !prev.IsZero() && firstOrder > 0 {
					t.Errorf("warm-started from a nonzero W, the fit ran %d first-order iterations", firstOrder)
				}
				prev = m
			})
		}
		if strings.Contains(chain[0].name, "_realizable_") && warm == 0 {
			t.Errorf("%s: no fit of the realizable chain was certified by the warm start", chain[0].name)
		}
		// Foreign Init: the last chain's final fit on this chain's first
		// problem (same kind and size only when the chains are twins).
		if last != nil && last.N == prev.N && last.Blocks() == prev.Blocks() && len(last.dual) == len(prev.dual) {
			c := chain[len(chain)-1]
			ref, err := c.exact()
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			m, err := c.fitWith(&Settings{Beta: c.beta, Init: last})
			if err == nil {
				t.Run("foreign_init_"+c.name, func(t *testing.T) { checkExact(t, c, ref, m, 0) })
			}
		}
		last = prev
	}
}

// TestFitDegenerateInputs: degenerate or invalid inputs give an error or
// the trivial solution, promptly, and never a panic or a hang.
func TestFitDegenerateInputs(t *testing.T) {
	t.Parallel()
	const n = 8
	rng := rand.New(rand.NewPCG(77, 3))
	hidden := testproblems.Features(rng, n, 2)
	cs := testproblems.Comparisons(rng, hidden, 30, 0.1, testproblems.TripletsIf(true), 0)
	good := testproblems.RBF(testproblems.Features(rng, n, 3))
	withEntry := func(v float64) *mat.SymDense {
		k := mat.NewSymDense(n, nil)
		k.CopySym(good)
		k.SetSym(2, 5, v)
		return k
	}
	zero := mat.NewSymDense(n, nil)
	small := testproblems.RBF(testproblems.Features(rng, n-1, 3))
	x := testproblems.Features(rng, n, 3)
	xNaN := mat.DenseCopyOf(x)
	xNaN.Set(4, 1, math.NaN())

	// check inspects a returned model or error; wantErr lists substrings
	// the lower-cased error must contain (nil: an error is not required).
	type check func(t *testing.T, m *Model, err error)
	mustErr := func(subs ...string) check {
		return func(t *testing.T, m *Model, err error) {
			if err == nil {
				t.Fatalf("got a model (objective %g), want an error", m.Objective)
			}
			msg := strings.ToLower(err.Error())
			for _, s := range subs {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		}
	}
	// zeroModel accepts an error, or a model with W = 0 and the given
	// objective (that of W = 0).
	zeroModel := func(errAllowed bool, objective float64) check {
		return func(t *testing.T, m *Model, err error) {
			if err != nil {
				if !errAllowed {
					t.Fatalf("error %v, want W = 0", err)
				}
				return
			}
			for p, w := range metrics(m) {
				r, c := w.Dims()
				for i := 0; i < r; i++ {
					for j := 0; j < c; j++ {
						if v := w.At(i, j); !(math.Abs(v) <= 1e-9) {
							t.Fatalf("W[%d](%d,%d) = %g, want W = 0", p, i, j, v)
						}
					}
				}
			}
			if math.Abs(m.Objective-objective) > 1e-9*math.Max(1, objective) {
				t.Errorf("objective %g, want %g", m.Objective, objective)
			}
		}
	}
	fitK := func(ks []mat.Symmetric, cs []data.Comparison, s Settings) func() (*Model, error) {
		return func() (*Model, error) { return Fit(ks, cs, &s) }
	}
	outOfRange := append([]data.Comparison(nil), cs...)
	outOfRange[7] = data.Comparison{I: 1, J: n, K: 1, L: 2}
	negative := append([]data.Comparison(nil), cs...)
	negative[3] = data.Comparison{I: -1, J: 0, K: 2, L: 3}

	cases := []struct {
		name  string
		fit   func() (*Model, error)
		check check
	}{
		// A zero kernel: no metric changes any distance, every hinge term
		// is 1, so f = β at W = 0, the optimum.
		{"zero_kernel_full", fitK([]mat.Symmetric{zero}, cs, Settings{Beta: 10}), zeroModel(false, 10)},
		{"zero_kernel_diag", fitK([]mat.Symmetric{zero}, cs, Settings{Beta: 10, Mode: Diag}), zeroModel(false, 10)},
		{"zero_kernel_beta1e7", fitK([]mat.Symmetric{zero}, cs, Settings{Beta: 1e7}), zeroModel(false, 1e7)},
		{"zero_kernel_beside_good", fitK([]mat.Symmetric{zero, good}, cs, Settings{Beta: 1e5}), func(t *testing.T, m *Model, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if !m.Stats.Converged || mat.Norm(m.Metric(0), 1) > 1e-9 {
				t.Errorf("converged %v, |W_zero| = %g: want a certified fit with W = 0 on the zero kernel", m.Stats.Converged, mat.Norm(m.Metric(0), 1))
			}
		}},
		{"nan_kernel_entry", fitK([]mat.Symmetric{withEntry(math.NaN())}, cs, Settings{Beta: 10}), mustErr("kernel", "finite")},
		{"inf_kernel_entry", fitK([]mat.Symmetric{withEntry(math.Inf(1))}, cs, Settings{Beta: 10}), mustErr("kernel", "finite")},
		{"nan_kernel_entry_second_of_two_diag", fitK([]mat.Symmetric{good, withEntry(math.NaN())}, cs, Settings{Beta: 10, Mode: Diag}), mustErr("kernel", "finite")},
		{"inf_kernel_entry_sum", fitK([]mat.Symmetric{good, withEntry(math.Inf(1))}, cs, Settings{Beta: 10, Combine: Sum}), mustErr("kernel", "finite")},
		{"nil_kernel_first", fitK([]mat.Symmetric{nil, good}, cs, Settings{Beta: 10}), mustErr("kernel")},
		{"nil_kernel_second", fitK([]mat.Symmetric{good, nil}, cs, Settings{Beta: 10}), mustErr("kernel")},
		{"kernel_sizes_differ", fitK([]mat.Symmetric{good, small}, cs, Settings{Beta: 10}), mustErr("kernel")},
		{"comparison_out_of_range", fitK([]mat.Symmetric{good}, outOfRange, Settings{Beta: 10}), mustErr()},
		{"comparison_negative_index", fitK([]mat.Symmetric{good}, negative, Settings{Beta: 10}), mustErr()},
		{"comparison_out_of_range_identity", func() (*Model, error) { return FitIdentity(n, outOfRange, &Settings{Beta: 10}) }, mustErr()},
		{"nan_feature", func() (*Model, error) { return FitFeatures(xNaN, cs, &Settings{Beta: 10}) }, mustErr("finite")},
		// No comparisons: f = Σ tr(WK), minimised by W = 0.
		{"no_comparisons_beta1e7_full", fitK([]mat.Symmetric{good, testproblems.Linear(x)}, nil, Settings{Beta: 1e7}), zeroModel(false, 0)},
		{"no_comparisons_beta1e7_diag", fitK([]mat.Symmetric{good}, nil, Settings{Beta: 1e7, Mode: Diag}), zeroModel(false, 0)},
		{"no_comparisons_beta1e7_identity", func() (*Model, error) { return FitIdentity(n, nil, &Settings{Beta: 1e7}) }, zeroModel(false, 0)},
		{"no_comparisons_beta1e7_features", func() (*Model, error) { return FitFeatures(x, nil, &Settings{Beta: 1e7}) }, zeroModel(false, 0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, done := runGuarded(10*time.Second, c.fit)
			if !done {
				t.Fatal("Fit did not return within 10 s")
			}
			if out.panicked != nil {
				t.Fatalf("Fit panicked: %v\n%s", out.panicked, out.stack)
			}
			t.Logf("returned after %.3fs, err = %v", out.elapsed.Seconds(), out.err)
			c.check(t, out.m, out.err)
		})
	}
}
