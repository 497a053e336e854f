package cv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"gonum.org/v1/gonum/mat"
)

func TestSplitsPartition(t *testing.T) {
	for _, tc := range []struct {
		n     int
		frac  float64
		folds int
		nTest int
	}{{10, 0.2, 2, 2}, {90, 0.2, 3, 18}, {7, 0.01, 3, 1}, {412, 0.2, 5, 82}} {
		t.Run(fmt.Sprint(tc.n, tc.frac, tc.folds), func(t *testing.T) {
			for s := 0; s < 3; s++ {
				train, test := OuterSplit(tc.n, tc.frac, 9, s)
				if len(test) != tc.nTest {
					t.Errorf("split %d: %d test items, want %d", s, len(test), tc.nTest)
				}
				if all := slices.Sorted(slices.Values(slices.Concat(train, test))); !slices.Equal(all, seq(tc.n)) {
					t.Fatalf("split %d: train ∪ test is not a partition of 0..%d", s, tc.n-1)
				}
				var vals []int
				for f := 0; f < tc.folds; f++ {
					in, val := InnerFold(train, tc.folds, 9, s, f)
					if all := slices.Sorted(slices.Values(slices.Concat(in, val))); !slices.Equal(all, train) {
						t.Fatalf("split %d fold %d: inner train ∪ validation is not the training set", s, f)
					}
					if d := len(val) - len(train)/tc.folds; d < 0 || d > 1 {
						t.Errorf("split %d fold %d: %d validation items of %d", s, f, len(val), len(train))
					}
					vals = append(vals, val...)
				}
				if slices.Sort(vals); !slices.Equal(vals, train) {
					t.Errorf("split %d: validation sets do not partition the training set", s)
				}
			}
			a, _ := OuterSplit(tc.n, tc.frac, 9, 0)
			b, _ := OuterSplit(tc.n, tc.frac, 9, 1)
			if tc.n > 20 && slices.Equal(a, b) {
				t.Error("splits 0 and 1 are equal")
			}
		})
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestMeanCurveAndChooseBeta(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		curves [][]float64
		mean   []float64
		choose int
	}{
		{"hand computed", [][]float64{{0.5, 0.75, 0.5}, {0.75, 0.75, 1}}, []float64{0.625, 0.75, 0.75}, 1},
		{"ties go to the earliest β", [][]float64{{0.5, 0.5}}, []float64{0.5, 0.5}, 0},
		{"an unscored fold is left out", [][]float64{{nan, 0.25}, {0.5, 0.75}}, []float64{0.5, 0.5}, 0},
		{"a β nobody scored is never chosen", [][]float64{{nan, 0.25}, {nan, 0.75}}, []float64{nan, 0.5}, 1},
		{"nothing scored", [][]float64{{nan}, {nan}}, []float64{nan}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mean := MeanCurve(tc.curves)
			if fmt.Sprint(mean) != fmt.Sprint(tc.mean) {
				t.Errorf("MeanCurve = %v, want %v", mean, tc.mean)
			}
			if got := ChooseBeta(mean); got != tc.choose {
				t.Errorf("ChooseBeta = %d, want %d", got, tc.choose)
			}
		})
	}
}

// TestChooseRankBeta: the (rank, β) pair of the best mean validation
// score; ties to the smaller rank, the convex fit (0) counting as the
// largest, then to the earliest β (ChooseBeta).
func TestChooseRankBeta(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name       string
		ranks      []int
		means      [][]float64
		rank, beta int
	}{
		{"the best pair", []int{0, 2, 5}, [][]float64{{0.6, 0.7}, {0.65, 0.8}, {0.75, 0.7}}, 1, 1},
		{"the convex fit wins when best", []int{0, 2}, [][]float64{{0.6, 0.9}, {0.65, 0.8}}, 0, 1},
		{"a tie goes to the smaller rank", []int{5, 2}, [][]float64{{0.8, 0.7}, {0.7, 0.8}}, 1, 1},
		{"a bound beats the convex fit at a tie", []int{0, 10}, [][]float64{{0.8, 0.8}, {0.8, 0.5}}, 1, 0},
		{"within a rank, the earliest β", []int{3}, [][]float64{{0.5, 0.9, 0.9}}, 0, 1},
		{"an unscored rank is skipped", []int{0, 2}, [][]float64{{nan, nan}, {nan, 0.4}}, 1, 1},
		{"nothing scored", []int{0, 2}, [][]float64{{nan}, {nan}}, -1, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if r, b := ChooseRankBeta(tc.ranks, tc.means); r != tc.rank || b != tc.beta {
				t.Errorf("ChooseRankBeta = (%d, %d), want (%d, %d)", r, b, tc.rank, tc.beta)
			}
		})
	}
}

func TestProtocolValidate(t *testing.T) {
	ok := Protocol{Splits: 1, TestFraction: 0.2, InnerFolds: 3, BetaGrid: []float64{1, 10}}
	if err := ok.Validate(20); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Protocol)
		n    int
	}{
		{"no split", func(p *Protocol) { p.Splits = 0 }, 20},
		{"nothing held out", func(p *Protocol) { p.TestFraction = 0 }, 20},
		{"everything held out", func(p *Protocol) { p.TestFraction = 1 }, 20},
		{"one fold", func(p *Protocol) { p.InnerFolds = 1 }, 20},
		{"empty grid", func(p *Protocol) { p.BetaGrid = nil }, 20},
		{"negative β", func(p *Protocol) { p.BetaGrid = []float64{-1, 1} }, 20},
		{"infinite β", func(p *Protocol) { p.BetaGrid = []float64{1, math.Inf(1)} }, 20},
		{"decreasing grid", func(p *Protocol) { p.BetaGrid = []float64{10, 1} }, 20},
		{"more folds than training items", func(p *Protocol) {}, 3},
	} {
		p := ok
		p.BetaGrid = slices.Clone(ok.BetaGrid)
		tc.edit(&p)
		if err := p.Validate(tc.n); err == nil {
			t.Errorf("%s: Validate accepted %+v for n = %d", tc.name, p, tc.n)
		}
	}
}

// recorder is a Learner whose trials score fold f at β number b with
// score[f][b] (the refit: 0.5 + β/1e4) and record every call.
type recorder struct {
	score [][]float64
	calls []string
	items map[FoldID][2][]int
}

func (r *recorder) Trial(id FoldID, train, held []int) (Trial, error) {
	r.items[id] = [2][]int{train, held}
	return &fakeTrial{r: r, id: id}, nil
}

type fakeTrial struct {
	r  *recorder
	id FoldID
}

func (t *fakeTrial) Fit(_ context.Context, beta float64, warm *mkpoe.Model) (*mkpoe.Model, error) {
	w := "cold"
	if warm != nil {
		w = fmt.Sprintf("warm %g", warm.Beta)
	}
	t.r.calls = append(t.r.calls, fmt.Sprintf("s%d f%d fit %g %s", t.id.Split, t.id.Fold, beta, w))
	return &mkpoe.Model{Beta: beta, Objective: beta, Stats: mkpoe.Stats{Iterations: 1, Converged: true}}, nil
}

func (t *fakeTrial) Score(m *mkpoe.Model) (float64, error) {
	if t.id.Fold < 0 {
		return 0.5 + m.Beta/1e4, nil
	}
	return t.r.score[t.id.Fold][int(math.Log10(m.Beta))], nil
}

func TestNestedDrivesTheProtocol(t *testing.T) {
	r := &recorder{score: [][]float64{{0.6, 0.8, 0.7}, {0.6, 0.7, 0.9}}, items: map[FoldID][2][]int{}}
	p := Protocol{Splits: 2, TestFraction: 0.25, InnerFolds: 2, BetaGrid: []float64{1, 10, 100}, Seed: 4}
	res, err := Nested(context.Background(), r, 12, p)
	if err != nil {
		t.Fatal(err)
	}
	// Mean curve (0.6, 0.75, 0.8): β = 100; refit score 0.5 + 0.01.
	for s, sr := range res.Splits {
		if sr.Beta != 100 || sr.Score != 0.51 || fmt.Sprint(sr.Mean) != "[0.6 0.75 0.8]" {
			t.Errorf("split %d: β %g, score %g, curve %v", s, sr.Beta, sr.Score, sr.Mean)
		}
		if sr.Model.Beta != 100 {
			t.Errorf("split %d: refit model at β %g", s, sr.Model.Beta)
		}
		train, test := r.items[Outer(s)][0], r.items[Outer(s)][1]
		if !slices.Equal(train, sr.Train) || !slices.Equal(test, sr.Test) || len(test) != 3 {
			t.Errorf("split %d: refit on %v / %v, result says %v / %v", s, train, test, sr.Train, sr.Test)
		}
		for f := 0; f < 2; f++ {
			in := r.items[FoldID{s, f}]
			for _, i := range slices.Concat(in[0], in[1]) {
				if slices.Contains(test, i) {
					t.Errorf("split %d fold %d uses held-out item %d", s, f, i)
				}
			}
		}
	}
	if res.Mean != 0.51 || res.Std != 0 {
		t.Errorf("mean %g ± %g, want 0.51 ± 0", res.Mean, res.Std)
	}
	want := []string{
		"s0 f0 fit 1 cold", "s0 f0 fit 10 warm 1", "s0 f0 fit 100 warm 10",
		"s0 f1 fit 1 cold", "s0 f1 fit 10 warm 1", "s0 f1 fit 100 warm 10",
		"s0 f-1 fit 100 cold",
	}
	if got := r.calls[:len(want)]; !slices.Equal(got, want) {
		t.Errorf("calls\n%v\nwant\n%v", got, want)
	}
	if len(r.calls) != 2*len(want) {
		t.Errorf("%d fits, want %d", len(r.calls), 2*len(want))
	}
}

// failingTrial fails its second fit.
type failingTrial struct{ fits int }

func (f *failingTrial) Fit(context.Context, float64, *mkpoe.Model) (*mkpoe.Model, error) {
	if f.fits++; f.fits == 2 {
		return nil, errors.New("solver says no")
	}
	return &mkpoe.Model{}, nil
}
func (f *failingTrial) Score(*mkpoe.Model) (float64, error) { return 1, nil }

func TestSweepNamesTheFailingBeta(t *testing.T) {
	pts, err := Sweep(context.Background(), &failingTrial{}, []float64{1, 10, 100})
	if err == nil || err.Error() != "β=10: solver says no" || len(pts) != 1 {
		t.Errorf("Sweep = %v, %v", pts, err)
	}
}

func TestKernelLearnerGramFold(t *testing.T) {
	// A 4-item Gram matrix K[i][j] = 10i + j (symmetrised by SymDense's
	// upper triangle); train {1, 3}, held out {0}.
	k := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			k.SetSym(i, j, float64(10*i+j))
		}
	}
	g, r, err := View{Gram: k}.fold([]int{1, 3}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(g, mat.NewSymDense(2, []float64{11, 13, 13, 33})) || !mat.Equal(r, mat.NewDense(1, 2, []float64{1, 3})) {
		t.Errorf("gram %v rows %v", mat.Formatted(g), mat.Formatted(r))
	}
	if _, _, err := (View{Gram: k}).fold([]int{1, 4}, nil); err == nil {
		t.Error("an item beyond the Gram matrix was accepted")
	}
	l := &KernelLearner{Views: []View{{Gram: k}}, Comparisons: Fixed{data.Triplet(0, 1, 3), data.Triplet(1, 3, 2)}}
	tr, err := l.Trial(Outer(0), []int{1, 2, 3}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	kt := tr.(*kernelTrial)
	if fmt.Sprint(kt.trainCs, kt.heldCs) != "[(0,2,1)] [(3,0,2)]" {
		t.Errorf("comparisons %v %v", kt.trainCs, kt.heldCs)
	}
}

// lineTriplets returns every triplet (i,j,i,k) of n items on a line at
// positions 0..n−1 with |i−j| < |i−k|: a realizable comparison set.
func lineTriplets(n int) []data.Comparison {
	var cs []data.Comparison
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				dj, dk := math.Abs(float64(i-j)), math.Abs(float64(i-k))
				if i != j && i != k && dj < dk {
					cs = append(cs, data.Comparison{I: i, J: j, K: i, L: k})
				}
			}
		}
	}
	return cs
}

// TestComparisonHoldout: GNMDS (K = I) under comparison holdout. The splits
// are drawn over comparison indices (held-out and training comparisons
// disjoint, the inner folds partitioning the outer training set), every
// item is a training item, and the refit's score equals a hand-made split,
// fit and score on the same comparisons.
func TestComparisonHoldout(t *testing.T) {
	const n = 8
	cs := lineTriplets(n)
	id := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		id.SetSym(i, i, 1)
	}
	set := mkpoe.Settings{Mode: mkpoe.Full, Tol: 1e-3}
	l := &KernelLearner{Views: []View{{Gram: id}}, Comparisons: Fixed(cs), Settings: set}
	p := Protocol{HoldOut: HoldOutComparisons, Splits: 2, TestFraction: 0.2, InnerFolds: 3, BetaGrid: []float64{1, 100}, Seed: 9}
	res, err := Nested(context.Background(), l, len(cs), p)
	if err != nil {
		t.Fatal(err)
	}
	for s, sr := range res.Splits {
		if want := int(float64(len(cs))*0.2 + 0.5); len(sr.Test) != want || len(sr.Train) != len(cs)-want {
			t.Errorf("split %d: %d training and %d held-out comparisons of %d, want %d held out", s, len(sr.Train), len(sr.Test), len(cs), want)
		}
		for _, c := range sr.Test {
			if slices.Contains(sr.Train, c) {
				t.Errorf("split %d: comparison %d both trained on and held out", s, c)
			}
		}
		var vals []int
		for f := 0; f < p.InnerFolds; f++ {
			in, val := p.Fold(len(cs), FoldID{Split: s, Fold: f})
			if len(in)+len(val) != len(sr.Train) {
				t.Errorf("split %d fold %d: %d+%d comparisons, want the %d of the split", s, f, len(in), len(val), len(sr.Train))
			}
			vals = append(vals, val...)
		}
		slices.Sort(vals)
		if !slices.Equal(vals, sr.Train) {
			t.Errorf("split %d: the validation sets do not partition the training comparisons", s)
		}
		// By hand: fit the training comparisons at the chosen β, score the
		// held-out ones in the training embedding.
		var trainCs, heldCs []data.Comparison
		for _, c := range sr.Train {
			trainCs = append(trainCs, cs[c])
		}
		for _, c := range sr.Test {
			heldCs = append(heldCs, cs[c])
		}
		hs := set
		hs.Beta = sr.Beta
		m, err := mkpoe.Fit([]mat.Symmetric{id}, trainCs, &hs)
		if err != nil {
			t.Fatal(err)
		}
		d := func(i, j int) float64 {
			s := 0.0
			for c := 0; c < m.Dim(); c++ {
				x := m.Train.At(i, c) - m.Train.At(j, c)
				s += x * x
			}
			return s
		}
		right := 0
		for _, c := range heldCs {
			if d(c.I, c.J) < d(c.K, c.L) {
				right++
			}
		}
		if want := float64(right) / float64(len(heldCs)); sr.Score != want {
			t.Errorf("split %d: score %v, by hand %v (%d of %d)", s, sr.Score, want, right, len(heldCs))
		}
		if sr.Score < 0.8 {
			t.Errorf("split %d: GNMDS scores %v on held-out comparisons of a line, want ≥ 0.8", s, sr.Score)
		}
	}
}

func TestComparisonHoldoutErrors(t *testing.T) {
	cs := lineTriplets(4)
	if _, _, err := (ByIndex{All: cs, Train: []int{0}}).Split([]int{0, 1, 2, 3}, []int{4}); err == nil || !strings.Contains(err.Error(), "no held-out items") {
		t.Errorf("held-out items: %v", err)
	}
	if _, _, err := (ByIndex{All: cs, Train: []int{0}}).Split([]int{0, 2, 3, 5}, nil); err == nil || !strings.Contains(err.Error(), "every item") {
		t.Errorf("a subset of the items: %v", err)
	}
	if _, _, err := (ByIndex{All: cs, Held: []int{len(cs)}}).Split([]int{0, 1, 2, 3}, nil); err == nil || !strings.Contains(err.Error(), "comparison index") {
		t.Errorf("index out of range: %v", err)
	}
	p := Protocol{HoldOut: HoldOutComparisons, Splits: 1, TestFraction: 0.2, InnerFolds: 2, BetaGrid: []float64{1}}
	if _, err := Nested(context.Background(), &recorder{items: map[FoldID][2][]int{}}, 20, p); err == nil || !strings.Contains(err.Error(), "needs a ComparisonLearner") {
		t.Errorf("a Learner without comparisons: %v", err)
	}
	tax := &KernelLearner{Views: []View{{Gram: mat.NewSymDense(4, nil)}}, Comparisons: FromTaxonomy{}}
	if _, err := tax.ComparisonTrial(Outer(0), []int{0}, []int{1}); err == nil || !strings.Contains(err.Error(), "needs Fixed comparisons") {
		t.Errorf("taxonomy comparisons: %v", err)
	}
}

// TestPartitionFold: over the k splits every unit is held out exactly once;
// each class is spread evenly (its count per fold differs by at most one),
// and so are the fold sizes; the same seed gives the same partition.
func TestPartitionFold(t *testing.T) {
	var labels []int
	for c := 1; c <= 10; c++ { // 10 classes of 10 or 11 units (105 in all)
		for j := 0; j < 10+c%2; j++ {
			labels = append(labels, c)
		}
	}
	n, k := len(labels), 5
	for _, strata := range [][]int{labels, nil} {
		held := make([]int, n)
		for s := 0; s < k; s++ {
			train, test := PartitionFold(n, k, strata, 3, s)
			if len(train)+len(test) != n {
				t.Fatalf("split %d: %d + %d units, want %d", s, len(train), len(test), n)
			}
			if lo, hi := n/k, (n+k-1)/k; len(test) < lo || len(test) > hi {
				t.Errorf("split %d: %d held out, want %d..%d", s, len(test), lo, hi)
			}
			perClass := map[int]int{}
			for _, i := range test {
				held[i]++
				if strata != nil {
					perClass[strata[i]]++
				}
			}
			for c, m := range perClass {
				size := 0
				for _, l := range labels {
					if l == c {
						size++
					}
				}
				if m < size/k || m > (size+k-1)/k {
					t.Errorf("split %d: class %d (%d units) has %d held out, want %d..%d", s, c, size, m, size/k, (size+k-1)/k)
				}
			}
			if again, _ := PartitionFold(n, k, strata, 3, s); !slices.Equal(again, train) {
				t.Errorf("split %d: the same seed gave another partition", s)
			}
		}
		for i, h := range held {
			if h != 1 {
				t.Fatalf("unit %d held out %d times, want once", i, h)
			}
		}
	}
	p := Protocol{Partition: true, Splits: 5, TestFraction: 0.25, InnerFolds: 2, BetaGrid: []float64{1}}
	if err := p.Validate(20); err == nil || !strings.Contains(err.Error(), "TestFraction must be 0.2") {
		t.Errorf("partition with test fraction 1/4 of 5 splits: %v", err)
	}
	p.TestFraction, p.Strata = 0.2, []int{1, 2}
	if err := p.Validate(20); err == nil || !strings.Contains(err.Error(), "one label per unit") {
		t.Errorf("short strata: %v", err)
	}
}

// TestFoldRange: per β the lowest and highest fold, NaN folds left out,
// NaN where every fold is NaN.
func TestFoldRange(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		curves [][]float64
		lo, hi []float64
	}{
		{nil, nil, nil},
		{[][]float64{{0.5, 0.7}}, []float64{0.5, 0.7}, []float64{0.5, 0.7}},
		{[][]float64{{0.5, 0.75, nan}, {0.6, 0.70, nan}, {0.7, 0.80, nan}}, []float64{0.5, 0.70, nan}, []float64{0.7, 0.80, nan}},
		{[][]float64{{nan, 0.9}, {0.4, 0.1}}, []float64{0.4, 0.1}, []float64{0.4, 0.9}},
	} {
		lo, hi := FoldRange(tc.curves)
		same := func(a, b []float64) bool {
			return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) })
		}
		if !same(lo, tc.lo) || !same(hi, tc.hi) {
			t.Errorf("FoldRange(%v) = %v, %v, want %v, %v", tc.curves, lo, hi, tc.lo, tc.hi)
		}
		if mean := MeanCurve(tc.curves); len(mean) != len(lo) {
			t.Errorf("FoldRange(%v): %d values, MeanCurve %d", tc.curves, len(lo), len(mean))
		}
	}
}

// TestGivenSplit: a given split is the outer split as given, its inner
// folds partition its training units as InnerFold deals them, and
// Validate refuses what cannot be one.
func TestGivenSplit(t *testing.T) {
	g := &GivenSplit{Train: []int{0, 2, 3, 5, 6, 8}, Held: []int{1, 4}}
	p := Protocol{Given: g, Splits: 1, InnerFolds: 3, BetaGrid: []float64{1}, Seed: 4}
	if err := p.Validate(9); err != nil {
		t.Fatal(err)
	}
	train, held := p.Fold(9, Outer(0))
	if !slices.Equal(train, g.Train) || !slices.Equal(held, g.Held) {
		t.Fatalf("outer split %v / %v, want %v / %v", train, held, g.Train, g.Held)
	}
	train[0] = 99 // a copy: the given split is not changed through it
	var vals []int
	for f := 0; f < 3; f++ {
		in, val := p.Fold(9, FoldID{Split: 0, Fold: f})
		wantIn, wantVal := InnerFold(g.Train, 3, 4, 0, f)
		if !slices.Equal(in, wantIn) || !slices.Equal(val, wantVal) {
			t.Errorf("fold %d: %v / %v, want InnerFold's %v / %v", f, in, val, wantIn, wantVal)
		}
		vals = append(vals, val...)
	}
	if slices.Sort(vals); !slices.Equal(vals, g.Train) {
		t.Errorf("validation sets %v do not partition the training units %v", vals, g.Train)
	}
	for _, tc := range []struct {
		name string
		p    Protocol
		n    int
		want string
	}{
		{"two splits", Protocol{Given: g, Splits: 2, InnerFolds: 3, BetaGrid: []float64{1}}, 9, "Splits must be 1, got 2"},
		{"partition", Protocol{Given: g, Splits: 1, Partition: true, InnerFolds: 3, BetaGrid: []float64{1}}, 9, "Partition must be false"},
		{"out of range", Protocol{Given: g, Splits: 1, InnerFolds: 3, BetaGrid: []float64{1}}, 8, "units must be in [0,8), got 8"},
		{"nothing held", Protocol{Given: &GivenSplit{Train: []int{0, 1, 2}}, Splits: 1, InnerFolds: 2, BetaGrid: []float64{1}}, 3, "must hold out at least one unit"},
		{"overlap", Protocol{Given: &GivenSplit{Train: []int{0, 1, 2}, Held: []int{2}}, Splits: 1, InnerFolds: 2, BetaGrid: []float64{1}}, 3, "disjoint, got 2 in both"},
		{"unsorted", Protocol{Given: &GivenSplit{Train: []int{1, 0, 2}, Held: []int{3}}, Splits: 1, InnerFolds: 2, BetaGrid: []float64{1}}, 4, "sorted and distinct, got 0 after 1"},
		{"too few to fold", Protocol{Given: g, Splits: 1, InnerFolds: 7, BetaGrid: []float64{1}}, 9, "the given split's 6 training items cannot be dealt into 7 inner folds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.p.Validate(tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestGivenComparisons: the refit of a given item split fits its training
// comparisons and scores every held-out one, renumbered training items
// first; a training comparison touching a held-out item, or an item of
// neither list, is an error.
func TestGivenComparisons(t *testing.T) {
	train, held := []int{0, 2, 3}, []int{1, 4}
	g := GivenComparisons{Train: Fixed{data.Triplet(0, 2, 3)}, Held: Fixed{data.Triplet(1, 0, 2), {I: 4, J: 1, K: 0, L: 3}, data.Triplet(2, 0, 3)}}
	tr, he, err := g.Split(train, held)
	if err != nil {
		t.Fatal(err)
	}
	wantTr := []data.Comparison{data.Triplet(0, 1, 2)}
	wantHe := []data.Comparison{data.Triplet(3, 0, 1), {I: 4, J: 3, K: 0, L: 2}, data.Triplet(1, 0, 2)}
	if !slices.Equal(tr, wantTr) || !slices.Equal(he, wantHe) {
		t.Errorf("Split: %v / %v, want %v / %v", tr, he, wantTr, wantHe)
	}
	if _, _, err := (GivenComparisons{Train: Fixed{data.Triplet(0, 1, 2)}}).Split(train, held); err == nil || !strings.Contains(err.Error(), "item 1 is not a training item") {
		t.Errorf("training comparison with a held-out item: %v", err)
	}
	if _, _, err := (GivenComparisons{Held: Fixed{data.Triplet(1, 0, 5)}}).Split(train, held); err == nil || !strings.Contains(err.Error(), "item 5 is neither a training nor a held-out item") {
		t.Errorf("held-out comparison with an unknown item: %v", err)
	}
}

// TestNestedRelativeGrid: with BetaRelative every inner fold sweeps the
// multiples of its own training set's β_min (mkpoe.MinBeta, computed here
// by hand), and the refit runs at the chosen multiple of the split's
// β_min; a rank bound in the learner's settings reaches every fit.
func TestNestedRelativeGrid(t *testing.T) {
	const n = 8
	cs := lineTriplets(n)
	id := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		id.SetSym(i, i, 1)
	}
	set := mkpoe.Settings{Mode: mkpoe.Full, Rank: 2}
	l := &KernelLearner{Views: []View{{Gram: id}}, Comparisons: Fixed(cs), Settings: set}
	multiples := []float64{1.5, 3, 10}
	p := Protocol{HoldOut: HoldOutComparisons, Splits: 2, TestFraction: 0.2, InnerFolds: 3, BetaGrid: multiples, BetaRelative: true, Seed: 9}
	res, err := Nested(context.Background(), l, len(cs), p)
	if err != nil {
		t.Fatal(err)
	}
	minBetaOf := func(idx []int) float64 {
		var sub []data.Comparison
		for _, c := range idx {
			sub = append(sub, cs[c])
		}
		mb, err := mkpoe.MinBeta([]mat.Symmetric{id}, sub, &set)
		if err != nil {
			t.Fatal(err)
		}
		return mb
	}
	for s, sr := range res.Splits {
		for f, pts := range sr.Sweeps {
			in, _ := p.Fold(len(cs), FoldID{Split: s, Fold: f})
			mb := minBetaOf(in)
			for b, pt := range pts {
				if pt.Beta != multiples[b]*mb {
					t.Errorf("split %d fold %d: β %g, want %g·β_min = %g", s, f, pt.Beta, multiples[b], multiples[b]*mb)
				}
			}
		}
		if mb := minBetaOf(sr.Train); sr.MinBeta != mb || !slices.Contains(multiples, sr.Multiple) || sr.Beta != sr.Multiple*mb {
			t.Errorf("split %d: refit β %g = %g × β_min %g, want a grid multiple × %g", s, sr.Beta, sr.Multiple, sr.MinBeta, mb)
		}
		if sr.Model.Dim() > 2 || sr.Model.Solver != mkpoe.LowRank {
			t.Errorf("split %d: refit of dimension %d by %s, want at most 2 by lowrank (Settings.Rank)", s, sr.Model.Dim(), sr.Model.Solver)
		}
	}
}

// TestFoldGridErrors: a relative grid needs a MinBetaTrial and a finite,
// positive β_min.
func TestFoldGridErrors(t *testing.T) {
	if _, _, err := FoldGrid(&stubTrial{}, []float64{1}, true); err == nil || !strings.Contains(err.Error(), "needs a MinBetaTrial") {
		t.Errorf("plain trial: %v", err)
	}
	for _, mb := range []float64{math.Inf(1), 0} {
		_, _, err := FoldGrid(&stubMinBetaTrial{mb: mb}, []float64{1}, true)
		var nu *NoUnitError
		if !errors.As(err, &nu) || nu.MinBeta != mb {
			t.Errorf("β_min %g: %v, want a NoUnitError", mb, err)
		}
	}
	grid, mb, err := FoldGrid(&stubMinBetaTrial{mb: 4}, []float64{1.5, 2}, true)
	if err != nil || mb != 4 || !slices.Equal(grid, []float64{6, 8}) {
		t.Errorf("β_min 4: grid %v, β_min %g, %v", grid, mb, err)
	}
	if grid, mb, err := FoldGrid(&stubTrial{}, []float64{1.5, 2}, false); err != nil || mb != 0 || !slices.Equal(grid, []float64{1.5, 2}) {
		t.Errorf("absolute grid: %v, %g, %v", grid, mb, err)
	}
}

type stubTrial struct{}

func (stubTrial) Fit(context.Context, float64, *mkpoe.Model) (*mkpoe.Model, error) { return nil, nil }
func (stubTrial) Score(*mkpoe.Model) (float64, error)                              { return 0, nil }

type stubMinBetaTrial struct {
	stubTrial
	mb float64
}

func (s stubMinBetaTrial) MinBeta() (float64, error) { return s.mb, nil }
