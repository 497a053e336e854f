package cv

import (
	"context"
	"fmt"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"gonum.org/v1/gonum/mat"
)

// A ComparisonSource gives the comparisons of a fold: training comparisons
// among the training items and held-out comparisons (i,j,i,k) with i held
// out and j, k training items (Sec. 5.1, 5.2.2), both numbered by
// data.NewItemSplit(train, held).
type ComparisonSource interface {
	Split(train, held []int) (trainCs, heldCs []data.Comparison, err error)
}

// Fixed is a fixed list of comparisons over the global items (e.g. the
// aset400 survey's triplets), split by data.SplitComparisons.
type Fixed []data.Comparison

// Split implements ComparisonSource.
func (f Fixed) Split(train, held []int) ([]data.Comparison, []data.Comparison, error) {
	tr, he := data.SplitComparisons(f, train, held)
	return tr, he, nil
}

// ByIndex is the comparison source of a comparison-holdout fold
// (HoldOutComparisons): every item is a training item, All[i] for i in
// Train are fitted and All[i] for i in Held are scored. Its Split must be
// given all n items in order (so the numbering of data.NewItemSplit is the
// identity) and no held-out items.
type ByIndex struct {
	All         Fixed
	Train, Held []int
}

// Split implements ComparisonSource.
func (b ByIndex) Split(train, held []int) ([]data.Comparison, []data.Comparison, error) {
	if len(held) > 0 {
		return nil, nil, fmt.Errorf("cv: comparison holdout has no held-out items, got %d", len(held))
	}
	for r, i := range train {
		if r != i {
			return nil, nil, fmt.Errorf("cv: comparison holdout trains on every item 0..n−1 in order, got item %d at position %d", i, r)
		}
	}
	pick := func(idx []int) ([]data.Comparison, error) {
		out := make([]data.Comparison, len(idx))
		for r, i := range idx {
			if i < 0 || i >= len(b.All) {
				return nil, fmt.Errorf("cv: comparison index must be in [0,%d), got %d", len(b.All), i)
			}
			out[r] = b.All[i]
		}
		return out, data.ValidateComparisons(out, len(train))
	}
	tr, err := pick(b.Train)
	if err != nil {
		return nil, nil, err
	}
	he, err := pick(b.Held)
	return tr, he, err
}

// GivenComparisons is the comparison source of a given outer split
// (Protocol.Given) under item holdout: Train, among the training items
// only, are fitted, and every comparison of Held is scored, whatever its
// shape, its held-out items embedded out of sample (a triplet anchored at a
// held-out item against training items is the paper's test comparison,
// Sec. 5.1). Both are over the global items; Split renumbers them by
// data.NewItemSplit. Inner folds split the training comparisons as a fixed
// list (Fixed(Train)).
type GivenComparisons struct{ Train, Held Fixed }

// Split implements ComparisonSource.
func (g GivenComparisons) Split(train, held []int) ([]data.Comparison, []data.Comparison, error) {
	s := data.NewItemSplit(train, held)
	tr := make([]data.Comparison, len(g.Train))
	for r, c := range g.Train {
		for _, i := range [4]int{c.I, c.J, c.K, c.L} {
			if !s.IsTrain(i) {
				return nil, nil, fmt.Errorf("cv: given training comparison %d %v: item %d is not a training item", r, c, i)
			}
		}
		tr[r] = s.Renumber(c)
	}
	he := make([]data.Comparison, len(g.Held))
	for r, c := range g.Held {
		for _, i := range [4]int{c.I, c.J, c.K, c.L} {
			if !s.IsTrain(i) && !s.IsHeldOut(i) {
				return nil, nil, fmt.Errorf("cv: given held-out comparison %d %v: item %d is neither a training nor a held-out item", r, c, i)
			}
		}
		he[r] = s.Renumber(c)
	}
	return tr, he, nil
}

// FromTaxonomy derives comparisons from class labels in a taxonomy
// (Sec. 5.1): within the training items for training, and anchored at each
// held-out item against the training items for scoring.
type FromTaxonomy struct {
	Taxonomy *data.Taxonomy
	Labels   []int // class label of each global item
}

// Split implements ComparisonSource.
func (t FromTaxonomy) Split(train, held []int) ([]data.Comparison, []data.Comparison, error) {
	s := data.NewItemSplit(train, held)
	tr, err := t.Taxonomy.Comparisons(t.Labels, train, train)
	if err != nil {
		return nil, nil, err
	}
	he, err := t.Taxonomy.Comparisons(t.Labels, held, train)
	if err != nil {
		return nil, nil, err
	}
	for i, c := range tr {
		tr[i] = s.Renumber(c)
	}
	for i, c := range he {
		he[i] = s.Renumber(c)
	}
	return tr, he, nil
}

// View is one kernel of a KernelLearner, given either as a Gram matrix over
// all n items (Gram), or as a kernel and its input over all n items, fitted
// on each fold's training items alone (Kernel, Input, Options: the paper's
// protocol, under which no statistic of a held-out item reaches training).
type View struct {
	Gram    mat.Symmetric
	Kernel  kernels.Kernel
	Input   kernels.Input
	Options kernels.Options
}

// KernelLearner is a Learner over kernels and comparisons held in memory:
// MKPOE with one W per view (Settings.Combine Separate), or on the sum of
// the views (Sum). Settings.Beta and Settings.Init are set per fit.
type KernelLearner struct {
	Views       []View
	Comparisons ComparisonSource
	Settings    mkpoe.Settings
}

// Trial implements Learner.
func (l *KernelLearner) Trial(id FoldID, train, held []int) (Trial, error) {
	if len(l.Views) == 0 {
		return nil, fmt.Errorf("cv: KernelLearner has no views")
	}
	if l.Comparisons == nil {
		return nil, fmt.Errorf("cv: KernelLearner has no comparisons")
	}
	kt := &kernelTrial{settings: l.Settings}
	for v, view := range l.Views {
		g, r, err := view.fold(train, held)
		if err != nil {
			return nil, fmt.Errorf("view %d: %w", v, err)
		}
		kt.grams = append(kt.grams, g)
		kt.rows = append(kt.rows, r)
	}
	var err error
	if kt.trainCs, kt.heldCs, err = l.Comparisons.Split(train, held); err != nil {
		return nil, err
	}
	return kt, nil
}

// ComparisonTrial implements ComparisonLearner: the kernels on all n items,
// the comparisons of indices train fitted and those of held scored in the
// training embedding. It needs Comparisons to be Fixed (a taxonomy derives
// comparisons from a split of the items, so it has no fixed list to hold
// out from), and the views' size n.
func (l *KernelLearner) ComparisonTrial(id FoldID, train, held []int) (Trial, error) {
	all, ok := l.Comparisons.(Fixed)
	if !ok {
		return nil, fmt.Errorf("cv: comparison holdout needs Fixed comparisons, got %T", l.Comparisons)
	}
	n, err := l.items()
	if err != nil {
		return nil, err
	}
	items := make([]int, n)
	for i := range items {
		items[i] = i
	}
	return (&KernelLearner{Views: l.Views, Settings: l.Settings, Comparisons: ByIndex{All: all, Train: train, Held: held}}).Trial(id, items, nil)
}

// items returns the number of items of the views (the first view's size).
func (l *KernelLearner) items() (int, error) {
	if len(l.Views) == 0 {
		return 0, fmt.Errorf("cv: KernelLearner has no views")
	}
	v := l.Views[0]
	if v.Gram != nil {
		return v.Gram.SymmetricDim(), nil
	}
	return v.Input.Len()
}

// fold returns the view's kernel on the training items and the held-out
// items' rows against them.
func (v View) fold(train, held []int) (mat.Symmetric, *mat.Dense, error) {
	if v.Gram != nil {
		if n := v.Gram.SymmetricDim(); n <= maxIndex(train, held) {
			return nil, nil, fmt.Errorf("the Gram matrix is %d×%d, item %d is out of range", n, n, maxIndex(train, held))
		}
		g := mat.NewSymDense(len(train), nil)
		for a, i := range train {
			for b := a; b < len(train); b++ {
				g.SetSym(a, b, v.Gram.At(i, train[b]))
			}
		}
		if len(held) == 0 {
			return g, nil, nil
		}
		r := mat.NewDense(len(held), len(train), nil)
		for a, i := range held {
			for b, j := range train {
				r.Set(a, b, v.Gram.At(i, j))
			}
		}
		return g, r, nil
	}
	if v.Kernel == nil {
		return nil, nil, fmt.Errorf("set Gram, or Kernel and Input")
	}
	m, err := kernels.Fit(v.Kernel, v.Input.Subset(train), v.Options)
	if err != nil {
		return nil, nil, err
	}
	if len(held) == 0 {
		return m.Gram(), nil, nil
	}
	r, err := m.Rows(v.Input.Subset(held))
	if err != nil {
		return nil, nil, err
	}
	return m.Gram(), r, nil
}

func maxIndex(lists ...[]int) int {
	m := -1
	for _, l := range lists {
		for _, i := range l {
			m = max(m, i)
		}
	}
	return m
}

// kernelTrial is the Trial of KernelLearner.
type kernelTrial struct {
	settings        mkpoe.Settings
	grams           []mat.Symmetric
	rows            []*mat.Dense
	trainCs, heldCs []data.Comparison
}

func (t *kernelTrial) Fit(ctx context.Context, beta float64, warm *mkpoe.Model) (*mkpoe.Model, error) {
	s := t.settings
	s.Beta, s.Init = beta, warm
	return mkpoe.FitContext(ctx, t.grams, t.trainCs, &s)
}

// MinBeta implements MinBetaTrial: β_min of the fold's training set with
// the learner's settings.
func (t *kernelTrial) MinBeta() (float64, error) {
	return mkpoe.MinBeta(t.grams, t.trainCs, &t.settings)
}

func (t *kernelTrial) Score(m *mkpoe.Model) (float64, error) {
	return HeldOutScore(m, t.rows, t.heldCs)
}

// HeldOutScore is the accuracy of model m on held-out comparisons numbered
// as by data.SplitComparisons: training items from the model's training
// embedding, held-out items embedded from their kernel rows (Sec. 3.2,
// 4.3). It is NaN when there is no comparison to score.
//
// With no held-out items (comparison holdout: rows all nil) the comparisons
// are scored in the training embedding.
func HeldOutScore(m *mkpoe.Model, rows []*mat.Dense, heldCs []data.Comparison) (float64, error) {
	os, err := HeldOutOutcomes(m, rows, heldCs)
	if err != nil {
		return 0, err
	}
	return eval.Count(os).Accuracy(), nil
}

// HeldOutOutcomes is HeldOutScore comparison by comparison: right, tie or
// wrong (eval.Outcomes), in the order of heldCs.
func HeldOutOutcomes(m *mkpoe.Model, rows []*mat.Dense, heldCs []data.Comparison) ([]eval.Outcome, error) {
	if len(heldCs) == 0 {
		return nil, nil
	}
	all, err := HeldOutEmbedding(m, rows)
	if err != nil {
		return nil, err
	}
	if n, _ := all.Dims(); allNil(rows) {
		if err := data.ValidateComparisons(heldCs, n); err != nil {
			return nil, err
		}
	}
	return eval.Outcomes(heldCs, eval.EmbeddingDistance(all)), nil
}

// HeldOutEmbedding returns the embedding that held-out comparisons are
// scored in: the training items' (m.Train), then the held-out items'
// from their kernel rows (Sec. 3.2, 4.3); with no held-out items
// (comparison holdout: rows all nil) the training embedding alone.
func HeldOutEmbedding(m *mkpoe.Model, rows []*mat.Dense) (*mat.Dense, error) {
	if allNil(rows) {
		return m.Train, nil
	}
	return m.EmbedWithTraining(rows)
}

// allNil reports whether every matrix of rows is nil (no held-out items).
func allNil(rows []*mat.Dense) bool {
	for _, r := range rows {
		if r != nil {
			return false
		}
	}
	return true
}
