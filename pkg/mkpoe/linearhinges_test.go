package mkpoe

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestLinearizeAndPin checks the bookkeeping of linearised hinges on
// hand-set margins: which comparisons move to set.linear, which come back
// pinned, when a round must be redone, and that a set never loses its
// last constraint row.
func TestLinearizeAndPin(t *testing.T) {
	//            0    1     2    3     4    5
	m := []float64{2, 0.5, 0.05, -1, 0.2, 0.3}
	tests := []struct {
		name       string
		comps      []int
		pinned     []int
		keep       bool
		margin     float64
		wantComps  []int
		wantLinear []int
	}{
		{"above the margin", []int{0, 1, 2, 3, 4, 5}, nil, false, 0.1, []int{2, 3}, []int{0, 1, 4, 5}},
		{"pinned stay rows", []int{0, 1, 2, 3, 4, 5}, []int{1, 4}, false, 0.1, []int{1, 2, 3, 4}, []int{0, 5}},
		{"first round's margin", []int{0, 1, 2, 3, 4, 5}, nil, false, 1, []int{1, 2, 3, 4, 5}, []int{0}},
		{"never the last row", []int{0, 1}, nil, false, 0.1, []int{0, 1}, nil},
		{"hinges kept", []int{0, 1, 2, 3, 4, 5}, nil, true, 0.1, []int{0, 1, 2, 3, 4, 5}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := workingSet{comps: append([]int(nil), tc.comps...), pinned: make([]bool, len(m)), keepHinges: tc.keep}
			for _, c := range tc.pinned {
				set.pinned[c] = true
			}
			set.linearize(m, tc.margin)
			if !reflect.DeepEqual(set.comps, tc.wantComps) || !reflect.DeepEqual(set.linear, tc.wantLinear) {
				t.Errorf("comps %v, linear %v; want %v, %v", set.comps, set.linear, tc.wantComps, tc.wantLinear)
			}
		})
	}

	t.Run("pin", func(t *testing.T) {
		set := workingSet{comps: []int{2}, linear: []int{0, 1, 4, 5}, pinned: make([]bool, len(m))}
		// After the round comparison 4 sits at 0.02 (still linear at the
		// solution, pinned but no redo) and 5 at −0.1 (wrong: redo).
		after := []float64{2, 0.5, 0.05, -1, 0.02, -0.1}
		if !set.pinLinear(after, linearMargin/2) {
			t.Error("a linearised comparison ended below margin 0 and pinLinear did not ask for a redo")
		}
		if want := []int{2, 4, 5}; !reflect.DeepEqual(set.comps, want) || !reflect.DeepEqual(set.linear, []int{0, 1}) {
			t.Errorf("comps %v, linear %v; want %v, [0 1]", set.comps, set.linear, want)
		}
		if !set.pinned[4] || !set.pinned[5] || set.pinned[0] {
			t.Errorf("pinned %v; want 4 and 5 only", set.pinned)
		}
		set.linearize(after, linearMargin)
		if !reflect.DeepEqual(set.linear, []int{0, 1}) {
			t.Errorf("pinned comparisons were linearised again: linear %v", set.linear)
		}
		set2 := workingSet{comps: []int{2}, linear: []int{0, 4}, pinned: make([]bool, len(m))}
		if set2.pinLinear([]float64{2, 0, 0, 0, 0.02, 0}, linearMargin/2) {
			t.Error("redo asked for, though every linearised comparison ended at margin ≥ 0")
		}
		set.keepAllHinges()
		if want := []int{0, 1, 2, 4, 5}; !reflect.DeepEqual(set.comps, want) || len(set.linear) != 0 || !set.keepHinges {
			t.Errorf("after keepAllHinges: comps %v, linear %v, keepHinges %v; want %v, none, true", set.comps, set.linear, set.keepHinges, want)
		}
	})
}

// TestRestrictLinearHinges: the restricted problem with linearised
// comparisons L is the one that keeps them as rows, less those rows, with
// μ·Σ_L b_c added to the cost and μ|L| to the constant.
func TestRestrictLinearHinges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	n := 9
	ks := []mat.Symmetric{linearKernel(randomFeatures(rng, n, 4)), rbfKernel(randomFeatures(rng, n, 3))}
	cs := randomComparisons(rng, randomFeatures(rng, n, 2), 30, 0.2, false)
	in := input{kind: InputKernels, n: n, kernels: ks, numInputs: len(ks)}
	blocks, _ := formulation(in, Diag, true, 1e-10)
	p := newProblem(n, blocks, cs, 1e4)
	all := make([]int, len(p.left))
	for c := range all {
		all[c] = c
	}
	set := p.wholeSet(all)
	set.coords[0] = set.coords[0][1:] // a working set, not everything
	whole, _ := p.restrict(set)

	lin := []int{1, 4, 5, 17, 29}
	set.linear = lin
	set.comps = nil
	for c := range all {
		if !slices.Contains(lin, c) {
			set.comps = append(set.comps, c)
		}
	}
	cut, _ := p.restrict(set)

	mu := p.beta / float64(len(p.left))
	wantC := append([]float64(nil), whole.c...)
	for _, c := range lin {
		floats.AddScaled(wantC, mu, whole.b.RawRowView(c))
	}
	if !floats.EqualApprox(cut.c, wantC, 1e-12*floats.Norm(wantC, 1)) {
		t.Errorf("cost %v, want %v", cut.c, wantC)
	}
	if want := mu * float64(len(lin)); cut.offset != want || whole.offset != 0 {
		t.Errorf("offset %g (whole %g), want %g (0)", cut.offset, whole.offset, want)
	}
	if r, _ := cut.b.Dims(); r != len(set.comps) || cut.nT != len(set.comps) {
		t.Fatalf("B has %d rows, nT %d; want %d", r, cut.nT, len(set.comps))
	}
	for r, c := range set.comps {
		if !floats.Equal(cut.b.RawRowView(r), whole.b.RawRowView(c)) {
			t.Errorf("row %d (comparison %d) differs from the whole problem's", r, c)
		}
	}
}

// TestLinearisedHingesMatchExactOptimum fits noisy diagonal problems at
// large β, where most comparisons are violated at the optimum and the
// crossover linearises them, and holds every fit to the exact optimum
// (reference.Barrier through checkExact; gonum's simplex method,
// reference.DiagonalLP, agrees with it to 1e-9 on these problems but takes
// 2 s each): as the crossover runs by default; with the first round linearising every comparison above margin
// −0.5, so that rounds pin comparisons and are redone; and with one Newton
// step per linearised round, so that every such round gives up and the fit
// goes on with every hinge kept. Each variant must take its path on at
// least one of the problems.
func TestLinearisedHingesMatchExactOptimum(t *testing.T) {
	savedFirst, savedSteps := firstLinearMargin, linearRoundSteps
	defer func() { firstLinearMargin, linearRoundSteps, crossoverRoundHook = savedFirst, savedSteps, nil }()
	type counts struct{ rounds, linearRounds, pinned, gaveUp int }
	variants := []struct {
		name  string
		first float64
		steps int
		took  func(c counts) bool
		path  string
	}{
		{"default", savedFirst, savedSteps, func(c counts) bool { return c.linearRounds > 0 }, "linearised a hinge"},
		{"pinning", -0.5, savedSteps, func(c counts) bool { return c.pinned > 0 }, "pinned a comparison"},
		{"giving_up", savedFirst, 1, func(c counts) bool { return c.gaveUp > 0 }, "gave up a linearised round"},
	}
	total := make([]counts, len(variants))
	for _, seed := range []uint64{1, 2} {
		rng := rand.New(rand.NewPCG(seed, 2026))
		n := 24
		hidden := randomFeatures(rng, n, 3)
		x := mat.NewDense(n, 3, nil)
		x.Add(hidden, randomFeatures(rng, n, 3))
		ks := []mat.Symmetric{linearKernel(randomFeatures(rng, n, 4)), rbfKernel(x), identityKernel(n)}
		cs := randomComparisons(rng, hidden, 240, 0.3, seed == 1)
		for _, beta := range []float64{1e4, 1e7} {
			hc := highBetaCase{kind: hbDiag, n: n, ks: ks, cs: cs, beta: beta}
			ref, err := hc.exact()
			if err != nil {
				t.Fatal(err)
			}
			for vi, v := range variants {
				t.Run(fmt.Sprintf("seed%d_beta%g_%s", seed, beta, v.name), func(t *testing.T) {
					firstLinearMargin, linearRoundSteps = v.first, v.steps
					var c counts
					crossoverRoundHook = func(set *workingSet, err error) {
						c.rounds++
						if len(set.linear) > 0 {
							c.linearRounds++
							if errors.Is(err, errIPMStalled) || errors.Is(err, errBelowFloor) {
								c.gaveUp++
							}
						}
						// Pinned by the rounds before this one.
						c.pinned = 0
						for _, p := range set.pinned {
							if p {
								c.pinned++
							}
						}
					}
					start := time.Now()
					m, err := Fit(ks, cs, &Settings{Beta: beta, Mode: Diag})
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("rounds %+v", c)
					checkExact(t, hc, ref, m, time.Since(start))
					total[vi].rounds += c.rounds
					total[vi].linearRounds += c.linearRounds
					total[vi].gaveUp += c.gaveUp
					total[vi].pinned += c.pinned
				})
			}
		}
	}
	for vi, v := range variants {
		if !v.took(total[vi]) {
			t.Errorf("%s: no fit %s (%+v)", v.name, v.path, total[vi])
		}
	}
}
