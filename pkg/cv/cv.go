package cv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/stats"
)

// Protocol is the nested cross-validation of Sec. 5: Splits outer holdout
// splits of the items (TestFraction held out), and in each, InnerFolds-fold
// cross-validation over the training items to choose β from BetaGrid.
// With HoldOut = HoldOutComparisons the same splits and folds are drawn
// over the comparisons instead, every item being a training item.
type Protocol struct {
	// HoldOut says what the splits and folds hold out: items (the paper's
	// protocol, the zero value) or comparisons.
	HoldOut HoldOut
	// Partition makes the outer splits the Splits folds of one seeded
	// partition of the units (every unit held out exactly once; the
	// "partitioned into five 80/20 splits" of Sec. 5.1) instead of
	// independent random draws; TestFraction must then be 1/Splits.
	// Strata, if set (one label per unit, e.g. the class), stratify it:
	// every class is dealt evenly over the folds (PartitionFold).
	Partition    bool
	Strata       []int
	Splits       int
	TestFraction float64
	InnerFolds   int
	// BetaGrid lists the β values to try, increasing (Sec. 5.1 uses
	// 10⁻², …, 10⁶); ties in validation score go to the earliest.
	BetaGrid []float64
	// BetaRelative makes BetaGrid multiples of each fold's β_min (the
	// largest β at which W = 0 is optimal, mkpoe.MinBeta): every fold
	// sweeps BetaGrid·β_min of its own training set, the chosen multiple
	// is refitted at that multiple of the split's β_min (FoldGrid). The
	// Learner's trials must then be MinBetaTrials.
	BetaRelative bool
	// Seed drives every split (OuterSplit, InnerFold) and is passed to the
	// Learner through FoldID.
	Seed uint64
	// Given, if not nil, is the one outer split, fixed in advance (a data
	// set's published test set): Splits must be 1, and Partition,
	// TestFraction and Strata are not used. The inner folds are drawn from
	// Given.Train by InnerFold as for a drawn split.
	Given *GivenSplit
}

// GivenSplit is an outer split fixed in advance: its training and held-out
// units (items, or comparison indices with HoldOutComparisons), each
// sorted, disjoint.
type GivenSplit struct{ Train, Held []int }

// Validate reports the first rule g breaks for n units: at least one
// held-out unit; units in [0,n), sorted, distinct, and in one list only.
func (g *GivenSplit) Validate(n int) error {
	if len(g.Held) == 0 {
		return errors.New("cv: a given split must hold out at least one unit")
	}
	seen := make(map[int]bool, len(g.Train)+len(g.Held))
	for _, list := range [][]int{g.Train, g.Held} {
		for r, u := range list {
			switch {
			case u < 0 || u >= n:
				return fmt.Errorf("cv: a given split's units must be in [0,%d), got %d", n, u)
			case r > 0 && u <= list[r-1]:
				return fmt.Errorf("cv: a given split's units must be sorted and distinct, got %d after %d", u, list[r-1])
			case seen[u]:
				return fmt.Errorf("cv: a given split's training and held-out units must be disjoint, got %d in both", u)
			}
			seen[u] = true
		}
	}
	return nil
}

// HoldOut is what a protocol's splits and folds hold out.
type HoldOut int

const (
	// HoldOutItems holds out items, scored through the comparisons
	// (i,j,i,k) that anchor them against training items after embedding
	// them by the out-of-sample extension (Sec. 3.2, 4.3; the protocol of
	// Sec. 5.1 and 5.2).
	HoldOutItems HoldOut = iota
	// HoldOutComparisons holds out comparisons among the same items: every
	// item is a training item and the held-out comparisons are scored in
	// the training embedding. It is the protocol for GNMDS (K = I, Sec.
	// 3.3), which has no out-of-sample extension: a new item's kernel row
	// against the training items is zero, so it would embed at the origin.
	HoldOutComparisons
)

// String is "items" or "comparisons".
func (h HoldOut) String() string {
	if h == HoldOutComparisons {
		return "comparisons"
	}
	return "items"
}

// Fold returns the training and held-out units of trial id among n units
// (items, or comparison indices with HoldOutComparisons): outer split
// id.Split (Given, PartitionFold or OuterSplit) for a refit (id.Fold = −1),
// or inner fold id.Fold of its training units (InnerFold).
func (p Protocol) Fold(n int, id FoldID) (train, held []int) {
	switch {
	case p.Given != nil:
		train, held = slices.Clone(p.Given.Train), slices.Clone(p.Given.Held)
	case p.Partition:
		train, held = PartitionFold(n, p.Splits, p.Strata, p.Seed, id.Split)
	default:
		train, held = OuterSplit(n, p.TestFraction, p.Seed, id.Split)
	}
	if id.Fold >= 0 {
		train, held = InnerFold(train, p.InnerFolds, p.Seed, id.Split, id.Fold)
	}
	return train, held
}

// Validate reports the first rule p breaks for a data set of n units: items,
// or comparisons with HoldOutComparisons.
func (p Protocol) Validate(n int) error {
	given := p.Given != nil
	switch {
	case p.Splits < 1:
		return fmt.Errorf("cv: Splits must be ≥ 1, got %d", p.Splits)
	case given && p.Splits != 1:
		return fmt.Errorf("cv: a given split is the only outer split: Splits must be 1, got %d", p.Splits)
	case given && p.Partition:
		return errors.New("cv: a given split is not drawn: Partition must be false")
	case !given && !(p.TestFraction > 0 && p.TestFraction < 1):
		return fmt.Errorf("cv: TestFraction must be in (0, 1), got %g", p.TestFraction)
	case p.InnerFolds < 2:
		return fmt.Errorf("cv: InnerFolds must be ≥ 2, got %d", p.InnerFolds)
	case len(p.BetaGrid) == 0:
		return errors.New("cv: BetaGrid is empty")
	}
	for i, b := range p.BetaGrid {
		if !(b > 0) || math.IsInf(b, 0) {
			return fmt.Errorf("cv: BetaGrid[%d] must be positive and finite, got %g", i, b)
		}
		if i > 0 && !(b > p.BetaGrid[i-1]) {
			return fmt.Errorf("cv: BetaGrid must increase, got %g after %g", b, p.BetaGrid[i-1])
		}
	}
	if p.Partition {
		if p.Splits < 2 || math.Abs(p.TestFraction-1/float64(p.Splits)) > 1e-9 {
			return fmt.Errorf("cv: a partition into %d splits holds out 1/%d of the units: TestFraction must be %g, got %g", p.Splits, p.Splits, 1/float64(p.Splits), p.TestFraction)
		}
		if p.Strata != nil && len(p.Strata) != n {
			return fmt.Errorf("cv: Strata must have one label per unit (%d), got %d", n, len(p.Strata))
		}
	}
	if p.HoldOut != HoldOutItems && p.HoldOut != HoldOutComparisons {
		return fmt.Errorf("cv: HoldOut must be HoldOutItems or HoldOutComparisons, got %d", p.HoldOut)
	}
	var train []int
	if given {
		if err := p.Given.Validate(n); err != nil {
			return err
		}
		train = p.Given.Train
		if len(train) < p.InnerFolds {
			return fmt.Errorf("cv: the given split's %d training %s cannot be dealt into %d inner folds", len(train), p.HoldOut, p.InnerFolds)
		}
		return nil
	}
	train, _ = OuterSplit(n, p.TestFraction, p.Seed, 0)
	if len(train) < p.InnerFolds {
		return fmt.Errorf("cv: %d training %s cannot be dealt into %d inner folds (n = %d, TestFraction %g)", len(train), p.HoldOut, p.InnerFolds, n, p.TestFraction)
	}
	return nil
}

// FoldID names a trial: outer split Split and inner fold Fold, or Fold = −1
// for the refit on all of the split's training items. Learners use it to
// seed their own random choices (comparison subsampling, constraint
// processing), so that results do not depend on the order trials run in.
type FoldID struct{ Split, Fold int }

// Outer is the FoldID of split s's refit.
func Outer(s int) FoldID { return FoldID{Split: s, Fold: -1} }

// A Learner builds the trial of one fold: everything a fit on the training
// items train needs (kernels fitted on them alone, their comparisons) and
// what scoring on the held-out items held needs (their kernel rows against
// the training items, the held-out comparisons). Item lists are global and
// sorted.
type Learner interface {
	Trial(id FoldID, train, held []int) (Trial, error)
}

// A Trial fits models on one fold's training items and scores them on its
// held-out comparisons.
type Trial interface {
	// Fit fits at β; warm, if not nil, is the fit at the previous β of the
	// sweep (mkpoe.Settings.Init). It stops when ctx is cancelled.
	Fit(ctx context.Context, beta float64, warm *mkpoe.Model) (*mkpoe.Model, error)
	// Score is the fraction of held-out comparisons m satisfies (the
	// paper's accuracy, ties counted as errors), NaN if there are none.
	Score(m *mkpoe.Model) (float64, error)
}

// A MinBetaTrial is a Trial that knows the β_min of its training set
// (mkpoe.MinBeta with the fit's settings), the unit of a relative grid.
type MinBetaTrial interface {
	Trial
	MinBeta() (float64, error)
}

// FoldGrid returns the β values a fold sweeps: grid itself, or with
// relative the multiples grid·β_min of tr's training set, and that β_min
// (0 unless relative). β_min must be finite and positive: at +Inf no
// comparison can be improved on and at 0 a coordinate without
// regulariser weight helps at every β, so multiples of it mean nothing.
func FoldGrid(tr Trial, grid []float64, relative bool) (betas []float64, minBeta float64, err error) {
	if !relative {
		return grid, 0, nil
	}
	mt, ok := tr.(MinBetaTrial)
	if !ok {
		return nil, 0, fmt.Errorf("cv: a grid relative to β_min needs a MinBetaTrial, got %T", tr)
	}
	mb, err := mt.MinBeta()
	if err != nil {
		return nil, 0, err
	}
	why := ""
	switch {
	case math.IsInf(mb, 1):
		why = "no comparison can be improved on: W = 0 at every β"
	case !(mb > 0):
		why = "a coordinate without regulariser weight helps at every β"
	}
	if why != "" {
		return nil, 0, &NoUnitError{MinBeta: mb, Why: why}
	}
	return ScaledGrid(grid, mb), mb, nil
}

// NoUnitError is FoldGrid's error when β_min cannot be the unit of a
// relative grid.
type NoUnitError struct {
	MinBeta float64
	Why     string
}

func (e *NoUnitError) Error() string {
	return fmt.Sprintf("β_min of this training set is %g (%s), so a grid relative to β_min has no unit here", e.MinBeta, e.Why)
}

// ScaledGrid returns the multiples m·unit of a relative grid.
func ScaledGrid(multiples []float64, unit float64) []float64 {
	out := make([]float64, len(multiples))
	for i, m := range multiples {
		out[i] = m * unit
	}
	return out
}

// Point is one fit of a sweep: its β, validation score, and the solver's
// objective, iterations and certified relative gap.
type Point struct {
	Beta       float64
	Score      float64
	Objective  float64
	Iterations int
	Gap        float64
	Converged  bool
	// Status is the fit's mkpoe.Stats.Status: certified, stationary (a
	// fixed rank's stationary point: Converged, not certified) or not
	// converged.
	Status mkpoe.FitStatus
	// Solver is the method that ran (mkpoe.Model.Solver): what Auto chose.
	Solver mkpoe.Solver
	// Zero: the model is W = 0 (mkpoe.Model.IsZero), so every distance
	// ties and Score is 0 by the tie rule, not by bad comparisons.
	Zero bool
}

// Sweep fits tr at every β of grid in order, each fit warm-started from the
// previous one, and scores each.
func Sweep(ctx context.Context, tr Trial, grid []float64) ([]Point, error) {
	var prev *mkpoe.Model
	var pts []Point
	for _, beta := range grid {
		m, err := tr.Fit(ctx, beta, prev)
		if err != nil {
			return pts, fmt.Errorf("β=%g: %w", beta, err)
		}
		score, err := tr.Score(m)
		if err != nil {
			return pts, fmt.Errorf("β=%g: %w", beta, err)
		}
		pts = append(pts, Point{Beta: beta, Score: score, Objective: m.Objective, Iterations: m.Stats.Iterations, Gap: m.Stats.RelativeGap, Converged: m.Stats.Converged, Status: m.Stats.Status, Solver: m.Solver, Zero: m.IsZero()})
		prev = m
	}
	return pts, nil
}

// Scores returns the validation scores of a sweep.
func Scores(pts []Point) []float64 {
	s := make([]float64, len(pts))
	for i, p := range pts {
		s[i] = p.Score
	}
	return s
}

// MeanCurve returns, per β, the mean validation score over the inner folds
// (curves[f][b] is fold f's score at β number b), the validation curve from
// which β is chosen. A fold without a score at β (NaN: no scorable
// validation comparison) is left out of that β's mean; a β no fold scored
// gets NaN. Scores are summed in fold order, each divided by the number of
// folds, so that results are reproducible to the last bit.
func MeanCurve(curves [][]float64) []float64 {
	if len(curves) == 0 {
		return nil
	}
	mean := make([]float64, len(curves[0]))
	for b := range mean {
		k := 0
		for _, c := range curves {
			if b < len(c) && !math.IsNaN(c[b]) {
				k++
			}
		}
		if k == 0 {
			mean[b] = math.NaN()
			continue
		}
		for _, c := range curves {
			if b < len(c) && !math.IsNaN(c[b]) {
				mean[b] += c[b] / float64(k)
			}
		}
	}
	return mean
}

// FoldRange returns, per β, the lowest and highest value over the inner
// folds' validation curves (NaN values left out; NaN if every fold is NaN
// there): the spread around MeanCurve.
func FoldRange(curves [][]float64) (lo, hi []float64) {
	if len(curves) == 0 {
		return nil, nil
	}
	n := len(curves[0])
	lo, hi = make([]float64, n), make([]float64, n)
	for b := range n {
		lo[b], hi[b] = math.NaN(), math.NaN()
		for _, c := range curves {
			if b >= len(c) || math.IsNaN(c[b]) {
				continue
			}
			if math.IsNaN(lo[b]) || c[b] < lo[b] {
				lo[b] = c[b]
			}
			if math.IsNaN(hi[b]) || c[b] > hi[b] {
				hi[b] = c[b]
			}
		}
	}
	return lo, hi
}

// ChooseBeta returns the index of the highest mean validation score (the
// rule of every table: β with the best mean inner-fold accuracy, Sec. 5);
// ties go to the earliest β, the most regularised on an increasing grid.
// It returns −1 if no β has a score.
func ChooseBeta(mean []float64) int {
	best := -1
	for b, v := range mean {
		if !math.IsNaN(v) && (best < 0 || v > mean[best]) {
			best = b
		}
	}
	return best
}

// ChooseRankBeta chooses a (rank, β) pair when the inner folds swept the
// β grid at several ranks: means[i] is the validation curve (MeanCurve)
// of rank ranks[i], where rank 0 is the convex fit (no rank bound). It
// returns the indices into ranks and into the grid of the pair with the
// highest mean validation score: each rank's β by ChooseBeta's rule, then
// the best of those, ties going to the smaller rank, the convex fit
// counting as larger than any bound (the smaller embedding when they
// validate alike). It returns −1, −1 if no pair has a score.
func ChooseRankBeta(ranks []int, means [][]float64) (rank, beta int) {
	rank, beta = -1, -1
	for i, mean := range means {
		b := ChooseBeta(mean)
		if b < 0 {
			continue
		}
		if rank < 0 || mean[b] > means[rank][beta] || (mean[b] == means[rank][beta] && rankBefore(ranks[i], ranks[rank])) {
			rank, beta = i, b
		}
	}
	return rank, beta
}

// rankBefore reports whether rank a is smaller than rank b, 0 (no bound)
// being larger than any other.
func rankBefore(a, b int) bool {
	switch {
	case a == 0:
		return false
	case b == 0:
		return true
	}
	return a < b
}

// SplitResult is the outcome of one outer split of Nested.
type SplitResult struct {
	Train, Test []int
	// Sweeps[f] is inner fold f's sweep over the β grid.
	Sweeps [][]Point
	// Mean is the validation curve (MeanCurve over the folds).
	Mean []float64
	// Beta is the chosen β; Model the refit on all training items at Beta,
	// and Score its score on the held-out items' comparisons.
	Beta  float64
	Model *mkpoe.Model
	Score float64
	// With BetaRelative: Multiple is the chosen multiple of β_min and
	// MinBeta the split's training set's, so that Beta = Multiple·MinBeta.
	Multiple, MinBeta float64
}

// Result is the outcome of Nested: every split, and the mean and sample
// standard deviation of their test scores (0 for one split).
type Result struct {
	Splits    []SplitResult
	Mean, Std float64
}

// A ComparisonLearner builds trials for comparison holdout
// (HoldOutComparisons): every item is a training item; train and held are
// indices into the learner's list of comparisons, fitted and scored.
type ComparisonLearner interface {
	ComparisonTrial(id FoldID, train, held []int) (Trial, error)
}

// Nested runs the protocol p on n units with learner l, one trial after
// another (the harness runs the same steps as parallel, resumable tasks).
// The units are items, or with HoldOutComparisons the learner's comparisons
// (l must then be a ComparisonLearner, and SplitResult's Train and Test
// hold comparison indices).
func Nested(ctx context.Context, l Learner, n int, p Protocol) (*Result, error) {
	if err := p.Validate(n); err != nil {
		return nil, err
	}
	trial := l.Trial
	if p.HoldOut == HoldOutComparisons {
		cl, ok := l.(ComparisonLearner)
		if !ok {
			return nil, fmt.Errorf("cv: HoldOutComparisons needs a ComparisonLearner, got %T", l)
		}
		trial = cl.ComparisonTrial
	}
	res := &Result{}
	for s := 0; s < p.Splits; s++ {
		train, test := p.Fold(n, Outer(s))
		sr := SplitResult{Train: train, Test: test}
		curves := make([][]float64, p.InnerFolds)
		for f := 0; f < p.InnerFolds; f++ {
			in, val := p.Fold(n, FoldID{Split: s, Fold: f})
			tr, err := trial(FoldID{Split: s, Fold: f}, in, val)
			if err != nil {
				return nil, fmt.Errorf("cv: split %d, fold %d: %w", s, f, err)
			}
			grid, _, err := FoldGrid(tr, p.BetaGrid, p.BetaRelative)
			if err != nil {
				return nil, fmt.Errorf("cv: split %d, fold %d: %w", s, f, err)
			}
			pts, err := Sweep(ctx, tr, grid)
			if err != nil {
				return nil, fmt.Errorf("cv: split %d, fold %d: %w", s, f, err)
			}
			sr.Sweeps = append(sr.Sweeps, pts)
			curves[f] = Scores(pts)
		}
		sr.Mean = MeanCurve(curves)
		b := ChooseBeta(sr.Mean)
		if b < 0 {
			return nil, fmt.Errorf("cv: split %d: no inner fold has a scorable validation comparison", s)
		}
		sr.Beta = p.BetaGrid[b]
		tr, err := trial(Outer(s), train, test)
		if err != nil {
			return nil, fmt.Errorf("cv: split %d: %w", s, err)
		}
		if p.BetaRelative {
			sr.Multiple = sr.Beta
			if _, sr.MinBeta, err = FoldGrid(tr, nil, true); err != nil {
				return nil, fmt.Errorf("cv: split %d: %w", s, err)
			}
			sr.Beta = sr.Multiple * sr.MinBeta
		}
		if sr.Model, err = tr.Fit(ctx, sr.Beta, nil); err != nil {
			return nil, fmt.Errorf("cv: split %d: refit at β=%g: %w", s, sr.Beta, err)
		}
		if sr.Score, err = tr.Score(sr.Model); err != nil {
			return nil, fmt.Errorf("cv: split %d: %w", s, err)
		}
		res.Splits = append(res.Splits, sr)
	}
	scores := make([]float64, len(res.Splits))
	for i, sr := range res.Splits {
		scores[i] = sr.Score
	}
	res.Mean, res.Std = stats.MeanStd(scores)
	return res, nil
}
